/// An IEEE 754-2008 decimal128 in the binary integer decimal encoding, as two 64-bit
/// words: the same bits ORCore stores and `OpenRealm.Decimal128` holds.
///
/// The wire carries the bits; it neither normalizes nor interprets them.
public struct WireDecimal128: Sendable, Hashable, CustomStringConvertible {
    /// The low 64 bits.
    public var low: UInt64
    /// The high 64 bits (sign, combination field, the top of the coefficient).
    public var high: UInt64

    /// The decimal128 with these bits.
    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The two words in hexadecimal, high then low, for messages.
    public var description: String {
        let h = String(high, radix: 16)
        let l = String(low, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - h.count) + h + String(repeating: "0", count: 16 - l.count) + l
    }
}
