import ORCore
import OpenRealmWire

/// A stored object as the instructions that recreate it on a client: `createObject`
/// with its single values, then its collections' elements and its embedded objects
/// (`createEmbeddedObject` at their place, then their own contents, recursively). Used
/// for bootstraps and for objects that enter a client's view.
enum ObjectSnapshot {
    /// The instructions for object `key` of `cls`.
    ///
    /// - Parameter clearingEveryCollection: whether to clear every collection property
    ///   first, even empty ones, and to null empty embedded links (for a client whose
    ///   copy may differ, such as one whose write is reverted); otherwise only non-empty
    ///   collections are cleared.
    static func instructions(_ txn: StoreTransaction, _ cls: StoreTransaction.ClassInfo, key: UInt64,
                             clearingEveryCollection: Bool = false) throws -> [WireInstruction] {
        let ref = try txn.objectRef(table: cls.table, key: key)
        let (values, rest) = try contents(txn, table: cls.table, key: key, path: WireObjectPath(ref),
                                          clearing: clearingEveryCollection)
        return [.createObject(className: ref.className, primaryKey: ref.primaryKey, values: values)] + rest
    }

    /// The single values of object `key` of `table` (for its create instruction), and
    /// the instructions that fill its collections and embedded objects, addressed by
    /// `path`.
    private static func contents(_ txn: StoreTransaction, table: UInt32, key: UInt64, path: WireObjectPath,
                                 clearing: Bool) throws -> ([WirePropertyValue], [WireInstruction]) {
        var values: [WirePropertyValue] = []
        var rest: [WireInstruction] = []
        // Columns named `__…` are the server's own (the hidden partition and clock columns).
        for prop in try txn.properties(of: table) where !prop.isPrimaryKey && !prop.name.hasPrefix(AppStore.reservedPrefix) {
            let embedded = try txn.linksToEmbedded(prop)
            let size = prop.collection == ORC_COLL_NONE ? 0 : try txn.collectionSize(table, key, prop.column)
            // A client that already holds the object gets its collections replaced, not appended to.
            if prop.collection != ORC_COLL_NONE && (clearing || size > 0) {
                rest.append(.clearCollection(object: path, property: prop.name))
            }
            switch prop.collection {
            case ORC_COLL_NONE where embedded:
                if let child = try txn.linkTarget(table, key, prop.column) {
                    rest += try embeddedObject(txn, child, parent: path, property: prop.name, position: .single)
                } else if clearing {
                    rest.append(.set(object: path, property: prop.name, value: .null))
                }
            case ORC_COLL_NONE:
                values.append(WirePropertyValue(prop.name, try txn.get(table, key, prop.column)))
            case ORC_COLL_LIST:
                for i in 0..<size {
                    if embedded, let child = try txn.collectionLink(table, key, prop.column, i) {
                        rest += try embeddedObject(txn, child, parent: path, property: prop.name, position: .listIndex(UInt64(i)))
                    } else {
                        rest.append(.listInsert(object: path, property: prop.name, index: UInt64(i),
                                                value: try txn.collectionElement(table, key, prop.column, i)))
                    }
                }
            case ORC_COLL_SET:
                for i in 0..<size {
                    rest.append(.setInsert(object: path, property: prop.name,
                                           value: try txn.collectionElement(table, key, prop.column, i)))
                }
            default:
                for i in 0..<size {
                    let dkey = try txn.dictionaryKey(table, key, prop.column, i)
                    if embedded, let child = try txn.collectionLink(table, key, prop.column, i) {
                        rest += try embeddedObject(txn, child, parent: path, property: prop.name, position: .dictionaryKey(dkey))
                    } else {
                        rest.append(.dictionarySet(object: path, property: prop.name, key: dkey,
                                                   value: embedded ? .null : try txn.collectionElement(table, key, prop.column, i)))
                    }
                }
            }
        }
        return (values, rest)
    }

    /// The instructions that create the embedded object `child` at `position` of
    /// `parent`'s `property`, with its contents.
    private static func embeddedObject(_ txn: StoreTransaction, _ child: (table: UInt32, key: UInt64), parent: WireObjectPath,
                                       property: String, position: WireEmbeddedPosition) throws -> [WireInstruction] {
        var steps = parent.path + [WirePathElement.property(property)]
        switch position {
        case .single: break
        case .listIndex(let i): steps.append(.index(i))
        case .dictionaryKey(let k): steps.append(.key(k))
        }
        let (values, rest) = try contents(txn, table: child.table, key: child.key,
                                          path: WireObjectPath(parent.root, path: steps), clearing: false)
        return [.createEmbeddedObject(object: parent, property: property, position: position, values: values)] + rest
    }
}
