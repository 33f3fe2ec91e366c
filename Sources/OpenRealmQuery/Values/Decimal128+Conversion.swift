import Foundation

extension Decimal128 {
    /// Converts a number, as the Realm Swift SDK does: integers (signed or unsigned)
    /// exactly, `Float` and `Double` to the shortest decimal that reads back as the
    /// same double (so `0.1` is one tenth, and integral doubles below 10^34 are
    /// exact), an `NSDecimalNumber` through its digits.
    ///
    /// Never fails: NaN and infinities convert to themselves.
    public init(number: NSNumber) {
        if let decimalNumber = number as? NSDecimalNumber {
            self.init(foundationDecimal: decimalNumber.decimalValue)
            return
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            self.init(double: number.doubleValue)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            self.init(integer: number.uint64Value, exactOnly: false)!
        default:
            self.init(integer: number.int64Value, exactOnly: false)!
        }
    }

    /// Converts any of the values the Realm Swift SDK converts:
    ///
    /// - `Decimal128` (itself);
    /// - any integer type (exactly up to 34 digits, rounded half to even beyond);
    /// - `Double`, `Float` and other binary floating-point types (through `Double`,
    ///   as ``init(number:)``);
    /// - `String` and `Substring` (as ``init(string:)``);
    /// - `Decimal` and `NSNumber`; `Bool` as 1 or 0;
    /// - `nil` and `NSNull`, which give NaN.
    ///
    /// Stops the program, naming the value, for any other type and for a string that
    /// is not a decimal number (as the Realm Swift SDK documents); use
    /// ``init(string:)`` to handle bad strings as thrown errors.
    public init(value: Any) {
        if let converted = Decimal128.convert(value) {
            self = converted
        } else if let string = Decimal128.text(value) {
            do {
                try self.init(string: string)
            } catch {
                preconditionFailure("Cannot convert value '\(string)' to Decimal128: \(error)")
            }
        } else {
            preconditionFailure("Cannot convert value '\(value)' of type '\(type(of: value))' to Decimal128")
        }
    }

    private static func convert(_ value: Any) -> Decimal128? {
        switch value {
        case let decimal as Decimal128: return decimal
        case let double as Double: return Decimal128(double: double)
        case let float as Float: return Decimal128(double: Double(float))
        case let decimal as Decimal: return Decimal128(foundationDecimal: decimal)
        case is NSNull: return .nan
        case let bool as Bool: return bool ? 1 : 0
        case let decimalNumber as NSDecimalNumber: return Decimal128(foundationDecimal: decimalNumber.decimalValue)
        case let number as NSNumber: return Decimal128(number: number)
        case let integer as any BinaryInteger: return Decimal128(integer: integer, exactOnly: false)
        case let floating as any BinaryFloatingPoint: return Decimal128(double: Double(floating))
        default: break
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first else { return .nan }
            return Decimal128(value: wrapped.value)
        }
        return nil
    }

