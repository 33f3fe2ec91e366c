import ORCore
import OpenRealmWire

/// The `__clocks` table of a store written before the property clocks moved into the
/// objects' rows (``HiddenColumn/clocks``): one row per object, key `Class␟pk`
/// (``PropertyClocks/key(_:)``). The integration reads an object's clocks there when its
/// row has none, and erases the rows it read once it wrote them into the rows.
struct LegacyClockTable {
    fileprivate let table: UInt32
    fileprivate let clocks: UInt16
}

extension StoreTransaction {
    /// The legacy clock table while it holds rows; nil when the store has none.
    func legacyClockTable() throws -> LegacyClockTable? {
        guard let cls = try findClass("__clocks"), try count(cls.table) > 0,
              let column = try findProperty(cls.table, "clocks")?.column else { return nil }
        return LegacyClockTable(table: cls.table, clocks: column)
    }

    /// The row of `ref` in `table` and its encoded clocks (nil when the row holds none),
    /// or nil when it has no row.
    func legacyClocks(_ ref: WireObjectRef, in table: LegacyClockTable) throws -> (row: UInt64, clocks: [UInt8]?)? {
        guard let key = try findObject(table.table, .string(PropertyClocks.key(ref))) else { return nil }
        guard case .binary(let bytes) = try get(table.table, key, table.clocks) else { return (key, nil) }
        return (key, bytes)
    }

    /// Erases the rows `rows` of `table`.
    func eraseLegacyClocks(_ rows: [UInt64], in table: LegacyClockTable) throws {
        for key in rows { try erase(table.table, key) }
    }
}
