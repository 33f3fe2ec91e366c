/*
 * WireReader — the bounds-checked reading side of the protocol's encodings.
 *
 * Every message body, and every stored changeset, is read by one WireReader over a
 * byte array. The reader is built to be fed hostile bytes:
 *
 *  1. Every read checks the bytes it needs against the bytes left before touching
 *     them; nothing reads past `end`.
 *  2. Every length or count is checked against the bytes left before anything is
 *     allocated for it: a string of length n needs n bytes, a list of n elements at
 *     least n * (smallest element encoding) bytes. Arrays are never reserved from a
 *     declared count, so what a body decodes into grows only with the bytes it has.
 *  3. Varints are at most 10 bytes, must fit in 64 bits, and must be in their
 *     shortest form (so one message has one encoding).
 *  4. Nothing recurses: values do not nest, and an embedded-object path is a flat
 *     list of at most `limits.maxPathDepth` steps.
 *  5. Every loop consumes at least one byte per iteration, so decoding ends.
 *
 * Failures are WireErrors with the field's name and offset (from the first byte of
 * the body); the readers of enclosing structures prepend their own names through
 * WireError.within, so a message names the whole path:
 * "upload.changesets[2].instructions[0].value: unknown value tag 42 (body offset 77)".
 *
 * PRIMITIVES (integers little-endian)
 *
 *   u8, u16, u32, u64   fixed-size unsigned integers
 *   v                   unsigned LEB128 varint, 1 ... 10 bytes, shortest form
 *   z                   zigzag-encoded signed integer in a v
 *   bool                u8, 0 or 1
 *   str                 v byte count | UTF-8 bytes (validated)
 *   name                str, not empty
 *   bin                 v byte count | bytes
 */
struct WireReader {
    let bytes: [UInt8]
    /// The index of the first byte of the body: error offsets count from it.
    let base: Int
    /// The index of the next byte to read.
    private(set) var position: Int
    /// One past the last byte this reader may read.
    let end: Int
    /// The path depth bound.
    let limits: WireLimits

    /// A reader over all of `bytes`.
    init(_ bytes: [UInt8], limits: WireLimits) {
        self.init(bytes, range: 0..<bytes.count, limits: limits)
    }

    /// A reader over `bytes[range]`; offsets in errors count from `range.lowerBound`.
    init(_ bytes: [UInt8], range: Range<Int>, limits: WireLimits) {
        self.bytes = bytes
        self.base = range.lowerBound
        self.position = range.lowerBound
        self.end = range.upperBound
        self.limits = limits
    }

    /// Bytes left to read.
    var remaining: Int { end - position }

    /// A failure at index `index` of `bytes` (the current position by default).
    func failure(_ field: StaticString, _ reason: String, at index: Int? = nil, code: SyncErrorCode = .badMessage) -> WireError {
        WireError(code, field: "\(field)", reason, offset: (index ?? position) - base)
    }

    /// Fails unless every byte was read.
    func expectEnd() throws(WireError) {
        if position != end {
            throw WireError(.badMessage, "\(remaining) unexpected bytes after the last field", offset: position - base)
        }
    }

    /// Fails unless `count` more bytes are there.
    private func need(_ count: Int, _ field: StaticString) throws(WireError) {
        if count > remaining {
            throw failure(field, "truncated: needs \(count) bytes, \(remaining) left")
        }
    }

    // MARK: Fixed-size integers

    mutating func u8(_ field: StaticString) throws(WireError) -> UInt8 {
        try need(1, field)
        defer { position += 1 }
        return bytes[position]
    }

    /// A one-byte code of `T`; an unknown byte fails as "unknown `what` `byte`" at its offset.
    mutating func code<T: RawRepresentable>(_ field: StaticString, unknown what: String) throws(WireError) -> T where T.RawValue == UInt8 {
        let start = position
        let raw = try u8(field)
        guard let value = T(rawValue: raw) else { throw failure(field, "unknown \(what) \(raw)", at: start) }
        return value
    }

