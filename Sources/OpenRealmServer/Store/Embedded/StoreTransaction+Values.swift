import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Conversions between wire values and ORCore values (``WireValues``, shared with the
/// client). Links travel as (class, primary key) and are stored as (table, object key),
/// so both directions look objects up in this transaction.
extension StoreTransaction {
    /// The ORCore value for `value`; its bytes live in ``scratch`` until it is reset.
    ///
    /// - Returns: nil for a link whose target object does not exist (the caller decides
    ///   whether that is an error or a null).
    /// - Throws: ``StoreError`` for a link to an unknown class.
    func orcValue(_ value: WireValue, in scratch: ValueScratch? = nil) throws -> orc_value? {
        try WireValues.orcValue(value, scratch ?? self.scratch) { ref in
            guard let cls = try findClass(ref.className) else {
                throw StoreError(status: 0, "link to \(ref): no class '\(ref.className)'")
            }
            return try findObject(cls.table, ref.primaryKey).map { orc_value.link(table: cls.table, key: $0) }
        }
    }

    /// The wire value of an ORCore value read in this transaction.
    ///
    /// - Throws: ``StoreError`` for a value of a type the wire does not carry, or a link
    ///   to an object that cannot be named.
    func wireValue(_ v: orc_value) throws -> WireValue {
        let value = try WireValues.wireValue(v) { table, key in try objectRef(table: table, key: key) }
        guard let value else {
            throw StoreError(status: 0, "value of ORCore type \(v.type.rawValue) has no wire form")
        }
        return value
    }

    /// The wire name (class, primary key) of a stored object.
    func objectRef(table: UInt32, key: UInt64) throws -> WireObjectRef {
        let cls = try classInfo(table: table)
        guard cls.primaryKeyColumn >= 0 else {
            throw StoreError(status: 0, "class '\(cls.name)' has no primary key, so its objects cannot sync")
        }
        var out = orc_value()
        try StoreError.check(orc_obj_get(handle, table, key, UInt16(cls.primaryKeyColumn), &out), "read primary key of \(cls.name)")
        guard let pk = WirePrimaryKey(try wireValue(out)) else {
            throw StoreError(status: 0, "primary key of a '\(cls.name)' object has a type that cannot be a key")
        }
        return WireObjectRef(className: cls.name, primaryKey: pk)
    }
}
