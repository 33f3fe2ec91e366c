import Foundation
import ORCore
import OpenRealmStoreValues
import OpenRealmWire

/// Conversions between wire values and ORCore values for one transaction. Links travel
/// as (class, primary key) and are stored as (table, object key).
struct ValueConversion {
    let txn: OpaquePointer

    /// The class of table `table`.
    func classInfo(table: UInt32) -> orc_class_info? {
        var info = orc_class_info()
        return orc_schema_class_get(txn, table, &info) == ORC_OK ? info : nil
    }

    func classInfo(named name: String) -> orc_class_info? {
        var info = orc_class_info()
        return orc_schema_class_find(txn, name, &info) == ORC_OK ? info : nil
    }

    func property(_ table: UInt32, named name: String) -> orc_prop_info? {
        var info = orc_prop_info()
        return orc_schema_prop_find(txn, table, name, &info) == ORC_OK ? info : nil
    }

    func property(_ table: UInt32, column: UInt16) -> orc_prop_info? {
        var info = orc_prop_info()
        return orc_schema_prop_get(txn, table, column, &info) == ORC_OK ? info : nil
    }

    static func name(_ pointer: UnsafePointer<CChar>?, _ length: Int? = nil) -> String {
        guard let pointer else { return "" }
        if let length {
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }
        return String(cString: pointer)
    }

    // MARK: ORCore → wire

    /// The wire value of an ORCore value; nil for a link whose target cannot be named.
    func wireValue(_ v: orc_value) -> WireValue? {
        WireValues.wireValue(v) { table, key in objectRef(table: table, key: key) }
    }

    /// The wire name of an object: (class, primary key); nil without a primary key or object.
    func objectRef(table: UInt32, key: UInt64) -> WireObjectRef? {
        guard let cls = classInfo(table: table), cls.pk_col >= 0 else { return nil }
        var out = orc_value()
        guard orc_obj_get(txn, table, key, UInt16(cls.pk_col), &out) == ORC_OK,
              let value = wireValue(out), let pk = WirePrimaryKey(value) else { return nil }
        return WireObjectRef(className: Self.name(cls.name), primaryKey: pk)
    }

    // MARK: wire → ORCore

    /// The ORCore value of a wire value; bytes live in `scratch`. A link to an object
    /// that does not exist here becomes null; nil when the link's class is unknown.
    func orcValue(_ value: WireValue, _ scratch: ValueScratch) -> orc_value? {
        WireValues.orcValue(value, scratch) { ref in
            guard let cls = classInfo(named: ref.className) else { return nil }
            return findObject(cls.table, ref.primaryKey, scratch).map { orc_value.link(table: cls.table, key: $0) } ?? .null
        }
    }

    /// The object key of the object with primary key `pk`, or nil.
    func findObject(_ table: UInt32, _ pk: WirePrimaryKey, _ scratch: ValueScratch) -> UInt64? {
        guard var value = orcValue(pk.value, scratch) else { return nil }
        var key: UInt64 = 0
        return orc_obj_find(txn, table, &value, &key) == ORC_OK ? key : nil
    }
}