    mutating func u16(_ field: StaticString) throws(WireError) -> UInt16 {
        try need(2, field)
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    mutating func u32(_ field: StaticString) throws(WireError) -> UInt32 { try littleEndian(field) }

    mutating func u64(_ field: StaticString) throws(WireError) -> UInt64 { try littleEndian(field) }

    /// An unsigned integer as wide as `T`, little-endian.
    private mutating func littleEndian<T: FixedWidthInteger & UnsignedInteger>(_ field: StaticString) throws(WireError) -> T {
        let width = T.bitWidth / 8
        try need(width, field)
        var value: T = 0
        for i in 0..<width { value |= T(bytes[position + i]) << (8 * i) }
        position += width
        return value
    }

    mutating func bool(_ field: StaticString) throws(WireError) -> Bool {
        let start = position
        switch try u8(field) {
        case 0: return false
        case 1: return true
        case let other: throw failure(field, "a boolean must be 0 or 1, not \(other)", at: start)
        }
    }

    /// Raw bytes of a fixed size (ObjectId, UUID).
    mutating func fixedBytes(_ count: Int, _ field: StaticString) throws(WireError) -> ArraySlice<UInt8> {
        try need(count, field)
        defer { position += count }
        return bytes[position..<position + count]
    }

    // MARK: Varints

    mutating func varint(_ field: StaticString) throws(WireError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw failure(field, "truncated varint", at: start) }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 {
                throw failure(field, "varint does not fit in 64 bits", at: start)
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 {
                    throw failure(field, "varint is not in its shortest form", at: start)
                }
                return value
            }
            shift += 7
        }
    }

    mutating func zigzag(_ field: StaticString) throws(WireError) -> Int64 {
        let raw = try varint(field)
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A varint that must fit in `UInt32`.
    mutating func varint32(_ field: StaticString) throws(WireError) -> UInt32 {
        let start = position
        let value = try varint(field)
        guard let narrow = UInt32(exactly: value) else {
            throw failure(field, "\(value) does not fit in 32 bits", at: start)
        }
        return narrow
    }

    /// A session number: a varint that is not 0 (0 is reserved for connection errors).
    mutating func session() throws(WireError) -> UInt64 {
        let start = position
        let value = try varint("session")
        if value == 0 { throw failure("session", "0 is reserved for connection-level errors", at: start) }
        return value
    }

    /// An element count, checked against the bytes left: each element takes at least
    /// `minimumElementSize` bytes.
    mutating func count(_ field: StaticString, minimumElementSize: Int) throws(WireError) -> Int {
        let start = position
        let value = try varint(field)
        let most = remaining / minimumElementSize
        guard value <= UInt64(most) else {
            throw failure(field, "count \(value) cannot fit in the \(remaining) bytes left", at: start)
        }
        return Int(value)
    }

    // MARK: Strings and bytes

    /// The range of a length-prefixed run of bytes.
    private mutating func lengthPrefixed(_ field: StaticString) throws(WireError) -> Range<Int> {
        let start = position
        let length = try varint(field)
        guard length <= UInt64(remaining) else {
            throw failure(field, "length \(length) runs past the end (\(remaining) bytes left)", at: start)
        }
        let range = position..<position + Int(length)
        position = range.upperBound
        return range
    }

    mutating func string(_ field: StaticString) throws(WireError) -> String {
        let start = position
        let range = try lengthPrefixed(field)
        // Decoding repairs invalid UTF-8 (each bad sequence becomes U+FFFD), so the text
        // is valid exactly when its bytes are the input's. (The stdlib's fast contiguous
        // path: `String(validating:)` over a slice goes through generic code, the most
        // expensive part of decoding a changeset.)
        let text: String? = bytes.withUnsafeBufferPointer { all in
            let utf8 = UnsafeBufferPointer(rebasing: all[range])
            let text = String(decoding: utf8, as: UTF8.self)
            return text.utf8.count == utf8.count && text.utf8.elementsEqual(utf8) ? text : nil
        }
        guard let text else { throw failure(field, "not valid UTF-8", at: start) }
        return text
    }

    mutating func name(_ field: StaticString) throws(WireError) -> String {
        let start = position
        let text = try string(field)
        if text.isEmpty { throw failure(field, "a name must not be empty", at: start) }
        return text
    }

    mutating func binary(_ field: StaticString) throws(WireError) -> [UInt8] {
        let range = try lengthPrefixed(field)
        return Array(bytes[range])
    }
}
