import ORCore
import OpenRealmWire

/// What walking a wire object path needs from a store: the client's realm file and the
/// server's store each answer these from their own transaction.
public protocol ObjectPathStore {
    /// A class as the store describes it.
    associatedtype ClassRef
    /// A property as the store describes it.
    associatedtype PropertyRef

    /// The name of `cls`, for messages.
    func name(of cls: ClassRef) -> String
    /// The top-level class `name`; nil when the store has no such class.
    func topLevelClass(_ name: String) throws -> ClassRef?
    /// The key of the object of `cls` with `primaryKey`; nil when there is none.
    func object(_ cls: ClassRef, primaryKey: WirePrimaryKey) throws -> UInt64?
    /// The property `name` of `cls`; nil when there is none.
    func property(_ cls: ClassRef, named name: String) throws -> PropertyRef?
    /// The embedded class `prop` links to; nil when it does not link to an embedded class.
    func embeddedTarget(_ prop: PropertyRef) throws -> ClassRef?
    /// Whether `prop` is a single value, a list, a set or a dictionary.
    func collection(of prop: PropertyRef) -> orc_collection
    /// The object the single link `prop` of object `key` points to; nil when null.
    func link(_ cls: ClassRef, _ key: UInt64, _ prop: PropertyRef) throws -> UInt64?
    /// The object at `index` of the list `prop`; nil when the list is shorter.
    func listElement(_ cls: ClassRef, _ key: UInt64, _ prop: PropertyRef, _ index: UInt64) throws -> UInt64?
    /// The object at `dictionaryKey` of the dictionary `prop`; nil when the key is absent.
    func dictionaryElement(_ cls: ClassRef, _ key: UInt64, _ prop: PropertyRef, _ dictionaryKey: String) throws -> UInt64?
}

/// A path that does not fit the schema (`docs/PROTOCOL.md` §3.4), named step by step.
public struct ObjectPathMisfit: Error, Sendable, CustomStringConvertible {
    public let description: String

    /// A misfit worded `description` (a store that walks paths itself words it as the walk does).
    public init(description: String) {
        self.description = description
    }
}

/// Wire object paths (`docs/PROTOCOL.md` §3.4) resolved against a store: a top-level
/// object by class and primary key, then one step per single link to an embedded object,
/// or per list index or dictionary key of a collection of them. The client applies
/// downloads through it and the server uploads, each over its own ``ObjectPathStore``.
public enum ObjectPathWalk {
    /// The class and key of the object `path` names. The class is nil when the store
    /// has no top-level class of that name; the key is nil when the object does not
    /// exist — the owner is not there, a single link on the way is null, a list position
    /// or dictionary key on the way is gone (the class is then the last one reached).
    ///
    /// - Throws: ``ObjectPathMisfit`` naming the step of a path that does not fit the
    ///   schema (an unknown property, a property that does not link to an embedded class,
    ///   a collection without its index or key, a step of the wrong kind); what the
    ///   store throws.
    public static func resolve<Store: ObjectPathStore>(_ path: WireObjectPath, in store: Store) throws
        -> (cls: Store.ClassRef, key: UInt64?)? {
        guard var cls = try store.topLevelClass(path.root.className) else { return nil }
        guard var key = try store.object(cls, primaryKey: path.root.primaryKey) else { return (cls, nil) }
        let steps = path.path
        var i = 0
        while i < steps.count {
            guard case .property(let name) = steps[i] else {
                throw ObjectPathMisfit(description: "path \(path): step \(i) must name a property")
            }
            let className = store.name(of: cls)
            guard let prop = try store.property(cls, named: name) else {
                throw ObjectPathMisfit(description: "path \(path): class '\(className)' has no property '\(name)'")
            }
            guard let child = try store.embeddedTarget(prop) else {
                throw ObjectPathMisfit(description: "path \(path): property '\(className).\(name)' does not link to an embedded class")
            }
            let target: UInt64?
            switch store.collection(of: prop) {
            case ORC_COLL_NONE:
                target = try store.link(cls, key, prop)
                i += 1
            case ORC_COLL_LIST:
                guard i + 1 < steps.count, case .index(let index) = steps[i + 1] else {
                    throw ObjectPathMisfit(description: "path \(path): list '\(className).\(name)' must be followed by an index")
                }
                target = try store.listElement(cls, key, prop, index)
                i += 2
            case ORC_COLL_DICT:
                guard i + 1 < steps.count, case .key(let dictionaryKey) = steps[i + 1] else {
                    throw ObjectPathMisfit(description: "path \(path): dictionary '\(className).\(name)' must be followed by a key")
                }
                target = try store.dictionaryElement(cls, key, prop, dictionaryKey)
                i += 2
            default:
                throw ObjectPathMisfit(description: "path \(path): property '\(className).\(name)' is a set; sets cannot hold embedded objects")
            }
            cls = child
            guard let target else { return (cls, nil) }
            key = target
        }
        return (cls, key)
    }
}
