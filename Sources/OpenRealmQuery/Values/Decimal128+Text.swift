extension Decimal128 {
    /// Parses a decimal number.
    ///
    /// Accepted, with an optional leading `+` or `-` and no surrounding spaces:
    /// - decimal notation: `12`, `-0.5`, `.25`, `3.`;
    /// - scientific notation: any of those followed by `e` or `E` and a signed or
    ///   unsigned exponent: `1.5E+3`, `25e-1`;
    /// - `NaN` and `Inf` / `Infinity`, in any letter case (`-inf` is negative infinity).
    ///
    /// Digits past the 34th significant one are rounded half to even. The exponent of
    /// the last kept digit is kept (`"1.50"` keeps its two decimals; it equals `1.5`).
    /// Zeros with exponents beyond the range are clamped into it.
    ///
    /// - Parameter string: The text to parse.
    /// - Throws: ``RealmError`` with code `.invalidValue`, naming the string, if it is
    ///   not a number in this syntax, or if it is a nonzero number whose magnitude is
    ///   beyond ``max`` or so small it rounds to zero.
    public init(string: String) throws {
        switch DecimalText.parse(string) {
        case .success(let value):
            self = value
        case .failure(let problem):
            throw RealmError(.invalidValue, "Invalid Decimal128 string '\(string)': \(problem.message)")
        }
    }
}

/// Decimal128's text form: the parser behind ``Decimal128/init(string:)`` and the
/// formatter behind ``Decimal128/stringValue``.
enum DecimalText {
    enum Problem: Error {
        case syntax, overflow, underflow

        var message: String {
            switch self {
            case .syntax: "not a decimal number"
            case .overflow: "its magnitude is above the largest Decimal128"
            case .underflow: "its magnitude is below the smallest nonzero Decimal128"
            }
        }
    }

    /// Exponents beyond this are clamped while parsing: any nonzero number with such
    /// an exponent overflows or underflows whatever its digits.
    private static let exponentClamp = 100_000_000

    static func parse(_ string: String) -> Result<Decimal128, Problem> {
        var text = string
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<Decimal128, Problem> {
        var i = 0
        let n = bytes.count
        var negative = false
        if i < n && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        if i < n, isLetter(bytes[i]) {
            if matches(bytes, from: i, "nan") { return .success(.nan) }
            if matches(bytes, from: i, "inf") || matches(bytes, from: i, "infinity") {
                return .success(.infinity(negative: negative))
            }
            return .failure(.syntax)
        }

        // The first 35 significant digits make the coefficient; later ones only count
        // towards the exponent and, when nonzero, the sticky bit.
        var coefficient: UInt128 = 0
        var significant = 0
        var sticky = false
        var exponent = 0 // of the coefficient's last digit, before the written exponent
        var digitCount = 0
        var seenPoint = false
        while i < n {
            let byte = bytes[i]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let digit = byte - UInt8(ascii: "0")
                digitCount += 1
                if significant < DecimalParts.maxDigits + 1 {
                    if significant > 0 || digit != 0 {
                        coefficient = coefficient * 10 + UInt128(digit)
                        significant += 1
                    }
                    if seenPoint { exponent -= 1 }
                } else {
                    sticky = sticky || digit != 0
                    if !seenPoint { exponent += 1 }
                }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            i += 1
        }
        guard digitCount > 0 else { return .failure(.syntax) }
        if i < n {
            guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return .failure(.syntax) }
            i += 1
            var exponentNegative = false
            if i < n && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            var exponentDigits = 0
            while i < n, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                written = Swift.min(written * 10 + Int(bytes[i] - UInt8(ascii: "0")), exponentClamp)
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0, i == n else { return .failure(.syntax) }
            exponent += exponentNegative ? -written : written
        }
        exponent = Swift.max(-exponentClamp, Swift.min(exponent, exponentClamp))
        if coefficient == 0 {
            let clamped = Swift.max(Int(DecimalParts.minExponent), Swift.min(exponent, Int(DecimalParts.maxExponent)))
            return .success(DecimalParts(negative: negative, coefficient: 0, exponent: Int32(clamped)).packed)
        }
        let value = DecimalParts.rounded(negative: negative, coefficient: coefficient,
                                         exponent: Int32(exponent), sticky: sticky)
        let parts = value.parts
        if parts.kind == .infinity { return .failure(.overflow) }
        if parts.coefficient == 0 { return .failure(.underflow) }
        return .success(value)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// Whether the bytes from `start` to the end spell `word` (lowercase ASCII) in any case.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ word: StaticString) -> Bool {
        guard bytes.count - start == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { letters in
            for k in 0..<letters.count where bytes[start + k] | 0x20 != letters[k] {
                return false
            }
            return true
        }
    }

