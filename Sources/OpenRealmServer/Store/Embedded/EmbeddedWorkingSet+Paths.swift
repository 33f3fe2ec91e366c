import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Wire object paths resolved in the embedded store's working set, through the walk
/// client and server share (``ObjectPathWalk``), over the unit's schema: the owner is
/// found as the working set finds top-level objects (once per changeset), the steps
/// read the links of the transaction.
extension EmbeddedWorkingSet {
    package func resolve(_ path: WireObjectPath, from root: StoredClass) throws -> (StoredClass, Object?) {
        // A top-level object (most instructions name one): its root, which an erase needs.
        if path.path.isEmpty { return (root, try self.root(path.root, root)) }
        let found = try ObjectPathWalk.resolve(path, in: StoreObjectPaths(objects: self, txn: txn, schema: try txn.schema(), root: root))
        // The root is given, so the walk always finds a class.
        guard let found else { return (root, nil) }
        // Past the owner, an embedded object.
        return (found.cls, found.key.map { Object(table: found.cls.slot.table, key: $0, root: -1) })
    }
}

/// The store as the shared walk reads it.
private struct StoreObjectPaths: ObjectPathStore {
    let objects: EmbeddedWorkingSet
    let txn: StoreTransaction
    let schema: SyncSchema
    let root: StoredClass

    func name(of cls: StoredClass) -> String { cls.name }

    func topLevelClass(_ name: String) -> StoredClass? { name == root.name ? root : schema.topLevelClass(named: name) }

    func object(_ cls: StoredClass, primaryKey: WirePrimaryKey) throws -> UInt64? {
        try objects.root(WireObjectRef(className: cls.name, primaryKey: primaryKey), cls)?.key
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
