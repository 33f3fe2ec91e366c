import Foundation

/// A 12-byte, probably unique identifier: the BSON ObjectId.
///
/// An ObjectId is laid out as
///
/// | bytes | content                                                        |
/// |-------|----------------------------------------------------------------|
/// | 0–3   | seconds since 1970-01-01 UTC, big-endian                       |
/// | 4–8   | five random bytes, drawn once per process                      |
/// | 9–11  | a counter, big-endian, starting at a random value per process  |
///
/// so that ids sort by creation time, and ids made by one process are unique without
/// coordination. Comparison is byte order, which is the order ORCore sorts and indexes
/// ObjectIds in.
///
/// ```swift
/// let id = ObjectId.generate()
/// let same = try ObjectId(string: id.stringValue)
/// assert(id == same)
/// ```
///
/// `ObjectId()` is the all-zero id, as in the Realm Swift SDK; use ``generate()`` for a
/// fresh one. ObjectId is a value type and may be passed between threads freely.
public struct ObjectId: Sendable {
    /// Bytes 0–7, big-endian: integer order on (`head`, `tail`) is byte order.
    private var head: UInt64
    /// Bytes 8–11, big-endian.
    private var tail: UInt32

    /// Creates the all-zero ObjectId `000000000000000000000000`.
    public init() {
        head = 0
        tail = 0
    }

    init(head: UInt64, tail: UInt32) {
        self.head = head
        self.tail = tail
    }

    /// Parses a 24-digit hexadecimal string, in either case.
    ///
    /// - Parameter string: Exactly 24 characters `0-9`, `a-f`, `A-F`.
    /// - Throws: ``RealmError`` with code `.invalidValue`, naming the string, if it
    ///   has another length or any other character.
    public init(string: String) throws {
        guard let parsed = ObjectId.parse(string) else {
            throw RealmError(.invalidValue, "Invalid ObjectId string '\(string)': must be 24 hexadecimal digits")
        }
        self = parsed
    }

    /// Parses a 24-digit hexadecimal string literal.
    ///
    /// Stops the program if the string is not a valid ObjectId; use ``init(string:)``
    /// for strings that come from outside the program.
    public init(_ str: StaticString) {
        let text = str.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        guard let parsed = ObjectId.parse(text) else {
            preconditionFailure("Invalid ObjectId string '\(text)': must be 24 hexadecimal digits")
        }
        self = parsed
    }

    /// The id as 24 lowercase hexadecimal digits.
    public var stringValue: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 24) { out in
            digits.withUTF8Buffer { hex in
                var i = 0
                forEachByte { byte in
                    out[i] = hex[Int(byte >> 4)]
                    out[i + 1] = hex[Int(byte & 0xF)]
                    i += 2
                }
            }
            return 24
        }
    }

    /// The creation time stored in the first four bytes, to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(head >> 32))
    }

    // MARK: Bridging

    /// The C layer's form of an ObjectId: `uint8_t object_id[12]` of `orc_value`.
    package typealias Bytes12 = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// Creates an ObjectId from the bytes of an `orc_value`'s `object_id` field.
    package init(orcBytes b: Bytes12) {
        head = UInt64(b.0) << 56 | UInt64(b.1) << 48 | UInt64(b.2) << 40 | UInt64(b.3) << 32
            | UInt64(b.4) << 24 | UInt64(b.5) << 16 | UInt64(b.6) << 8 | UInt64(b.7)
        tail = UInt32(b.8) << 24 | UInt32(b.9) << 16 | UInt32(b.10) << 8 | UInt32(b.11)
    }

    /// The bytes for an `orc_value`'s `object_id` field.
    package var orcBytes: Bytes12 {
        func byte(_ word: UInt64, _ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> shift) }
        let t = UInt64(tail)
        return (byte(head, 56), byte(head, 48), byte(head, 40), byte(head, 32),
                byte(head, 24), byte(head, 16), byte(head, 8), byte(head, 0),
                byte(t, 24), byte(t, 16), byte(t, 8), byte(t, 0))
    }

    /// Creates an ObjectId from exactly 12 bytes; nil for any other count.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var head: UInt64 = 0
        var tail: UInt32 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 {
                head = head << 8 | UInt64(byte)
            } else {
                tail = tail << 8 | UInt32(byte)
            }
        }
        self.init(head: head, tail: tail)
    }

    /// The 12 bytes, most significant (the timestamp's) first.
    var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(12)
        forEachByte { result.append($0) }
        return result
    }

    private func forEachByte(_ body: (UInt8) -> Void) {
        for shift in stride(from: 56, through: 0, by: -8) {
            body(UInt8(truncatingIfNeeded: head >> UInt64(shift)))
        }
        for shift in stride(from: 24, through: 0, by: -8) {
            body(UInt8(truncatingIfNeeded: tail >> UInt32(shift)))
        }
    }

    /// The id for 24 hexadecimal digits, or nil.
    private static func parse(_ string: String) -> ObjectId? {
        var head: UInt64 = 0
        var tail: UInt32 = 0
        var count = 0
        for unit in string.utf8 {
            let nibble: UInt8
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = unit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = unit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = unit - UInt8(ascii: "A") + 10
            default: return nil
            }
            if count < 16 {
                head = head << 4 | UInt64(nibble)
            } else if count < 24 {
                tail = tail << 4 | UInt32(nibble)
            } else {
                return nil
            }
            count += 1
        }
        return count == 24 ? ObjectId(head: head, tail: tail) : nil
    }
}

extension ObjectId: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(head)
        hasher.combine(tail)
    }
}

extension ObjectId: Comparable {
    /// Byte order: earlier creation seconds first, as ORCore sorts ObjectIds.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        lhs.head != rhs.head ? lhs.head < rhs.head : lhs.tail < rhs.tail
    }
}

extension ObjectId: CustomStringConvertible {
    /// The 24 lowercase hexadecimal digits, as ``stringValue``.
    public var description: String { stringValue }
}

extension ObjectId: Codable {
    /// Decodes an ObjectId from a single string of 24 hexadecimal digits.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a valid ObjectId.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "Invalid ObjectId string '\(string)': must be 24 hexadecimal digits",
                underlyingError: error))
        }
    }

    /// Encodes the id as a single string, its ``stringValue``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
