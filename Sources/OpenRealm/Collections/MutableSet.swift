import Foundation
import ORCore

/// A set of distinct values or objects, the type of set properties
/// (`@Persisted var tags: MutableSet<String>`). A managed set keeps its elements in
/// ORCore's value order.
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    var unmanaged: [Element]
    /// Where the managed collection lives; nil while unmanaged (set when adopted by an
    /// added object, `_adopt`).
    private(set) var location: CollectionLocation?

    public init() {
        unmanaged = []
        location = nil
    }

    public convenience init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        for e in elements where !unmanaged.contains(e) { unmanaged.append(e) }
    }

    init(managed object: ObjectBase, index: Int) {
        unmanaged = []
        location = CollectionLocation(object, index)
    }

    public var realm: Realm? { location?.realm }
    /// Whether the owning object was deleted, or the realm invalidated since it was read.
    public var isInvalidated: Bool { location?.isInvalidated ?? false }
    public var isFrozen: Bool { location?.realm.isFrozen ?? false }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int { location?.size() ?? unmanaged.count }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        guard let location else { return unmanaged[position] }
        return Element._orDecode(location.get(position), location.realm)
    }

    /// Iterates the elements the set holds when the loop begins: changing the set, or
    /// deleting its objects, in the loop's body skips and repeats nothing (`RLMIterator`).
    public func makeIterator() -> RLMIterator<Element> {
        guard let location else { return RLMIterator(values: unmanaged) }
        return location.snapshotIterator(of: Element.self) {
            (0..<location.size()).map { Element._orDecode(location.get($0), location.realm) }
        }
    }

    public func contains(_ element: Element) -> Bool {
        guard let location else { return unmanaged.contains(element) }
        if let object = element as? ObjectBase, object._realm == nil { return false }
        let context = _ORWriteContext(realm: location.realm, policy: .error, arena: ByteArena())
        guard var value = try? element._orEncode(context) else { return false }
        var found = 0
        return orc_coll_find(location.txn, location.table, location.key, location.column, &value, &found) == ORC_OK
    }

    public func insert(_ element: Element) {
        guard let location else { if !unmanaged.contains(element) { unmanaged.append(element) }; return }
        location.write("insert into") { context, txn in
            var value = try element._orEncode(context)
            try location.check(orc_set_insert(txn, location.table, location.key, location.column, &value, nil), "Inserting into")
        }
    }

    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    public func remove(_ element: Element) {
        guard let location else { unmanaged.removeAll { $0 == element }; return }
        if let object = element as? ObjectBase, object._realm == nil { return }
        location.write("remove from") { context, txn in
            var value = try element._orEncode(context)
            try location.check(orc_set_erase(txn, location.table, location.key, location.column, &value, nil), "Removing from")
        }
    }

    public func removeAll() {
        guard let location else { unmanaged.removeAll(); return }
        location.write("clear") { _, txn in
            try location.check(orc_coll_clear(txn, location.table, location.key, location.column), "Clearing")
        }
    }

    public func isSubset(of other: MutableSet<Element>) -> Bool { allSatisfy { other.contains($0) } }
    public func intersects(_ other: MutableSet<Element>) -> Bool { contains { other.contains($0) } }

    public func formUnion(_ other: MutableSet<Element>) { for e in Array(other) { insert(e) } }
    public func formIntersection(_ other: MutableSet<Element>) { for e in Array(self) where !other.contains(e) { remove(e) } }
    public func subtract(_ other: MutableSet<Element>) { for e in Array(other) { remove(e) } }

    /// The elements, described as the Realm Swift SDK does (`DescriptionWithMaxDepth`).
    public var description: String { _description(maxDepth: DescriptionWithMaxDepth.maxDepth) }

    var elements: [Element] { location == nil ? unmanaged : map { $0 } }
}

extension MutableSet: _Persistable {
    public static var _orDescriptor: _ORPropertyDescriptor {
        var descriptor = Element._orDescriptor
        descriptor.collection = ORC_COLL_SET
        return descriptor
    }
    public static func _orDefault() -> MutableSet<Element> { MutableSet() }
    public static func _orGet(_ object: ObjectBase, _ index: Int) -> MutableSet<Element> {
        object._managedCollection(index) { MutableSet(managed: object, index: index) }
    }
    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: MutableSet<Element>) {
        value._orAssignAsProperty(of: object, index: index)
    }
    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> MutableSet<Element> {
        recorder.append(object, index)
        return MutableSet()
    }
    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> MutableSet<Element> {
        if let set = value as? MutableSet<Element> { return MutableSet(set.elements) }
        return MutableSet(try AnyValueConversion.elements(of: value, as: Element.self, for: "MutableSet<\(Element.self)>", context))
    }
    public func _orToAny() -> Any? { self }
}

extension MutableSet: CollectionAssignable {
    func _orAssign(to object: ObjectBase, index: Int, context: _ORWriteContext) throws {
        let source = elements
        let location = CollectionLocation(object, index)
        let txn = location.realm.writeTxn!
        try location.check(orc_coll_clear(txn, location.table, location.key, location.column), "Clearing")
        for element in source {
            var value = try element._orEncode(context)
            try location.check(orc_set_insert(location.realm.writeTxn!, location.table, location.key, location.column, &value, nil), "Inserting into")
        }
    }
}

extension MutableSet: _ManagedCollection {
    func _adopt(_ object: ObjectBase, _ index: Int) {
        location = CollectionLocation(object, index)
        unmanaged = []
    }
}
