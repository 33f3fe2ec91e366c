import Foundation
import ORCore

/// An ordered list of values or objects, the type of list properties:
///
/// ```swift
/// class Team: Object {
///     @Persisted var tasks: List<Task>
///     @Persisted var members: List<String>
/// }
/// ```
///
/// Unmanaged, a list holds its elements itself; the list of a managed object reads and
/// writes the realm (writes inside a write transaction).
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection, CustomStringConvertible {
    var unmanaged: [Element]
    /// Where the managed collection lives; nil while unmanaged (set when adopted by an
    /// added object, `_adopt`).
    private(set) var location: CollectionLocation?

    /// An empty unmanaged list.
    public init() {
        unmanaged = []
        location = nil
    }

    /// An unmanaged list holding `elements`.
    public convenience init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        unmanaged = Array(elements)
    }

    init(managed object: ObjectBase, index: Int) {
        unmanaged = []
        location = CollectionLocation(object, index)
    }

    /// The realm managing the list, nil when unmanaged.
    public var realm: Realm? { location?.realm }
    /// Whether the owning object was deleted, or the realm invalidated since it was read.
    public var isInvalidated: Bool { location?.isInvalidated ?? false }
    public var isFrozen: Bool { location?.realm.isFrozen ?? false }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int { location?.size() ?? unmanaged.count }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        get {
            guard let location else { return unmanaged[position] }
            return Element._orDecode(location.get(position), location.realm)
        }
        set { replace(index: position, object: newValue) }
    }

    /// Iterates the elements the list holds when the loop begins: changing the list, or
    /// deleting its objects, in the loop's body skips and repeats nothing (`RLMIterator`).
    public func makeIterator() -> RLMIterator<Element> {
        guard let location else { return RLMIterator(values: unmanaged) }
        return location.snapshotIterator(of: Element.self) {
            (0..<location.size()).map { Element._orDecode(location.get($0), location.realm) }
        }
    }

    public var first: Element? { isEmpty ? nil : self[0] }
    public var last: Element? { let n = count; return n == 0 ? nil : self[n - 1] }

    public func index(of element: Element) -> Int? {
        guard let location else { return unmanaged.firstIndex(of: element) }
        var found = 0
        let context = _ORWriteContext(realm: location.realm, policy: .error, arena: ByteArena())
        if let object = element as? ObjectBase, object._realm == nil { return nil }
        if Element._orIsEmbedded { return indices.first { self[$0] == element } }
        guard var value = try? element._orEncode(context) else { return nil }
        return orc_coll_find(location.txn, location.table, location.key, location.column, &value, &found) == ORC_OK ? found : nil
    }

    public func contains(_ element: Element) -> Bool { index(of: element) != nil }

    // MARK: Mutation

    /// Appends an element (an unmanaged object is added to the realm).
    public func append(_ element: Element) { insert(element, at: count) }

    /// Appends every element of a sequence.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        guard location != nil else { unmanaged.append(contentsOf: elements); return }
        for element in elements { append(element) }
    }

    public func insert(_ element: Element, at index: Int) {
        guard let location else { unmanaged.insert(element, at: index); return }
        location.write("insert into") { context, txn in
            guard index >= 0 && index <= location.size() else {
                throw RealmError(.invalidArgument, "Index \(index) is out of bounds (must be at most \(location.size())) in '\(location.name)'.")
            }
            try store(element, at: index, replacing: false, in: location, context, txn)
        }
    }

    public func remove(at index: Int) {
        guard let location else { unmanaged.remove(at: index); return }
        location.write("remove from") { _, txn in
            try location.check(orc_list_erase(txn, location.table, location.key, location.column, index), "Removing from")
        }
    }

    public func removeFirst() { precondition(!isEmpty, "Cannot remove the first element of an empty list."); remove(at: 0) }
    public func removeLast() { precondition(!isEmpty, "Cannot remove the last element of an empty list."); remove(at: count - 1) }

    public func removeAll() {
        guard let location else { unmanaged.removeAll(); return }
        location.write("clear") { _, txn in
            try location.check(orc_coll_clear(txn, location.table, location.key, location.column), "Clearing")
        }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        guard let location else { unmanaged[index] = object; return }
        location.write("replace in") { context, txn in
            try store(object, at: index, replacing: true, in: location, context, txn)
        }
    }

    /// Writes `element` at `index` of the managed list, in place of the element there
    /// when `replacing`: an embedded element as a new embedded object filled from a copy
    /// of it (taken first: erasing the replaced element may delete the element itself),
    /// any other as its encoded value.
    private func store(_ element: Element, at index: Int, replacing: Bool, in location: CollectionLocation,
                       _ context: _ORWriteContext, _ txn: OpaquePointer) throws {
        let what = replacing ? "Replacing in" : "Inserting into"
        if Element._orIsEmbedded {
            let source = AnyValueConversion.embeddedObject(element)!._detachedCopy()
            if replacing { try location.check(orc_list_erase(txn, location.table, location.key, location.column, index), what) }
            var child: UInt64 = 0
            try location.check(orc_obj_create_embedded(txn, location.table, location.key, location.column, index, nil, &child), what)
            try location.realm._fillEmbedded(source, key: child, policy: .error)
            return
        }
        var value = try element._orEncode(context)
        if replacing {
            try location.check(orc_list_set(txn, location.table, location.key, location.column, index, &value), what)
        } else {
            try location.check(orc_list_insert(txn, location.table, location.key, location.column, index, &value), what)
        }
    }

    /// Moves the element at `from` so that it ends at `to`.
    public func move(from: Int, to: Int) {
        guard let location else { let e = unmanaged.remove(at: from); unmanaged.insert(e, at: to); return }
        location.write("move in") { _, txn in
            try location.check(orc_list_move(txn, location.table, location.key, location.column, from, to), "Moving in")
        }
    }

    public func swapAt(_ index1: Int, _ index2: Int) {
        guard location != nil else { unmanaged.swapAt(index1, index2); return }
        guard index1 != index2 else { return }
        let (low, high) = (Swift.min(index1, index2), Swift.max(index1, index2))
        move(from: low, to: high)
        move(from: high - 1, to: low)
    }

    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        guard location != nil else { unmanaged.replaceSubrange(subrange, with: newElements); return }
        for _ in subrange { remove(at: subrange.lowerBound) }
        for (offset, element) in newElements.enumerated() { insert(element, at: subrange.lowerBound + offset) }
    }

    /// The elements, described as the Realm Swift SDK does (`DescriptionWithMaxDepth`).
    public var description: String { _description(maxDepth: DescriptionWithMaxDepth.maxDepth) }

    /// The elements as an array (a snapshot).
    var elements: [Element] { location == nil ? unmanaged : map { $0 } }
}

