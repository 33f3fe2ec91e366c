import ORCore
import OpenRealmWire

/// A stored object as the instructions that recreate it on a client: `createObject`
/// with its single values, then its collections' elements. Used for bootstraps and for
/// objects that enter a client's view.
enum ObjectSnapshot {
    /// The instructions for object `key` of `cls`.
    ///
    /// - Parameter clearingEveryCollection: whether to clear every collection property
    ///   first, even empty ones (for a client whose copy may differ, such as one whose
    ///   write is reverted); otherwise only non-empty collections are cleared.
    static func instructions(_ txn: StoreTransaction, _ cls: StoreTransaction.ClassInfo, key: UInt64,
                             clearingEveryCollection: Bool = false) throws -> [WireInstruction] {
        let ref = try txn.objectRef(table: cls.table, key: key)
        let path = WireObjectPath(ref)
        var values: [WirePropertyValue] = []
        var collections: [WireInstruction] = []
        var collectionNames: [String] = []
        for prop in try txn.properties(of: cls.table) where !prop.isPrimaryKey {
            if prop.collection != ORC_COLL_NONE { collectionNames.append(prop.name) }
            switch prop.collection {
            case ORC_COLL_NONE:
                let value = try txn.get(cls.table, key, prop.column)
                // Links to embedded objects do not travel as values (not synced yet).
                if prop.type == ORC_TYPE_LINK, try txn.classInfo(table: prop.linkTable).kind == ORC_CLASS_EMBEDDED { continue }
                values.append(WirePropertyValue(prop.name, value))
            case ORC_COLL_LIST:
                for i in 0..<(try txn.collectionSize(cls.table, key, prop.column)) {
                    collections.append(.listInsert(object: path, property: prop.name, index: UInt64(i),
                                                   value: try txn.collectionElement(cls.table, key, prop.column, i)))
                }
            case ORC_COLL_SET:
                for i in 0..<(try txn.collectionSize(cls.table, key, prop.column)) {
                    collections.append(.setInsert(object: path, property: prop.name,
                                                  value: try txn.collectionElement(cls.table, key, prop.column, i)))
                }
            default:
                for i in 0..<(try txn.collectionSize(cls.table, key, prop.column)) {
                    collections.append(.dictionarySet(object: path, property: prop.name,
                                                      key: try txn.dictionaryKey(cls.table, key, prop.column, i),
                                                      value: try txn.collectionElement(cls.table, key, prop.column, i)))
                }
            }
        }
        // A client that already holds the object gets its collections replaced, not appended to.
        let cleared = clearingEveryCollection ? collectionNames.sorted() : Set(collections.compactMap(Self.property)).sorted()
        let clears = cleared.map { WireInstruction.clearCollection(object: path, property: $0) }
        return [.createObject(className: ref.className, primaryKey: ref.primaryKey, values: values)] + clears + collections
    }

    private static func property(_ i: WireInstruction) -> String? {
        switch i {
        case .listInsert(_, let p, _, _), .setInsert(_, let p, _), .dictionarySet(_, let p, _, _): return p
        default: return nil
        }
    }
}
