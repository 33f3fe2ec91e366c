import Foundation
import ORCore
import OpenRealmWire

/// Memory for the bytes of ORCore values built from wire values; freed all at once.
final class ValueScratch {
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit { reset() }

    func reset() {
        for block in blocks { block.deallocate() }
        blocks.removeAll()
    }

    func copy(_ bytes: some Collection<UInt8>) -> UnsafePointer<CChar> {
        let block = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        blocks.append(block)
        let buffer = UnsafeMutableRawBufferPointer(start: block, count: bytes.count)
        buffer.copyBytes(from: bytes)
        return UnsafePointer(block.assumingMemoryBound(to: CChar.self))
    }
}

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
        switch v.type {
        case ORC_TYPE_NULL: return .null
        case ORC_TYPE_BOOL: return .bool(v.boolean)
        case ORC_TYPE_INT: return .int(v.integer)
        case ORC_TYPE_FLOAT: return .float(v.fnum)
        case ORC_TYPE_DOUBLE: return .double(v.dnum)
        case ORC_TYPE_STRING:
            return .string(String(decoding: UnsafeRawBufferPointer(start: v.string.data, count: v.string.size), as: UTF8.self))
        case ORC_TYPE_BINARY:
            return .binary(Array(UnsafeRawBufferPointer(start: v.string.data, count: v.string.size)))
        case ORC_TYPE_TIMESTAMP:
            return .timestamp(WireTimestamp(seconds: v.timestamp.seconds, nanoseconds: v.timestamp.nanoseconds))
        case ORC_TYPE_DECIMAL:
            return .decimal128(WireDecimal128(low: v.decimal.w.0, high: v.decimal.w.1))
        case ORC_TYPE_OBJECT_ID:
            return WireObjectId(bytes: withUnsafeBytes(of: v.object_id) { Array($0) }).map(WireValue.objectId)
        case ORC_TYPE_UUID:
            return WireUUID(bytes: withUnsafeBytes(of: v.uuid) { Array($0) }).map(WireValue.uuid)
        case ORC_TYPE_LINK:
            return objectRef(table: v.link.table, key: v.link.key).map(WireValue.link)
        default:
            return nil
        }
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
        var v = orc_value()
        switch value {
        case .null: v.type = ORC_TYPE_NULL
        case .bool(let b): v.type = ORC_TYPE_BOOL; v.boolean = b
        case .int(let i): v.type = ORC_TYPE_INT; v.integer = i
        case .float(let f): v.type = ORC_TYPE_FLOAT; v.fnum = f
        case .double(let d): v.type = ORC_TYPE_DOUBLE; v.dnum = d
        case .string(let s):
            v.type = ORC_TYPE_STRING
            let utf8 = Array(s.utf8)
            v.string.data = scratch.copy(utf8)
            v.string.size = utf8.count
        case .binary(let bytes):
            v.type = ORC_TYPE_BINARY
            v.string.data = scratch.copy(bytes)
            v.string.size = bytes.count
        case .timestamp(let t):
            v.type = ORC_TYPE_TIMESTAMP
            v.timestamp = orc_timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds)
        case .decimal128(let d):
            v.type = ORC_TYPE_DECIMAL
            v.decimal = orc_decimal128(w: (d.low, d.high))
        case .objectId(let o):
            v.type = ORC_TYPE_OBJECT_ID
            let b = o.bytes
            v.object_id = (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11])
        case .uuid(let u):
            v.type = ORC_TYPE_UUID
            let b = u.bytes
            v.uuid = (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        case .link(let ref):
            guard let cls = classInfo(named: ref.className) else { return nil }
            guard let key = findObject(cls.table, ref.primaryKey, scratch) else {
                v.type = ORC_TYPE_NULL
                return v
            }
            v.type = ORC_TYPE_LINK
            v.link.table = cls.table
            v.link.key = key
        }
        return v
    }

    /// The object key of the object with primary key `pk`, or nil.
    func findObject(_ table: UInt32, _ pk: WirePrimaryKey, _ scratch: ValueScratch) -> UInt64? {
        guard var value = orcValue(pk.value, scratch) else { return nil }
        var key: UInt64 = 0
        return orc_obj_find(txn, table, &value, &key) == ORC_OK ? key : nil
    }
}
