import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Conversions between wire values and ORCore values for one transaction. Links travel
/// as (class, primary key) and are stored as (table, object key).
///
/// Schema lookups are remembered for the life of the value (``SchemaMemo``): a
/// download or a local commit names the same few classes and properties for every
/// object, and each lookup through ORCore costs a C string and a search. A conversion
/// must therefore not outlive a schema change: make one per transaction (or per run of
/// work during which the schema stays as it is); the appliers never change the schema.
struct ValueConversion {
    let txn: OpaquePointer
    private let memo = SchemaMemo()

    init(txn: OpaquePointer) {
        self.txn = txn
    }

    /// The class of table `table`.
    func classInfo(table: UInt32) -> orc_class_info? {
        if let known = memo.classByTable[table] { return known }
        var info = orc_class_info()
        let found = orc_schema_class_get(txn, table, &info) == ORC_OK ? info : nil
        memo.classByTable[table] = .some(found)
        return found
    }

    func classInfo(named name: String) -> orc_class_info? {
        if let known = memo.classByName[name] { return known }
        var info = orc_class_info()
        let found = orc_schema_class_find(txn, name, &info) == ORC_OK ? info : nil
        memo.classByName[name] = .some(found)
        return found
    }

    func property(_ table: UInt32, named name: String) -> orc_prop_info? {
        let key = SchemaMemo.NamedProperty(table: table, name: name)
        if let known = memo.propertyByName[key] { return known }
        var info = orc_prop_info()
        let found = orc_schema_prop_find(txn, table, name, &info) == ORC_OK ? info : nil
        memo.propertyByName[key] = .some(found)
        return found
    }

    func property(_ table: UInt32, column: UInt16) -> orc_prop_info? {
        propertyAndName(table, column: column)?.info
    }

    /// The property in column `column` of `table` and its name as a Swift string (made
    /// once per property, not once per instruction that names it).
    func propertyAndName(_ table: UInt32, column: UInt16) -> (info: orc_prop_info, name: String)? {
        let key = UInt64(table) << 16 | UInt64(column)
        if let known = memo.propertyByColumn[key] { return known }
        var info = orc_prop_info()
        let found = orc_schema_prop_get(txn, table, column, &info) == ORC_OK ? (info, Self.name(info.name)) : nil
        memo.propertyByColumn[key] = .some(found)
        return found
    }

    /// The name of the class of `table` as a Swift string (made once per class).
    func className(table: UInt32) -> String? {
        if let known = memo.classNameByTable[table] { return known }
        // A fresh lookup: a remembered info's name pointer may be stale after a write.
        var info = orc_class_info()
        let name = orc_schema_class_get(txn, table, &info) == ORC_OK ? Self.name(info.name) : nil
        memo.classNameByTable[table] = .some(name)
        return name
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
        return WireObjectRef(className: className(table: table) ?? Self.name(cls.name), primaryKey: pk)
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

/// The schema lookups one ``ValueConversion`` made, negative answers included. Only the
/// numeric fields of the ORCore infos are read after a write (their name pointers may
/// go stale); names are kept as Swift strings.
final class SchemaMemo {
    struct NamedProperty: Hashable {
        let table: UInt32
        let name: String
    }

    var classByTable: [UInt32: orc_class_info?] = [:]
    var classByName: [String: orc_class_info?] = [:]
    var classNameByTable: [UInt32: String?] = [:]
    var propertyByName: [NamedProperty: orc_prop_info?] = [:]
    /// Keyed by table << 16 | column.
    var propertyByColumn: [UInt64: (info: orc_prop_info, name: String)?] = [:]
}