extension List: _Persistable {
    public static var _orDescriptor: _ORPropertyDescriptor {
        var descriptor = Element._orDescriptor
        descriptor.collection = ORC_COLL_LIST
        return descriptor
    }
    public static func _orDefault() -> List<Element> { List() }
    public static func _orGet(_ object: ObjectBase, _ index: Int) -> List<Element> {
        object._managedCollection(index) { List(managed: object, index: index) }
    }
    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: List<Element>) {
        value._orAssignAsProperty(of: object, index: index)
    }
    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> List<Element> {
        recorder.append(object, index)
        return List()
    }
    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> List<Element> {
        if let list = value as? List<Element> { return List(list.elements) }
        return List(try AnyValueConversion.elements(of: value, as: Element.self, for: "List<\(Element.self)>", context))
    }
    public func _orToAny() -> Any? { self }
}

extension List: CollectionAssignable {
    func _orAssign(to object: ObjectBase, index: Int, context: _ORWriteContext) throws {
        // Embedded elements are copied before the clear, which may delete them (`list = list`).
        let source = elements
        let detached = Element._orIsEmbedded ? source.map { AnyValueConversion.embeddedObject($0)!._detachedCopy() } : []
        let target = List(managed: object, index: index)
        let location = target.location!
        if Element._orIsEmbedded && context.policy == .modified {
            try Self.updateEmbeddedInPlace(location, detached, context)
            return
        }
        try location.check(orc_coll_clear(location.realm.writeTxn!, location.table, location.key, location.column), "Clearing")
        for (i, element) in source.enumerated() {
            let txn = location.realm.writeTxn!
            if Element._orIsEmbedded {
                var child: UInt64 = 0
                try location.check(orc_obj_create_embedded(txn, location.table, location.key, location.column, i, nil, &child), "Inserting into")
                try location.realm._fillEmbedded(detached[i], key: child, policy: context.policy)
            } else {
                var value = try element._orEncode(context)
                try location.check(orc_list_insert(txn, location.table, location.key, location.column, i, &value), "Inserting into")
            }
        }
    }
}

extension List {
    /// `add(_:update: .modified)` of a list of embedded objects, as the Realm Swift SDK
    /// does it: the existing elements are updated in place position by position (their
    /// accessors stay valid), elements past the old count are added and those past the
    /// new count removed.
    fileprivate static func updateEmbeddedInPlace(_ location: CollectionLocation, _ source: [ObjectBase], _ context: _ORWriteContext) throws {
        let existing = location.linkKeys()
        let txn = location.realm.writeTxn!
        for (i, element) in source.enumerated() {
            if i < existing.count {
                try location.realm._fillEmbedded(element, key: existing[i], policy: .modified)
            } else {
                var child: UInt64 = 0
                try location.check(orc_obj_create_embedded(txn, location.table, location.key, location.column, i, nil, &child), "Inserting into")
                try location.realm._fillEmbedded(element, key: child, policy: .modified)
            }
        }
        for i in stride(from: existing.count - 1, through: source.count, by: -1) {
            try location.check(orc_list_erase(txn, location.table, location.key, location.column, i), "Removing from")
        }
    }
}

extension List: EmbeddedCollection {
    func _orDetachedElements() -> Any? {
        guard Element._orIsEmbedded, location != nil else { return nil }
        return map { AnyValueConversion.embeddedObject($0)!._detachedCopy() }
    }
}

extension List: _ManagedCollection {
    func _adopt(_ object: ObjectBase, _ index: Int) {
        location = CollectionLocation(object, index)
        unmanaged = []
    }
}