    // MARK: Formatting

    /// The canonical text of a decimal; see ``Decimal128/stringValue``.
    static func format(_ p: DecimalParts) -> String {
        switch p.kind {
        case .nan: return "NaN"
        case .infinity: return p.negative ? "-Inf" : "Inf"
        case .finite: break
        }
        if p.coefficient == 0 { return p.negative ? "-0" : "0" }
        var coefficient = p.coefficient
        var exponent = p.exponent
        var digitCount = DecimalParts.digits(coefficient)
        if exponent > 0 && digitCount + Int(exponent) <= DecimalParts.maxDigits {
            // An integer that fits 34 digits is written out.
            coefficient *= DecimalParts.pow10(Int(exponent))
            digitCount += Int(exponent)
            exponent = 0
        } else if exponent != 0 {
            // Otherwise the shortest coefficient, stopping at exponent 0 for integers.
            while exponent < 0 && coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
            if exponent > 0 { (coefficient, exponent) = DecimalParts.withoutTrailingZeros(coefficient, exponent) }
            digitCount = DecimalParts.digits(coefficient)
        }

        // At most 34 digits, a sign, "0.", six zeros / a point, and "E+6144": 64 bytes.
        return String(unsafeUninitializedCapacity: 64) { out in
            var digits = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0)) // 40 bytes of scratch
            return withUnsafeMutableBytes(of: &digits) { scratch in
                var c = coefficient
                for k in stride(from: digitCount - 1, through: 0, by: -1) {
                    let (q, r) = c.quotientAndRemainder(dividingBy: 10)
                    scratch[k] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: r)
                    c = q
                }
                var length = 0
                func put(_ byte: UInt8) {
                    out[length] = byte
                    length += 1
                }
                if p.negative { put(UInt8(ascii: "-")) }
                let adjusted = Int(exponent) + digitCount - 1
                if exponent <= 0 && adjusted >= -6 {
                    let pointAt = digitCount + Int(exponent) // digits before the point
                    if pointAt <= 0 {
                        put(UInt8(ascii: "0"))
                        put(UInt8(ascii: "."))
                        for _ in 0 ..< -pointAt { put(UInt8(ascii: "0")) }
                        for k in 0..<digitCount { put(scratch[k]) }
                    } else {
                        for k in 0..<digitCount {
                            if k == pointAt { put(UInt8(ascii: ".")) }
                            put(scratch[k])
                        }
                    }
                } else {
                    put(scratch[0])
                    if digitCount > 1 {
                        put(UInt8(ascii: "."))
                        for k in 1..<digitCount { put(scratch[k]) }
                    }
                    put(UInt8(ascii: "E"))
                    put(adjusted < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                    var magnitude = adjusted.magnitude
                    var exponentDigits = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
                    let count = withUnsafeMutableBytes(of: &exponentDigits) { buffer in
                        var count = 0
                        repeat {
                            buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                            magnitude /= 10
                            count += 1
                        } while magnitude > 0
                        return count
                    }
                    withUnsafeBytes(of: exponentDigits) { buffer in
                        for k in stride(from: count - 1, through: 0, by: -1) { put(buffer[k]) }
                    }
                }
                return length
            }
        }
    }
}
