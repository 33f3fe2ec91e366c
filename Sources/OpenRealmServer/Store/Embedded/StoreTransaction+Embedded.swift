import Foundation
import ORCore
import OpenRealmSyncCore

/// Embedded objects: they have no primary key, so links to them are read as raw
/// (table, key) pairs rather than wire references, and they are created in place.
extension StoreTransaction {
    /// The object a single link property holds, or nil when it is null.
    func linkTarget(_ table: UInt32, _ key: UInt64, _ col: UInt16) throws -> (table: UInt32, key: UInt64)? {
        var out = orc_value()
        try StoreError.check(orc_obj_get(handle, table, key, col, &out), "read link column \(col)")
        return out.type == ORC_TYPE_LINK ? (out.link.table, out.link.key) : nil
    }

    /// The object at position `index` of a list or dictionary of links (dictionaries in
    /// key order), or nil when the element is null.
    func collectionLink(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ index: Int) throws -> (table: UInt32, key: UInt64)? {
        var out = orc_value()
        try StoreError.check(orc_coll_get(handle, table, key, col, index, &out), "collection element \(index)")
        return out.type == ORC_TYPE_LINK ? (out.link.table, out.link.key) : nil
    }

    /// The object at `dkey` of a dictionary of links, or nil when the key is absent or
    /// its value is null.
    func dictionaryLink(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ dkey: String) throws -> (table: UInt32, key: UInt64)? {
        var out = orc_value()
        let local = ValueScratch()
        return try withExtendedLifetime(local) { () throws -> (table: UInt32, key: UInt64)? in
            let (p, n) = local.copy(dkey)
            let status = orc_dict_get(handle, table, key, col, p, n, &out)
            if status == ORC_ERR_NOT_FOUND { return nil }
            try StoreError.check(status, "dictionary get '\(dkey)'")
            return out.type == ORC_TYPE_LINK ? (out.link.table, out.link.key) : nil
        }
    }

    /// Creates an embedded object as the value of property `col` of (`table`, `key`): a
    /// single link (`index` and `dictionaryKey` ignored; the previous object is erased),
    /// a list (inserted at `index`) or a dictionary (at `dictionaryKey`). Returns the new
    /// object's key.
    func createEmbedded(_ table: UInt32, _ key: UInt64, _ col: UInt16, index: Int = 0,
                        dictionaryKey: String? = nil) throws -> UInt64 {
        var child: UInt64 = 0
        let local = ValueScratch()
        try withExtendedLifetime(local) {
            if let dictionaryKey {
                var k = orc_value()
                k.type = ORC_TYPE_STRING
                let (p, n) = local.copy(dictionaryKey)
                k.string.data = p
                k.string.size = n
                try StoreError.check(orc_obj_create_embedded(handle, table, key, col, index, &k, &child), "create embedded object at '\(dictionaryKey)'")
            } else {
                try StoreError.check(orc_obj_create_embedded(handle, table, key, col, index, nil, &child), "create embedded object")
            }
        }
        return child
    }
}
