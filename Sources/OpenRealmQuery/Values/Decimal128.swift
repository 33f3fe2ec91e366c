import Foundation

/// A 128-bit IEEE 754-2008 decimal floating-point number: up to 34 significant digits
/// and a decimal exponent from -6176 to 6111 (numbers from about ±1E-6176 to
/// ±9.999…E+6144), plus infinities and NaN.
///
/// ```swift
/// let price: Decimal128 = "19.99"
/// let total = price * 3          // 59.97, exactly
/// let ratio = try Decimal128(string: "-2.25E+40")
/// ```
///
/// Unlike `Double`, decimal fractions such as 0.1 are exact. Every operation rounds
/// its exact result half to even to 34 digits, as IEEE 754 does. Values compare
/// numerically (`1.0 == 1.00`), NaN equals NaN and sorts below every number, and
/// -0 equals 0: the order in which ORCore sorts, indexes and queries decimals.
///
/// The bits are the BID ("binary integer decimal") encoding ORCore stores: the high
/// word holds the sign (bit 63), a 14-bit exponent biased by 6176 (bits 62–49) and
/// the top 49 bits of the coefficient; the low word the coefficient's low 64 bits.
/// Infinity has bits 62–58 = 11110 and NaN 11111. Encodings whose coefficient is
/// 10^34 or more (including the IEEE "large coefficient" form) read as zero.
///
/// Decimal128 is a value type and may be passed between threads freely.
public struct Decimal128: Sendable {
    /// The low 64 bits of the BID encoding (`orc_decimal128.w[0]`).
    package var bidLow: UInt64
    /// The high 64 bits of the BID encoding (`orc_decimal128.w[1]`).
    package var bidHigh: UInt64

    /// Wraps BID bits as ORCore stores them, without checking them.
    package init(bidLow: UInt64, bidHigh: UInt64) {
        self.bidLow = bidLow
        self.bidHigh = bidHigh
    }

    /// Creates zero (0E+0).
    public init() {
        self.init(bidLow: 0, bidHigh: UInt64(DecimalParts.exponentBias) << 49)
    }

    /// The largest finite Decimal128, 9.999999999999999999999999999999999E+6144.
    public static var max: Decimal128 {
        DecimalParts(negative: false, coefficient: DecimalParts.maxCoefficient, exponent: DecimalParts.maxExponent).packed
    }

    /// The smallest (most negative) finite Decimal128, -9.999999999999999999999999999999999E+6144.
    public static var min: Decimal128 {
        DecimalParts(negative: true, coefficient: DecimalParts.maxCoefficient, exponent: DecimalParts.maxExponent).packed
    }

    /// The largest finite Decimal128; the same as ``max``.
    public static var maximumDecimalNumber: Decimal128 { max }

    /// The smallest (most negative) finite Decimal128; the same as ``min``.
    public static var minimumDecimalNumber: Decimal128 { min }

    /// Whether this is NaN ("not a number"), the result of an invalid operation such
    /// as 0 / 0 or infinity − infinity, or of converting `nil`.
    public var isNaN: Bool { bidHigh & DecimalParts.nanMask == DecimalParts.nanMask }

    /// Whether this is NaN: as in the Realm Swift SDK, every NaN counts as signaling.
    public var isSignaling: Bool { isNaN }

    /// Whether this is NaN: as in the Realm Swift SDK, every NaN counts as signaling.
    public var isSignalingNaN: Bool { isNaN }

    /// The sign, coefficient and exponent (or kind) of the encoded number.
    var parts: DecimalParts { DecimalParts(self) }

    static let nan = Decimal128(bidLow: 0, bidHigh: DecimalParts.nanMask)

    static func infinity(negative: Bool) -> Decimal128 {
        Decimal128(bidLow: 0, bidHigh: DecimalParts.infinityMask | (negative ? DecimalParts.signBit : 0))
    }
}

// MARK: - Equality, order, hashing

extension Decimal128: Comparable {
    /// Numeric equality: 1.0 == 1.00, -0 == 0, NaN == NaN.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        (lhs.bidLow == rhs.bidLow && lhs.bidHigh == rhs.bidHigh) || compare(lhs, rhs) == 0
    }

    /// Numeric order with NaN below every number (-infinity included).
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) < 0
    }

    public static func <= (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) <= 0
    }

    public static func > (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) > 0
    }

    public static func >= (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) >= 0
    }

    /// Three-way comparison in ORCore's order (`orc_value_compare` on two decimals):
    /// -1, 0 or 1.
    static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int {
        DecimalParts.compare(lhs.parts, rhs.parts)
    }
}

extension Decimal128: Hashable {
    /// Hashes the number's value, so that equal decimals (1.0 and 1.00, -0 and 0,
    /// every NaN) hash alike.
    public func hash(into hasher: inout Hasher) {
        let p = parts
        switch p.kind {
        case .nan:
            hasher.combine(0 as UInt8)
        case .infinity:
            hasher.combine(1 as UInt8)
            hasher.combine(p.negative)
        case .finite:
            if p.coefficient == 0 {
                hasher.combine(2 as UInt8)
            } else {
                let (coefficient, exponent) = DecimalParts.withoutTrailingZeros(p.coefficient, p.exponent)
                hasher.combine(3 as UInt8)
                hasher.combine(p.negative)
                hasher.combine(coefficient)
                hasher.combine(exponent)
            }
        }
    }
}

// MARK: - Text

extension Decimal128: CustomStringConvertible {
    /// The number as text that ``init(string:)`` reads back to an equal value.
    ///
    /// The form is canonical, so equal numbers print alike (`1.50` and `1.5` both
    /// print `1.5`): integers up to 34 digits are written out (`1500`, `-7`); other
    /// numbers use the IEEE 754 / General Decimal Arithmetic *to-scientific-string*
    /// form of their shortest coefficient — plain notation when the exponent is at most
    /// 0 and the adjusted exponent at least -6 (`0.000123`, `-12.5`), otherwise one
    /// digit before the point and a signed exponent (`1.5E-7`, `-2.25E+40`).
    /// Zero prints `0` (or `-0`), infinities `Inf` and `-Inf`, NaN `NaN`.
    public var stringValue: String { DecimalText.format(parts) }

    /// The same as ``stringValue``.
    public var description: String { stringValue }
}

extension Decimal128: ExpressibleByStringLiteral {
    /// Parses a string literal as ``init(string:)`` does.
    ///
    /// Stops the program if the literal is not a decimal number; use
    /// ``init(string:)`` for strings that come from outside the program.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

extension Decimal128: ExpressibleByIntegerLiteral {
    /// Creates the integer, exactly.
    public init(integerLiteral value: Int64) {
        self = DecimalParts(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0).packed
    }
}

extension Decimal128: ExpressibleByFloatLiteral {
    /// Creates the shortest decimal that reads back as the literal's `Double` (so `0.1`
    /// is exactly one tenth), as ``init(number:)`` does for a double.
    public init(floatLiteral value: Double) {
        self.init(double: value)
    }
}

// MARK: - Codable

extension Decimal128: Codable {
    /// Decodes a decimal from a string (as ``init(string:)``), an integer or a double.
    ///
    /// - Throws: `DecodingError.dataCorrupted` if the value is none of these or the
    ///   string is not a decimal number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            do {
                try self.init(string: string)
            } catch {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "Cannot convert '\(string)' to Decimal128", underlyingError: error))
            }
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integerLiteral: integer)
        } else if let double = try? container.decode(Double.self) {
            self.init(double: double)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes the decimal as a single string, its ``stringValue``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
