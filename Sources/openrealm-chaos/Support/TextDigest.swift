/// A 64-bit FNV-1a digest of a sequence of texts, each ended by a separator byte, so that
/// ("ab", "c") and ("a", "bc") differ. Equal digests mean equal sequences (for the
/// checks' purposes).
struct TextDigest {
    private var hash: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func mix(_ text: String) {
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        hash ^= 0xFF
        hash &*= 0x0000_0100_0000_01B3
    }

    /// The digest as 16 hexadecimal digits.
    var hex: String {
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
