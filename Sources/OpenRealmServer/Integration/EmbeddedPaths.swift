import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Resolves the wire's object paths (`docs/PROTOCOL.md` §3.4) to stored objects: a
/// top-level object by class and primary key, then, for an embedded object, one step
/// per property (a single link) or property and index or key (a list or dictionary of
/// embedded objects) — the walk is the one the client uses too (``ObjectPathWalk``).
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

    /// The class and key of the object `path` names, through the walk client and server
    /// share (``ObjectPathWalk``). The key is nil when the object does not exist: its
    /// owner was erased, a single link on the way is null, or a list position or
    /// dictionary key on the way is gone (then the class is the last one reached).
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` for an unknown, reserved or embedded root
    ///   class, and naming the step for a path that does not fit the schema (an unknown
    ///   property, a property that does not link to an embedded class, a collection
    ///   without its index or key, a step of the wrong kind).
    static func resolve(_ txn: StoreTransaction, _ path: WireObjectPath) throws -> (StoreTransaction.ClassInfo, UInt64?) {
        do {
            // The store's topLevelClass throws rather than answer nil.
            let found = try ObjectPathWalk.resolve(path, in: StoreObjectPaths(txn: txn))!
            return (found.cls, found.key)
        } catch let misfit as ObjectPathMisfit {
            throw SyncFailure(.badChangeset, misfit.description)
        }
    }

    /// The steps of an embedded object's path as text (`.lines[2].address`), the prefix
    /// of its properties' names in the owner's clocks; empty for a top-level object.
    static func clockPrefix(_ path: WireObjectPath) -> String {
        path.path.map(\.description).joined()
    }
}

/// The store as the shared walk reads it.
private struct StoreObjectPaths: ObjectPathStore {
    let txn: StoreTransaction

    func name(of cls: StoreTransaction.ClassInfo) -> String { cls.name }

    func topLevelClass(_ name: String) throws -> StoreTransaction.ClassInfo? { try EmbeddedPaths.topLevelClass(txn, name) }

    func object(_ cls: StoreTransaction.ClassInfo, primaryKey: WirePrimaryKey) throws -> UInt64? {
        try txn.findObject(cls.table, primaryKey)
    }

    func property(_ cls: StoreTransaction.ClassInfo, named name: String) throws -> StoreTransaction.PropertyInfo? {
        try txn.findProperty(cls.table, name)
    }

    func embeddedTarget(_ prop: StoreTransaction.PropertyInfo) throws -> StoreTransaction.ClassInfo? {
        try txn.linksToEmbedded(prop) ? try txn.classInfo(table: prop.linkTable) : nil
    }

    func collection(of prop: StoreTransaction.PropertyInfo) -> orc_collection { prop.collection }

    func link(_ cls: StoreTransaction.ClassInfo, _ key: UInt64, _ prop: StoreTransaction.PropertyInfo) throws -> UInt64? {
        try txn.linkTarget(cls.table, key, prop.column)?.key
    }

    func listElement(_ cls: StoreTransaction.ClassInfo, _ key: UInt64, _ prop: StoreTransaction.PropertyInfo,
                     _ index: UInt64) throws -> UInt64? {
        index < UInt64(try txn.collectionSize(cls.table, key, prop.column))
            ? try txn.collectionLink(cls.table, key, prop.column, Int(index))?.key : nil
    }

    func dictionaryElement(_ cls: StoreTransaction.ClassInfo, _ key: UInt64, _ prop: StoreTransaction.PropertyInfo,
                           _ dictionaryKey: String) throws -> UInt64? {
        try txn.dictionaryLink(cls.table, key, prop.column, dictionaryKey)?.key
    }
}
