import Foundation

/// A UUID as it travels: 16 bytes, compared in byte order.
///
/// Converts to and from Foundation's `UUID`, and to and from raw bytes for ORCore.
public struct WireUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes 0–7, big-endian.
    let high: UInt64
    /// Bytes 8–15, big-endian.
    let low: UInt64

    /// The UUID made of these 16 bytes, or nil when `bytes` does not hold exactly 16.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// The UUID made of these 16 bytes, or nil when `bytes` does not hold exactly 16.
    /// (Not generic: no per-byte dispatch through a collection's witness table from
    /// another module.)
    public init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for i in 0..<8 { high = high << 8 | UInt64(bytes[i]) }
        for i in 8..<16 { low = low << 8 | UInt64(bytes[i]) }
        self.high = high
        self.low = low
    }

    /// The UUID made of these 16 bytes, or nil when `bytes` does not hold exactly 16.
    public init?(bytes: [UInt8]) {
        guard let id = bytes.withUnsafeBytes({ WireUUID(bytes: $0) }) else { return nil }
        self = id
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The same 16 bytes as a Foundation `UUID`.
    public init(_ uuid: UUID) {
        let t = uuid.uuid
        self.init(bytes: [t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7,
                          t.8, t.9, t.10, t.11, t.12, t.13, t.14, t.15])!
    }

    /// The 16 bytes, in order.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(16)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
        return out
    }

    /// The same 16 bytes as a Foundation `UUID`.
    public var uuid: UUID {
        let b = bytes
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// The canonical form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase.
    public var description: String {
        let hex = Array(hexString(bytes))
        return String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-"
            + String(hex[16..<20]) + "-" + String(hex[20..<32])
    }

    public static func < (a: WireUUID, b: WireUUID) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }
}
