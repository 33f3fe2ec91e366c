/// A BSON ObjectId as it travels: 12 bytes, compared in byte order.
///
/// The wire module does not depend on OpenRealm; the client and server convert
/// between this and `OpenRealm.ObjectId` (or ORCore's 12-byte value) through ``bytes``.
public struct WireObjectId: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes 0–7, big-endian, so that integer order on (`head`, `tail`) is byte order.
    let head: UInt64
    /// Bytes 8–11, big-endian.
    let tail: UInt32

    /// The id made of these 12 bytes, or nil when `bytes` does not hold exactly 12.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var head: UInt64 = 0
        var tail: UInt32 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 { head = head << 8 | UInt64(byte) } else { tail = tail << 8 | UInt32(byte) }
        }
        self.head = head
        self.tail = tail
    }

    /// The id made of these 12 bytes, or nil when `bytes` does not hold exactly 12.
    /// (Not generic, unlike ``init(bytes:)-(some Collection<UInt8>)``: no per-byte
    /// dispatch through a collection's witness table from another module.)
    public init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 12 else { return nil }
        var head: UInt64 = 0
        var tail: UInt32 = 0
        for i in 0..<8 { head = head << 8 | UInt64(bytes[i]) }
        for i in 8..<12 { tail = tail << 8 | UInt32(bytes[i]) }
        self.head = head
        self.tail = tail
    }

    /// The id made of these 12 bytes, or nil when `bytes` does not hold exactly 12.
    public init?(bytes: [UInt8]) {
        guard let id = bytes.withUnsafeBytes({ WireObjectId(bytes: $0) }) else { return nil }
        self = id
    }

    init(head: UInt64, tail: UInt32) {
        self.head = head
        self.tail = tail
    }

    /// The 12 bytes, in order.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(12)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: head >> UInt64(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: tail >> UInt32(shift))) }
        return out
    }

    /// The 12 bytes, in order, as a tuple (the shape of ORCore's and Foundation-style
    /// fixed-size fields): no array is made, as a key lookup by primary key needs none.
    public var byteTuple: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
        let h = head, t = tail
        return (UInt8(truncatingIfNeeded: h >> 56), UInt8(truncatingIfNeeded: h >> 48), UInt8(truncatingIfNeeded: h >> 40),
                UInt8(truncatingIfNeeded: h >> 32), UInt8(truncatingIfNeeded: h >> 24), UInt8(truncatingIfNeeded: h >> 16),
                UInt8(truncatingIfNeeded: h >> 8), UInt8(truncatingIfNeeded: h), UInt8(truncatingIfNeeded: t >> 24),
                UInt8(truncatingIfNeeded: t >> 16), UInt8(truncatingIfNeeded: t >> 8), UInt8(truncatingIfNeeded: t))
    }

    /// 24 lowercase hexadecimal digits.
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        appendHexDigits(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``description``'s 24 digits, as UTF-8, to `out`.
    public func appendHexDigits(to out: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) { out.append(hexDigit(UInt8(truncatingIfNeeded: head >> UInt64(shift)) & 0xF)) }
        for shift in stride(from: 28, through: 0, by: -4) { out.append(hexDigit(UInt8(truncatingIfNeeded: tail >> UInt32(shift)) & 0xF)) }
    }

    public static func < (a: WireObjectId, b: WireObjectId) -> Bool {
        (a.head, a.tail) < (b.head, b.tail)
    }
}

/// Lowercase hexadecimal digits of `bytes`.
func hexString(_ bytes: [UInt8]) -> String {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(hexDigit(byte >> 4))
        out.append(hexDigit(byte & 0xF))
    }
    return String(decoding: out, as: UTF8.self)
}

/// The lowercase hexadecimal digit of `d` (0 ... 15), as UTF-8.
@inline(__always)
private func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 + d : 0x57 + d }
