import Foundation
import ORCore
import OpenRealmWire

/// Conversions between wire values and ORCore values. Links travel as (class, primary
/// key) and are stored as (table, object key), so both directions look objects up.
extension StoreTransaction {
    /// The ORCore value for `value`; its bytes live in ``scratch`` until it is reset.
    ///
    /// - Returns: nil for a link whose target object does not exist (the caller decides
    ///   whether that is an error or a null).
    /// - Throws: ``StoreError`` for a link to an unknown class.
    func orcValue(_ value: WireValue, in scratch: ByteScratch? = nil) throws -> orc_value? {
        let scratch = scratch ?? self.scratch
        var v = orc_value()
        switch value {
        case .null: v.type = ORC_TYPE_NULL
        case .bool(let b): v.type = ORC_TYPE_BOOL; v.boolean = b
        case .int(let i): v.type = ORC_TYPE_INT; v.integer = i
        case .float(let f): v.type = ORC_TYPE_FLOAT; v.fnum = f
        case .double(let d): v.type = ORC_TYPE_DOUBLE; v.dnum = d
        case .string(let s):
            v.type = ORC_TYPE_STRING
            let (p, n) = scratch.copy(s)
            v.string.data = p
            v.string.size = n
        case .binary(let bytes):
            v.type = ORC_TYPE_BINARY
            let p = bytes.withUnsafeBytes { scratch.copy($0) }
            v.string.data = p
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
            guard let cls = try findClass(ref.className) else {
                throw StoreError(status: 0, "link to \(ref): no class '\(ref.className)'")
            }
            guard let key = try findObject(cls.table, ref.primaryKey) else { return nil }
            v.type = ORC_TYPE_LINK
            v.link.table = cls.table
            v.link.key = key
        }
        return v
    }

    /// The wire value of an ORCore value read in this transaction.
    func wireValue(_ v: orc_value) throws -> WireValue {
        switch v.type {
        case ORC_TYPE_NULL: return .null
        case ORC_TYPE_BOOL: return .bool(v.boolean)
        case ORC_TYPE_INT: return .int(v.integer)
        case ORC_TYPE_FLOAT: return .float(v.fnum)
        case ORC_TYPE_DOUBLE: return .double(v.dnum)
        case ORC_TYPE_STRING:
            let bytes = UnsafeRawBufferPointer(start: v.string.data, count: v.string.size)
            return .string(String(decoding: bytes, as: UTF8.self))
        case ORC_TYPE_BINARY:
            return .binary(Array(UnsafeRawBufferPointer(start: v.string.data, count: v.string.size)))
        case ORC_TYPE_TIMESTAMP:
            return .timestamp(WireTimestamp(seconds: v.timestamp.seconds, nanoseconds: v.timestamp.nanoseconds))
        case ORC_TYPE_DECIMAL:
            return .decimal128(WireDecimal128(low: v.decimal.w.0, high: v.decimal.w.1))
        case ORC_TYPE_OBJECT_ID:
            let bytes = withUnsafeBytes(of: v.object_id) { Array($0) }
            return .objectId(WireObjectId(bytes: bytes)!)
        case ORC_TYPE_UUID:
            let bytes = withUnsafeBytes(of: v.uuid) { Array($0) }
            return .uuid(WireUUID(bytes: bytes)!)
        case ORC_TYPE_LINK:
            return .link(try objectRef(table: v.link.table, key: v.link.key))
        default:
            throw StoreError(status: 0, "value of unknown ORCore type \(v.type.rawValue)")
        }
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
