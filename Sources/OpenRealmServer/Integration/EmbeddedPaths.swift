import ORCore
import OpenRealmWire

/// Resolves the wire's object paths (`docs/PROTOCOL.md` §3.4) to stored objects: a
/// top-level object by class and primary key, then, for an embedded object, one step
/// per property (a single link) or property and index or key (a list or dictionary of
/// embedded objects).
enum EmbeddedPaths {
    /// The top-level class `name` of the synced schema.
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` for an unknown or reserved class, or an
    ///   embedded class (embedded objects are reached by paths from their owner).
    static func topLevelClass(_ txn: StoreTransaction, _ name: String) throws -> StoreTransaction.ClassInfo {
        guard !name.hasPrefix(AppStore.reservedPrefix), let cls = try txn.findClass(name) else {
            throw SyncFailure(.badChangeset, "unknown class '\(name)'")
        }
        guard cls.kind != ORC_CLASS_EMBEDDED else {
            throw SyncFailure(.badChangeset, "class '\(name)' is embedded: its objects are reached by a path from their top-level owner")
        }
        return cls
    }

    /// The class and key of the object `path` names. The key is nil when the object
    /// does not exist: its owner was erased, a single link on the way is null, or a list
    /// position or dictionary key on the way is gone (then the class is the last one
    /// reached).
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` naming the step for a path that does
    ///   not fit the schema (an unknown property, a property that does not link to an
    ///   embedded class, a collection without its index or key, a step of the wrong kind).
    static func resolve(_ txn: StoreTransaction, _ path: WireObjectPath) throws -> (StoreTransaction.ClassInfo, UInt64?) {
        var cls = try topLevelClass(txn, path.root.className)
        guard var key = try txn.findObject(cls.table, path.root.primaryKey) else { return (cls, nil) }
        let steps = path.path
        var i = 0
        while i < steps.count {
            guard case .property(let name) = steps[i] else {
                throw SyncFailure(.badChangeset, "path \(path): step \(i) must name a property")
            }
            guard let prop = try txn.findProperty(cls.table, name) else {
                throw SyncFailure(.badChangeset, "path \(path): class '\(cls.name)' has no property '\(name)'")
            }
            guard try txn.linksToEmbedded(prop) else {
                throw SyncFailure(.badChangeset, "path \(path): property '\(cls.name).\(name)' does not link to an embedded class")
            }
            let childClass = try txn.classInfo(table: prop.linkTable)
            let target: (table: UInt32, key: UInt64)?
            switch prop.collection {
            case ORC_COLL_NONE:
                target = try txn.linkTarget(cls.table, key, prop.column)
                i += 1
            case ORC_COLL_LIST:
                guard i + 1 < steps.count, case .index(let index) = steps[i + 1] else {
                    throw SyncFailure(.badChangeset, "path \(path): list '\(cls.name).\(name)' must be followed by an index")
                }
                let size = try txn.collectionSize(cls.table, key, prop.column)
                target = index < UInt64(size) ? try txn.collectionLink(cls.table, key, prop.column, Int(index)) : nil
                i += 2
            case ORC_COLL_DICT:
                guard i + 1 < steps.count, case .key(let dkey) = steps[i + 1] else {
                    throw SyncFailure(.badChangeset, "path \(path): dictionary '\(cls.name).\(name)' must be followed by a key")
                }
                target = try txn.dictionaryLink(cls.table, key, prop.column, dkey)
                i += 2
            default:
                throw SyncFailure(.badChangeset, "path \(path): property '\(cls.name).\(name)' is a set; sets cannot hold embedded objects")
            }
            cls = childClass
            guard let target else { return (cls, nil) }
            key = target.key
        }
        return (cls, key)
    }

    /// The steps of an embedded object's path as text (`.lines[2].address`), the prefix
    /// of its properties' names in the owner's clocks; empty for a top-level object.
    static func clockPrefix(_ path: WireObjectPath) -> String {
        path.path.map(\.description).joined()
    }
}
