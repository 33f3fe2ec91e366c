import Foundation

/// Appends the pieces of an ORCore query program (the byte grammar under "Queries" in
/// `orcore.h`): opcodes, little-endian integers and typed values.
internal struct QueryProgramWriter {
    /// The bytes written so far.
    private(set) var bytes: [UInt8] = []

    // ORCore opcodes (orcore.h: ORC_OP_*, ORC_EXPR_*, ORC_DESC_*, ORC_STEP_*).
    static let opAnd: UInt8 = 0x01
    static let opOr: UInt8 = 0x02
    static let opNot: UInt8 = 0x03
    static let opTrue: UInt8 = 0x04
    static let opFalse: UInt8 = 0x05
    static let opCompare: UInt8 = 0x06
    static let opGeoWithin: UInt8 = 0x07
    static let exprPath: UInt8 = 0x10
    static let exprConstant: UInt8 = 0x11
    static let exprList: UInt8 = 0x12
    static let exprSubquery: UInt8 = 0x13
    static let descSort: UInt8 = 0x20
    static let descDistinct: UInt8 = 0x21
    static let descLimit: UInt8 = 0x22
    static let stepProperty: UInt8 = 0x00
    static let stepBacklink: UInt8 = 0x01
    static let stepDictionaryKey: UInt8 = 0x02

    mutating func u8(_ v: UInt8) { bytes.append(v) }

    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    mutating func u32(_ v: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    mutating func u64(_ v: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    mutating func f64(_ v: Double) { u64(v.bitPattern) }

    /// `u32 len bytes`.
    mutating func lengthPrefixed<C: Collection>(_ data: C) where C.Element == UInt8 {
        u32(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    /// `u8 type payload`, as orcore.h's `value` production.
    mutating func value(_ v: QueryValue) {
        switch v {
        case .null:
            u8(0)
        case .bool(let b):
            u8(1)
            u8(b ? 1 : 0)
        case .int(let i):
            u8(2)
            u64(UInt64(bitPattern: i))
        case .float(let f):
            u8(3)
            u32(f.bitPattern)
        case .double(let d):
            u8(4)
            u64(d.bitPattern)
        case .string(let s):
            u8(5)
            lengthPrefixed(Array(s.utf8))
        case .binary(let d):
            u8(6)
            lengthPrefixed(d)
        case .timestamp(let s, let ns):
            u8(7)
            u64(UInt64(bitPattern: s))
            u32(UInt32(bitPattern: ns))
        case .decimal(let d):
            u8(8)
            u64(d.bidLow)
            u64(d.bidHigh)
        case .objectId(let o):
            u8(9)
            withUnsafeBytes(of: o.orcBytes) { bytes.append(contentsOf: $0) }
        case .uuid(let u):
            u8(10)
            withUnsafeBytes(of: u.uuid) { bytes.append(contentsOf: $0) }
        case .link(let table, let key):
            u8(11)
            u32(table)
            u64(key)
        }
    }
}
