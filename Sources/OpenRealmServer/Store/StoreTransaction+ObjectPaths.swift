import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Wire object paths resolved in the embedded store, through the walk client and server
/// share (``ObjectPathWalk``), over the unit's schema.
extension StoreTransaction {
    /// The class and key of the object `path` names, its root class being `root` (which
    /// the caller found in `schema`); the key is nil when the object does not exist.
    ///
    /// - Throws: ``ObjectPathMisfit`` for a path that does not fit the schema; the
    ///   store's errors.
    func resolve(_ path: WireObjectPath, from root: StoredClass, in schema: SyncSchema) throws -> (StoredClass, UInt64?) {
        let found = try ObjectPathWalk.resolve(path, in: StoreObjectPaths(txn: self, schema: schema, root: root))
        // The root is given, so the walk always finds a class.
        guard let found else { return (root, nil) }
        return (found.cls, found.key)
    }
}

/// The store as the shared walk reads it.
private struct StoreObjectPaths: ObjectPathStore {
    let txn: StoreTransaction
    let schema: SyncSchema
    let root: StoredClass

    func name(of cls: StoredClass) -> String { cls.name }

    func topLevelClass(_ name: String) -> StoredClass? { name == root.name ? root : schema.topLevelClass(named: name) }

    func object(_ cls: StoredClass, primaryKey: WirePrimaryKey) throws -> UInt64? {
        try txn.findObject(cls, primaryKey)
    }

    func property(_ cls: StoredClass, named name: String) -> StoredProperty? { cls.column(named: name) }

    func embeddedTarget(_ prop: StoredProperty) -> StoredClass? { schema.embeddedTarget(of: prop) }

    func collection(of prop: StoredProperty) -> orc_collection { orc_collection(rawValue: UInt32(prop.collection.rawValue)) }

    func link(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty) throws -> UInt64? {
        try txn.linkTarget(cls.slot.table, key, prop.slot.column)?.key
    }

    func listElement(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ index: UInt64) throws -> UInt64? {
        index < UInt64(try txn.collectionSize(cls.slot.table, key, prop.slot.column))
            ? try txn.collectionLink(cls.slot.table, key, prop.slot.column, Int(index))?.key : nil
    }

    func dictionaryElement(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ dictionaryKey: String) throws -> UInt64? {
        try txn.dictionaryLink(cls.slot.table, key, prop.slot.column, dictionaryKey)?.key
    }
}
