import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Object and collection operations, by table id and object key, with wire values.
extension StoreTransaction {
    /// The key of the object with primary key `pk`, or nil when there is none.
    func findObject(_ table: UInt32, _ pk: WirePrimaryKey) throws -> UInt64? {
        // Only a string key is copied: any other needs no scratch memory.
        guard case .string = pk else { return try findObject(table, pk, in: scratch) }
        // Its own scratch: callers may hold values in the shared one.
        let local = ValueScratch()
        return try withExtendedLifetime(local) { try findObject(table, pk, in: local) }
    }

    private func findObject(_ table: UInt32, _ pk: WirePrimaryKey, in scratch: ValueScratch) throws -> UInt64? {
        guard var value = try orcValue(pk.value, in: scratch) else { return nil }
        var key: UInt64 = 0
        let status = orc_obj_find(handle, table, &value, &key)
        if status == ORC_ERR_NOT_FOUND { return nil }
        try StoreError.check(status, "find object \(pk)")
        return key
    }

    /// Creates an object from (column, value) pairs (the primary key among them).
    func createObject(_ table: UInt32, _ values: [(UInt16, orc_value)]) throws -> UInt64 {
        var key: UInt64 = 0
        let cols = values.map(\.0)
        let vals = values.map(\.1)
        try StoreError.check(orc_obj_create(handle, table, cols, vals, values.count, &key), "create object")
        return key
    }

    /// One property's value.
    func get(_ table: UInt32, _ key: UInt64, _ col: UInt16) throws -> WireValue {
        var out = orc_value()
        try StoreError.check(orc_obj_get(handle, table, key, col, &out), "read column \(col)")
        return try wireValue(out)
    }

    /// Sets one property from an ORCore value.
    func set(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ value: orc_value) throws {
        var v = value
        try StoreError.check(orc_obj_set(handle, table, key, col, &v), "set column \(col)")
    }

    /// Sets several properties from ORCore values with one row rewrite.
    func set(_ table: UInt32, _ key: UInt64, _ values: [(UInt16, orc_value)]) throws {
        let cols = values.map(\.0)
        let vals = values.map(\.1)
        try StoreError.check(orc_obj_set_many(handle, table, key, cols, vals, values.count), "set columns \(cols)")
    }

    /// Adds to an int property.
    func addInteger(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ delta: Int64) throws {
        try StoreError.check(orc_obj_add_int(handle, table, key, col, delta), "add to column \(col)")
    }

    /// Erases an object.
    func erase(_ table: UInt32, _ key: UInt64) throws {
        unitCache.objectErased()
        try StoreError.check(orc_obj_erase(handle, table, key), "erase object")
    }

    /// The number of objects of a table.
    func count(_ table: UInt32) throws -> UInt64 {
        var count: UInt64 = 0
        try StoreError.check(orc_table_count(handle, table, &count), "count objects")
        return count
    }

    /// Every object key of a table.
    func keys(_ table: UInt32) throws -> [UInt64] {
        var keys = orc_keys()
        defer { orc_keys_free(&keys) }
        try StoreError.check(orc_table_keys(handle, table, &keys), "list objects")
        return Array(UnsafeBufferPointer(start: keys.keys, count: keys.count))
    }

    // MARK: Collections

    /// The number of elements of a collection property.
    func collectionSize(_ table: UInt32, _ key: UInt64, _ col: UInt16) throws -> Int {
        var size = 0
        try StoreError.check(orc_coll_size(handle, table, key, col, &size), "collection size")
        return size
    }

    /// The element at `index` (for a dictionary, the value at the index-th key).
    func collectionElement(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ index: Int) throws -> WireValue {
        var out = orc_value()
        try StoreError.check(orc_coll_get(handle, table, key, col, index, &out), "collection element \(index)")
        return try wireValue(out)
    }

    /// The dictionary key at `index`, in key order.
    func dictionaryKey(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ index: Int) throws -> String {
        var out = orc_value()
        try StoreError.check(orc_dict_key_at(handle, table, key, col, index, &out), "dictionary key \(index)")
        guard case .string(let s) = try wireValue(out) else { throw StoreError(status: 0, "dictionary key is not a string") }
        return s
    }

    func listInsert(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ index: Int, _ value: orc_value) throws {
        var v = value
        try StoreError.check(orc_list_insert(handle, table, key, col, index, &v), "list insert at \(index)")
    }

    func listSet(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ index: Int, _ value: orc_value) throws {
        var v = value
        try StoreError.check(orc_list_set(handle, table, key, col, index, &v), "list set at \(index)")
    }

    func listErase(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ index: Int) throws {
        try StoreError.check(orc_list_erase(handle, table, key, col, index), "list erase at \(index)")
    }

    func listMove(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ from: Int, _ to: Int) throws {
        try StoreError.check(orc_list_move(handle, table, key, col, from, to), "list move \(from) to \(to)")
    }

    func clearCollection(_ table: UInt32, _ key: UInt64, _ col: UInt16) throws {
        try StoreError.check(orc_coll_clear(handle, table, key, col), "clear collection")
    }

    func setInsert(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ value: orc_value) throws {
        var v = value
        try StoreError.check(orc_set_insert(handle, table, key, col, &v, nil), "set insert")
    }

    func setErase(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ value: orc_value) throws {
        var v = value
        try StoreError.check(orc_set_erase(handle, table, key, col, &v, nil), "set erase")
    }

    func dictionarySet(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ dkey: String, _ value: orc_value) throws {
        var v = value
        let (p, n) = scratch.copy(dkey)
        try StoreError.check(orc_dict_set(handle, table, key, col, p, n, &v), "dictionary set '\(dkey)'")
    }

    func dictionaryErase(_ table: UInt32, _ key: UInt64, _ col: UInt16, _ dkey: String) throws {
        let (p, n) = scratch.copy(dkey)
        try StoreError.check(orc_dict_erase(handle, table, key, col, p, n, nil), "dictionary erase '\(dkey)'")
    }

    // MARK: Queries

    /// The keys of the objects of `table` matching an ORCore query program, optionally
    /// only among `domain`.
    func run(program: [UInt8], table: UInt32, domain: [UInt64]? = nil) throws -> [UInt64] {
        var query: OpaquePointer?
        try StoreError.check(orc_query_compile(handle, table, program, program.count, &query), "compile query")
        defer { orc_query_free(query) }
        if let domain {
            try StoreError.check(orc_query_set_domain(query, domain, domain.count), "restrict query")
        }
        var keys = orc_keys()
        defer { orc_keys_free(&keys) }
        try StoreError.check(orc_query_run(handle, query, &keys), "run query")
        return Array(UnsafeBufferPointer(start: keys.keys, count: keys.count))
    }
}
