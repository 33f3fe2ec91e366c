/// Arithmetic with IEEE 754 semantics: each result is the exact result rounded half
/// to even to 34 digits, with the exponent IEEE prefers when it is exact (the smaller
/// operand exponent for sums, the sum of exponents for products, their difference
/// for quotients). Overflow gives an infinity, 0 / 0, ∞ − ∞ and 0 × ∞ give NaN, and
/// a NaN operand gives NaN.
extension Decimal128: SignedNumeric {
    public typealias Magnitude = Decimal128

    /// Creates the integer if Decimal128 holds it exactly: always for integers of up
    /// to 34 digits, and for longer ones whose digits past the 34th are zeros.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = Decimal128(integer: source, exactOnly: true) else { return nil }
        self = value
    }

    /// The absolute value: the same number with its sign cleared (NaN stays NaN).
    public var magnitude: Decimal128 {
        isNaN ? self : Decimal128(bidLow: bidLow, bidHigh: bidHigh & ~DecimalParts.signBit)
    }

    /// Flips the sign, exactly (NaN stays NaN).
    public mutating func negate() {
        if !isNaN { bidHigh ^= DecimalParts.signBit }
    }

    public static prefix func - (operand: Decimal128) -> Decimal128 {
        var result = operand
        result.negate()
        return result
    }

    public static var zero: Decimal128 { Decimal128() }

    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        DecimalArithmetic.add(lhs.parts, rhs.parts)
    }

    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        var negated = rhs.parts
        negated.negative.toggle()
        return DecimalArithmetic.add(lhs.parts, negated)
    }

    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        DecimalArithmetic.multiply(lhs.parts, rhs.parts)
    }

    /// The quotient; a nonzero number divided by zero is a signed infinity, 0 / 0 NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        DecimalArithmetic.divide(lhs.parts, rhs.parts)
    }

    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }
}

extension Decimal128 {
    /// The distance type of ``distance(to:)`` and ``advanced(by:)``.
    public typealias Stride = Decimal128

    /// `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }
}

/// The operations behind Decimal128's operators, on decoded operands.
enum DecimalArithmetic {
    static func add(_ a: DecimalParts, _ b: DecimalParts) -> Decimal128 {
        if a.kind == .nan || b.kind == .nan { return .nan }
        if a.kind == .infinity || b.kind == .infinity {
            if a.kind == .infinity && b.kind == .infinity && a.negative != b.negative { return .nan }
            return .infinity(negative: a.kind == .infinity ? a.negative : b.negative)
        }
        if a.coefficient == 0 && b.coefficient == 0 {
            // Round half to even makes x + (-x) positive; only -0 + -0 is negative.
            return DecimalParts.rounded(negative: a.negative && b.negative, coefficient: 0,
                                        exponent: Swift.min(a.exponent, b.exponent), sticky: false)
        }
        // x gets the larger exponent; the exact sum's exponent is y's.
        let (x, y) = a.exponent >= b.exponent ? (a, b) : (b, a)
        if x.coefficient == 0 { return y.packed }
        let d = Int(x.exponent - y.exponent)
        let dx = DecimalParts.digits(x.coefficient)
        let cx: UInt128
        let cy: UInt128
        let exponent: Int32
        var sticky = false
        if dx + d <= 38 { // exact: x × 10^d < 10^38, and the sum still fits 128 bits
            cx = x.coefficient * DecimalParts.pow10(d)
            cy = y.coefficient
            exponent = y.exponent
        } else {
            // y lies far below x's last digit: give x 38 digits and keep what of y reaches them.
            let s = 38 - dx
            let shift = d - s
            cx = x.coefficient * DecimalParts.pow10(s)
            exponent = x.exponent - Int32(s)
            if shift > 38 {
                cy = 0
                sticky = y.coefficient != 0
            } else {
                let (q, r) = y.coefficient.quotientAndRemainder(dividingBy: DecimalParts.pow10(shift))
                cy = q
                sticky = r != 0
            }
        }
        if x.negative == y.negative {
            return DecimalParts.rounded(negative: x.negative, coefficient: cx + cy, exponent: exponent, sticky: sticky)
        }
        if cx >= cy {
            // cx − (cy + f) with 0 < f < 1 is (diff − 1) + (1 − f).
            var difference = cx - cy
            if sticky { difference -= 1 }
            if difference == 0 && !sticky {
                return DecimalParts.rounded(negative: false, coefficient: 0, exponent: exponent, sticky: false)
            }
            return DecimalParts.rounded(negative: x.negative, coefficient: difference, exponent: exponent, sticky: sticky)
        }
        // Only reachable in the exact case, where sticky is false.
        return DecimalParts.rounded(negative: y.negative, coefficient: cy - cx, exponent: exponent, sticky: false)
    }

