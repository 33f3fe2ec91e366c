import Foundation
import ORCore

/// The objects that link to an object through a given property: an inverse
/// relationship, computed from the links, never stored.
///
/// ```swift
/// class Task: Object {
///     @Persisted(originProperty: "tasks") var teams: LinkingObjects<Team>
/// }
/// ```
public final class LinkingObjects<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The property of `Element` that links here.
    public let propertyName: String
    let owner: ObjectBase?
    private var cachedKeys: [UInt64]?
    private var cachedStamp: (UInt64, UInt64) = (.max, .max)

    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        owner = nil
    }

    init(owner: ObjectBase, propertyName: String) {
        self.propertyName = propertyName
        self.owner = owner
    }

    public var realm: Realm? { owner?._realm }
    /// Whether the owning object was deleted, or the realm invalidated since it was read.
    public var isInvalidated: Bool { owner?.isInvalidated ?? false }

    /// The origin table and column in the owner's realm.
    func origin() -> (table: UInt32, column: UInt16)? {
        guard let realm = owner?._realm else { return nil }
        guard let bound = realm._bindOrNil(Element.self) else { return nil }
        guard let index = bound.info.index(ofProperty: propertyName), bound.columns[index] != BoundClass.noColumn else {
            preconditionFailure("Class '\(bound.className)' has no property '\(propertyName)' for LinkingObjects to follow.")
        }
        return (bound.table, bound.columns[index])
    }

    /// The keys of the linking objects, in key order, recomputed when the realm changed.
    var keys: [UInt64] {
        guard let owner, let realm = owner._realm, let bound = owner._bound else { return [] }
        owner._requireNotStale()
        let txn = realm.txn
        let stamp = (orc_txn_version(txn), orc_txn_generation(txn))
        if let cachedKeys, cachedStamp == stamp { return cachedKeys }
        guard let (table, column) = origin() else { return [] }
        var keys = orc_keys()
        defer { orc_keys_free(&keys) }
        let status = orc_obj_backlinks(txn, bound.table, owner._key, table, column, &keys)
        let result = status == ORC_OK ? Array(UnsafeBufferPointer(start: keys.keys, count: keys.count)) : []
        cachedKeys = result
        cachedStamp = stamp
        return result
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public var count: Int { keys.count }

    public subscript(position: Int) -> Element {
        let keys = self.keys
        precondition(position >= 0 && position < keys.count, "Index \(position) is out of bounds (must be less than \(keys.count)).")
        let realm = owner!._realm!
        let bound = realm._bindOrNil(Element.self)!
        return realm._accessor(bound, keys[position]) as! Element
    }

    /// Iterates the objects that link here when the loop begins: deleting them in the
    /// loop's body skips none (`RLMIterator`).
    public func makeIterator() -> RLMIterator<Element> {
        guard let owner, let realm = owner._realm else { return RLMIterator(values: []) }
        return RLMIterator(realm: realm, keys: keys, epoch: owner._epoch)
    }

    public func index(of object: Element) -> Int? {
        guard object._realm != nil else { return nil }
        return keys.firstIndex(of: object._key)
    }

    /// The elements, described as the Realm Swift SDK does (`DescriptionWithMaxDepth`).
    public var description: String { _description(maxDepth: DescriptionWithMaxDepth.maxDepth) }
}

/// Lets `@Persisted(originProperty:)` build a `LinkingObjects` declaration.
public protocol _LinkingObjectsProtocol {
    init(_originProperty: String)
    var _originPropertyName: String { get }
}

extension LinkingObjects: _LinkingObjectsProtocol {
    public convenience init(_originProperty: String) {
        self.init(fromType: Element.self, property: _originProperty)
    }
    public var _originPropertyName: String { propertyName }
}

extension LinkingObjects: _Persistable {
    public static var _orDescriptor: _ORPropertyDescriptor {
        var descriptor = _ORPropertyDescriptor(ORC_TYPE_LINK)
        descriptor.target = Element.self
        descriptor.isLinkingObjects = true
        return descriptor
    }
    public static func _orDefault() -> LinkingObjects<Element> { LinkingObjects(fromType: Element.self, property: "") }
    public static func _orGet(_ object: ObjectBase, _ index: Int) -> LinkingObjects<Element> {
        let name = object._typeInfo.properties[index].originProperty ?? ""
        return LinkingObjects(owner: object, propertyName: name)
    }
    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: LinkingObjects<Element>) {
        preconditionFailure("LinkingObjects properties are computed from links and cannot be set.")
    }
    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> LinkingObjects<Element> {
        recorder.append(object, index)
        return LinkingObjects(fromType: Element.self, property: object._typeInfo.properties[index].originProperty ?? "")
    }
    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> LinkingObjects<Element> {
        throw RealmError(.invalidValue, "LinkingObjects properties cannot be set.")
    }
    public func _orToAny() -> Any? { self }
}
