/// Appends the protocol's primitive encodings to a byte buffer (the layouts are in
/// `docs/PROTOCOL.md` §3 and in the design comment of `WireReader.swift`).
///
/// Writing checks what the reader would reject — empty names, paths deeper than the
/// limit, invalid timestamps, impossible schema declarations — so that every message
/// the encoder produces decodes. Failures carry the field name; the encoders of
/// enclosing structures prepend theirs.
struct WireWriter {
    /// The bytes written so far.
    var bytes: [UInt8] = []
    /// The path depth bound.
    let limits: WireLimits

    init(limits: WireLimits, reserving capacity: Int = 0) {
        self.limits = limits
        if capacity > 0 { bytes.reserveCapacity(capacity) }
    }

    // MARK: Fixed-size integers (little-endian)

    mutating func u8(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    // MARK: Varints

    /// Unsigned LEB128: seven bits per byte, least significant first, the high bit set
    /// on every byte but the last. The shortest form is always written.
    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Zigzag (0, -1, 1, -2, ... → 0, 1, 2, 3, ...) then LEB128.
    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    // MARK: Strings and bytes

    /// A varint byte count, then the UTF-8 bytes.
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A string that must not be empty: a class, property or primary key name.
    mutating func name(_ value: String, _ field: StaticString) throws(WireError) {
        if value.isEmpty { throw WireError(.badMessage, field: "\(field)", "a name must not be empty") }
        string(value)
    }

    /// A varint byte count, then the bytes.
    mutating func binary(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}