    static func multiply(_ a: DecimalParts, _ b: DecimalParts) -> Decimal128 {
        if a.kind == .nan || b.kind == .nan { return .nan }
        let negative = a.negative != b.negative
        if a.kind == .infinity || b.kind == .infinity {
            if a.isZero || b.isZero { return .nan }
            return .infinity(negative: negative)
        }
        var exponent = a.exponent + b.exponent
        let product = a.coefficient.multipliedFullWidth(by: b.coefficient)
        var wide = WideUInt(high: product.high, low: product.low)
        var sticky = false
        // Drop digits until the product fits 128 bits, keeping at least 35 of them
        // so that rounding still drops (and rounds on) a digit below the result's last.
        while wide.high != 0 {
            // At or above 2^192 (> 6 × 10^57) 19 digits can go; at or above 2^128
            // (> 3 × 10^38) three can.
            let digits = wide.high >> 64 != 0 ? 19 : 3
            let remainder = wide.divide(by: UInt64(DecimalParts.pow10(digits)))
            sticky = sticky || remainder != 0
            exponent += Int32(digits)
        }
        return DecimalParts.rounded(negative: negative, coefficient: wide.low, exponent: exponent, sticky: sticky)
    }

    static func divide(_ a: DecimalParts, _ b: DecimalParts) -> Decimal128 {
        if a.kind == .nan || b.kind == .nan { return .nan }
        let negative = a.negative != b.negative
        if a.kind == .infinity {
            return b.kind == .infinity ? .nan : .infinity(negative: negative)
        }
        if b.kind == .infinity { // finite / ∞: zero with the lowest exponent
            return DecimalParts(negative: negative, coefficient: 0, exponent: DecimalParts.minExponent).packed
        }
        if b.coefficient == 0 {
            return a.coefficient == 0 ? .nan : .infinity(negative: negative)
        }
        let idealExponent = a.exponent - b.exponent
        if a.coefficient == 0 {
            return DecimalParts.rounded(negative: negative, coefficient: 0, exponent: idealExponent, sticky: false)
        }
        let divisor = b.coefficient
        var (q, r) = a.coefficient.quotientAndRemainder(dividingBy: divisor)
        var exponent = idealExponent
        // Long division until exact or 35 digits (one to round on). r < divisor < 10^34,
        // so r × 10 and q × 10 + digit stay below 10^35. An exact quotient stops at the
        // exponent nearest the ideal one, as IEEE asks.
        let limit = DecimalParts.maxCoefficient + 1
        while r != 0 && q < limit {
            r *= 10
            let (digit, rest) = r.quotientAndRemainder(dividingBy: divisor)
            q = q * 10 + digit
            r = rest
            exponent -= 1
        }
        return DecimalParts.rounded(negative: negative, coefficient: q, exponent: exponent, sticky: r != 0)
    }
}

/// A 256-bit unsigned integer, just enough for a product of two coefficients.
struct WideUInt {
    var high: UInt128
    var low: UInt128

    /// Divides in place by `divisor` and returns the remainder.
    mutating func divide(by divisor: UInt64) -> UInt64 {
        var limbs = (UInt64(truncatingIfNeeded: high >> 64), UInt64(truncatingIfNeeded: high),
                     UInt64(truncatingIfNeeded: low >> 64), UInt64(truncatingIfNeeded: low))
        var remainder: UInt64 = 0
        (limbs.0, remainder) = divisor.dividingFullWidth((remainder, limbs.0))
        (limbs.1, remainder) = divisor.dividingFullWidth((remainder, limbs.1))
        (limbs.2, remainder) = divisor.dividingFullWidth((remainder, limbs.2))
        (limbs.3, remainder) = divisor.dividingFullWidth((remainder, limbs.3))
        high = UInt128(limbs.0) << 64 | UInt128(limbs.1)
        low = UInt128(limbs.2) << 64 | UInt128(limbs.3)
        return remainder
    }
}