    private static func text(_ value: Any) -> String? {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let string as NSString: return string as String
        default: return nil
        }
    }

    /// The integer rounded half to even to 34 digits, or when `exactOnly` nil if that
    /// rounding would change it.
    init?<T: BinaryInteger>(integer: T, exactOnly: Bool) {
        var magnitude = integer.magnitude
        var exponent: Int32 = 0
        var sticky = false
        // Integers of 10^38 and up first lose digits into the sticky bit; at least 37
        // digits stay, so `rounded` still drops (and rounds on) the digits above them.
        if let bound = T.Magnitude(exactly: DecimalParts.pow10(38)) {
            while magnitude >= bound {
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                sticky = sticky || remainder != 0
                magnitude = quotient
                exponent += 1
            }
        }
        let coefficient = UInt128(magnitude)
        if exactOnly {
            if sticky { return nil }
            var kept = coefficient
            while kept > DecimalParts.maxCoefficient {
                let (quotient, remainder) = kept.quotientAndRemainder(dividingBy: 10)
                if remainder != 0 { return nil }
                kept = quotient
            }
        }
        let result = DecimalParts.rounded(negative: integer < 0, coefficient: coefficient, exponent: exponent, sticky: sticky)
        if exactOnly && result.parts.kind != .finite { return nil }
        self = result
    }

    /// The decimal ORCore compares a double as (`dec_from_double` in value.c): NaN,
    /// infinities and zeros as themselves, integral doubles below 10^34 exactly, others
    /// as the shortest decimal (at most 17 digits) that reads back as the double.
    init(double value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = .infinity(negative: value < 0); return }
        if value == 0 {
            self = DecimalParts(negative: value.sign == .minus, coefficient: 0, exponent: 0).packed
            return
        }
        if value == value.rounded(.towardZero) && Swift.abs(value) < 1e34 {
            self = DecimalParts(negative: value < 0, coefficient: UInt128(Swift.abs(value)), exponent: 0).packed
            return
        }
        // The shortest correctly rounded %e text that reads back as the double: the
        // C library's printf and strtod, exactly as ORCore finds it.
        var (coefficient, exponent) = Decimal128.shortestDigits(Swift.abs(value))
        while exponent > 0 && coefficient < DecimalParts.pow10(33) { // 1e40 as 10^33 × 10^7
            coefficient *= 10
            exponent -= 1
        }
        self = DecimalParts.rounded(negative: value < 0, coefficient: coefficient, exponent: exponent, sticky: false)
    }

    /// The digits and exponent of the shortest `%.Ne` rendering of positive finite
    /// `value` that `strtod` reads back exactly.
    private static func shortestDigits(_ value: Double) -> (UInt128, Int32) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer in
            let text = buffer.baseAddress!
            for precision in Int32(0)...16 {
                _ = withVaList([precision, value]) { vsnprintf(text, 48, "%.*e", $0) }
                if strtod(text, nil) == value { break }
            }
            var coefficient: UInt128 = 0
            var fractionDigits: Int32 = 0
            var afterFirst = false
            var k = 0
            while text[k] != 0 && text[k] != CChar(UInt8(ascii: "e")) && text[k] != CChar(UInt8(ascii: "E")) {
                let byte = UInt8(bitPattern: text[k])
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    coefficient = coefficient * 10 + UInt128(byte - UInt8(ascii: "0"))
                    if afterFirst { fractionDigits += 1 }
                    afterFirst = true
                }
                k += 1
            }
            var exponent: Int32 = 0
            if text[k] != 0 { exponent = Int32(strtol(text + k + 1, nil, 10)) }
            return (coefficient, exponent - fractionDigits)
        }
    }

    private init(foundationDecimal decimal: Decimal) {
        if decimal.isNaN {
            self = .nan
            return
        }
        let parsed = DecimalText.parse(decimal.description)
        switch parsed {
        case .success(let value): self = value
        case .failure: self = .nan
        }
    }

    /// The double nearest this decimal, rounded once (as ORCore's `dec_to_double`).
    public var doubleValue: Double {
        let p = parts
        switch p.kind {
        case .nan: return .nan
        case .infinity: return p.negative ? -.infinity : .infinity
        case .finite: break
        }
        var result: Double
        if p.coefficient == 0 {
            result = 0
        } else if p.coefficient < (1 << 53) && p.exponent >= -22 && p.exponent <= 22 {
            // Both operands are exact doubles, so one correctly rounded operation suffices.
            let c = Double(UInt64(truncatingIfNeeded: p.coefficient))
            let scale = Decimal128.exactPowersOfTen[Int(p.exponent.magnitude)]
            result = p.exponent >= 0 ? c * scale : c / scale
        } else {
            // strtod rounds correctly; digits and an exponent need no locale.
            result = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                var c = p.coefficient
                let count = DecimalParts.digits(c)
                for k in stride(from: count - 1, through: 0, by: -1) {
                    let (q, r) = c.quotientAndRemainder(dividingBy: 10)
                    buffer[k] = CChar(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: r))
                    c = q
                }
                var k = count
                buffer[k] = CChar(UInt8(ascii: "e"))
                k += 1
                var e = Int(p.exponent)
                if e < 0 {
                    buffer[k] = CChar(UInt8(ascii: "-"))
                    k += 1
                    e = -e
                }
                let start = k
                repeat {
                    buffer[k] = CChar(UInt8(ascii: "0") + UInt8(e % 10))
                    e /= 10
                    k += 1
                } while e > 0
                buffer[start..<k].reverse()
                buffer[k] = 0
                return strtod(buffer.baseAddress!, nil)
            }
        }
        return p.negative ? -result : result
    }

    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// This number as a Foundation `Decimal`, which holds 38 digits but only exponents
    /// from -128 to 127: numbers beyond that, infinities and NaN give `Decimal.nan`.
    public var decimalValue: Decimal {
        let p = parts
        guard p.kind == .finite else { return .nan }
        if p.coefficient == 0 { return Decimal(0) }
        let (coefficient, exponent) = DecimalParts.withoutTrailingZeros(p.coefficient, p.exponent)
        // Decimal's mantissa is 128 bits, so the coefficient fits whenever the exponent does.
        guard exponent >= -128 && exponent <= 127 else { return .nan }
        return Decimal(string: "\(p.negative ? "-" : "")\(coefficient)e\(exponent)",
                       locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }
}
