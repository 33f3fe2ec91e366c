import ORCore
import OpenRealmWire

/// Conversions between wire values (`OpenRealmWire`) and ORCore values, shared by the
/// sync server's store and the sync client's integration.
///
/// Every case but links converts on its own. Links travel as (class, primary key) and
/// are stored as (table, object key), so the caller names them: each side has its own
/// schema lookups and its own rule for a link whose target it does not hold.
///
/// ```swift
/// let scratch = ValueScratch()
/// let v = try WireValues.orcValue(.string("docs"), scratch) { ref in .link(table: 3, key: 7) }
/// let back = WireValues.wireValue(v!) { _, _ in nil }
/// ```
public enum WireValues {
    /// The ORCore value of `value`. String and binary bytes are copied into `scratch`
    /// and are valid until it is reset.
    ///
    /// - Parameter link: the ORCore value a link stands for (``orc_value/link(table:key:)``,
    ///   or ``orc_value/null`` for a target the caller treats as missing), or nil when the
    ///   link cannot be stored at all.
    /// - Returns: nil when `link` returned nil.
    /// - Throws: what `link` throws.
    public static func orcValue(_ value: WireValue, _ scratch: ValueScratch,
                                link: (WireObjectRef) throws -> orc_value?) rethrows -> orc_value? {
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
            v.object_id = o.byteTuple
        case .uuid(let u):
            v.type = ORC_TYPE_UUID
            let b = u.bytes
            v.uuid = (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        case .link(let ref):
            return try link(ref)
        }
        return v
    }

    /// The wire value of an ORCore value. Bytes are copied out, so the result outlives
    /// the transaction the value was read in.
    ///
    /// - Parameter link: the wire name of the object (table, key) names, or nil when it
    ///   has none (no primary key, no such object).
    /// - Returns: nil for a link `link` could not name, and for a value of a type the
    ///   wire does not carry (or malformed identifier bytes).
    /// - Throws: what `link` throws.
    public static func wireValue(_ v: orc_value, link: (UInt32, UInt64) throws -> WireObjectRef?) rethrows -> WireValue? {
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
            return withUnsafeBytes(of: v.object_id) { WireObjectId(bytes: $0) }.map(WireValue.objectId)
        case ORC_TYPE_UUID:
            return withUnsafeBytes(of: v.uuid) { WireUUID(bytes: $0) }.map(WireValue.uuid)
        case ORC_TYPE_LINK:
            return try link(v.link.table, v.link.key).map(WireValue.link)
        default:
            return nil
        }
    }
}

extension orc_value {
    /// A null value.
    public static var null: orc_value {
        var v = orc_value()
        v.type = ORC_TYPE_NULL
        return v
    }

    /// A link to object `key` of table `table`.
    public static func link(table: UInt32, key: UInt64) -> orc_value {
        var v = orc_value()
        v.type = ORC_TYPE_LINK
        v.link.table = table
        v.link.key = key
        return v
    }
}
