import Foundation
import ORCore
import OpenRealmWire

/// Rows of the server's own tables (`__users`, `__history`, ...) read and written by
/// property name, with wire values. These tables are small records; the synced objects
/// go through the instruction-level operations instead.
extension StoreTransaction {
    /// The table id of the server table `name`.
    func table(_ name: String) throws -> ClassInfo {
        guard let cls = try findClass(name) else { throw StoreError(status: 0, "the store has no table '\(name)'") }
        return cls
    }

    /// Inserts a row; `values` must hold the primary key.
    func insertRow(_ tableName: String, _ values: [String: WireValue]) throws {
        defer { scratch.reset() }
        let cls = try table(tableName)
        var pairs: [(UInt16, orc_value)] = []
        for (name, value) in values {
            guard let prop = try findProperty(cls.table, name) else {
                throw StoreError(status: 0, "table '\(tableName)' has no column '\(name)'")
            }
            guard let v = try orcValue(value) else { throw StoreError(status: 0, "row value '\(name)' links to nothing") }
            pairs.append((prop.column, v))
        }
        _ = try createObject(cls.table, pairs)
    }

    /// The row with primary key `pk`, by column name, or nil.
    func readRow(_ tableName: String, _ pk: WirePrimaryKey) throws -> [String: WireValue]? {
        let cls = try table(tableName)
        guard let key = try findObject(cls.table, pk) else { return nil }
        var row: [String: WireValue] = [:]
        for prop in try properties(of: cls.table) where prop.collection == ORC_COLL_NONE {
            row[prop.name] = try get(cls.table, key, prop.column)
        }
        return row
    }

    /// Every row of a table, by column name, in object key order.
    func allRows(_ tableName: String) throws -> [[String: WireValue]] {
        let cls = try table(tableName)
        let props = try properties(of: cls.table).filter { $0.collection == ORC_COLL_NONE }
        return try keys(cls.table).map { key in
            var row: [String: WireValue] = [:]
            for prop in props { row[prop.name] = try get(cls.table, key, prop.column) }
            return row
        }
    }

    /// Updates columns of the row with primary key `pk`.
    ///
    /// - Throws: ``StoreError`` when the row does not exist.
    func updateRow(_ tableName: String, _ pk: WirePrimaryKey, _ values: [String: WireValue]) throws {
        defer { scratch.reset() }
        let cls = try table(tableName)
        guard let key = try findObject(cls.table, pk) else {
            throw StoreError(status: ORC_ERR_NOT_FOUND, "no row \(pk) in '\(tableName)'")
        }
        for (name, value) in values {
            guard let prop = try findProperty(cls.table, name) else {
                throw StoreError(status: 0, "table '\(tableName)' has no column '\(name)'")
            }
            guard let v = try orcValue(value) else { throw StoreError(status: 0, "row value '\(name)' links to nothing") }
            try set(cls.table, key, prop.column, v)
        }
    }

    /// Erases the row with primary key `pk`; nothing when absent.
    func deleteRow(_ tableName: String, _ pk: WirePrimaryKey) throws {
        let cls = try table(tableName)
        if let key = try findObject(cls.table, pk) { try erase(cls.table, key) }
    }

    /// Creates the server table `name` unless it exists: a primary key `_id` of
    /// `keyType` and the given single-valued columns.
    func ensureTable(_ name: String, key keyType: orc_type, columns: [(String, orc_type, Bool)]) throws {
        if let existing = try findClass(name) {
            // A store made by an earlier version gains the columns added since.
            for (column, type, optional) in columns where try findProperty(existing.table, column) == nil {
                try addProperty(existing.table, name: column, type: type, flags: optional ? UInt32(ORC_PROP_OPTIONAL) : 0)
            }
            return
        }
        let table = try addClass(name, kind: ORC_CLASS_TOP_LEVEL)
        let pk = try addProperty(table, name: "_id", type: keyType, flags: UInt32(ORC_PROP_PRIMARY_KEY))
        _ = pk
        for (column, type, optional) in columns {
            try addProperty(table, name: column, type: type, flags: optional ? UInt32(ORC_PROP_OPTIONAL) : 0)
        }
    }
}

extension Dictionary where Key == String, Value == WireValue {
    func string(_ name: String) -> String? {
        if case .string(let s)? = self[name] { return s }
        return nil
    }

    func int(_ name: String) -> Int64? {
        if case .int(let i)? = self[name] { return i }
        return nil
    }

    func bool(_ name: String) -> Bool? {
        if case .bool(let b)? = self[name] { return b }
        return nil
    }

    func binary(_ name: String) -> [UInt8]? {
        if case .binary(let b)? = self[name] { return b }
        return nil
    }
}
