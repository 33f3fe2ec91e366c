/// A decoded ``Decimal128``: a kind, a sign, and for finite numbers the value
/// `coefficient × 10^exponent`.
///
/// Decoding follows ORCore (`value.c`): a coefficient field of 10^34 or more, and
/// the IEEE "large coefficient" form (bits 62–61 = 11, which always holds one),
/// are non-canonical and read as zero with the encoded exponent. Encoding packs a
/// coefficient below 10^34 and an exponent in ``minExponent`` ... ``maxExponent``;
/// ``rounded(negative:coefficient:exponent:sticky:)`` brings any exact result there.
struct DecimalParts {
    enum Kind {
        case finite, infinity, nan
    }

    var kind: Kind
    var negative: Bool
    /// Below 10^34 for finite numbers; 0 for infinities and NaN.
    var coefficient: UInt128
    /// The exponent of the coefficient's last digit.
    var exponent: Int32

    static let exponentBias: Int32 = 6176
    static let minExponent: Int32 = -6176
    static let maxExponent: Int32 = 6111
    static let maxDigits = 34
    static let maxCoefficient: UInt128 = 9_999_999_999_999_999_999_999_999_999_999_999

    static let signBit: UInt64 = 1 << 63
    static let nanMask: UInt64 = 0x7C00_0000_0000_0000
    static let infinityMask: UInt64 = 0x7800_0000_0000_0000
    private static let coefficientHighMask: UInt64 = (1 << 49) - 1

    init(negative: Bool, coefficient: UInt128, exponent: Int32) {
        kind = .finite
        self.negative = negative
        self.coefficient = coefficient
        self.exponent = exponent
    }

    /// Decodes BID bits.
    @inline(__always)
    init(_ d: Decimal128) {
        let hi = d.bidHigh
        negative = hi & DecimalParts.signBit != 0
        coefficient = 0
        if (hi >> 61) & 3 == 3 {
            switch (hi >> 58) & 0x1F {
            case 0x1F:
                kind = .nan
                exponent = 0
            case 0x1E:
                kind = .infinity
                exponent = 0
            default:
                kind = .finite
                exponent = Int32(truncatingIfNeeded: (hi >> 47) & 0x3FFF) - DecimalParts.exponentBias
            }
            return
        }
        kind = .finite
        exponent = Int32(truncatingIfNeeded: (hi >> 49) & 0x3FFF) - DecimalParts.exponentBias
        let c = UInt128(hi & DecimalParts.coefficientHighMask) << 64 | UInt128(d.bidLow)
        coefficient = c > DecimalParts.maxCoefficient ? 0 : c
    }

    /// The BID bits; a finite value must already be in range (see `rounded`).
    var packed: Decimal128 {
        let sign = negative ? DecimalParts.signBit : 0
        switch kind {
        case .nan:
            return Decimal128.nan
        case .infinity:
            return Decimal128(bidLow: 0, bidHigh: DecimalParts.infinityMask | sign)
        case .finite:
            precondition(coefficient <= DecimalParts.maxCoefficient
                && exponent >= DecimalParts.minExponent && exponent <= DecimalParts.maxExponent)
            let biased = UInt64(exponent + DecimalParts.exponentBias)
            return Decimal128(bidLow: UInt64(truncatingIfNeeded: coefficient),
                              bidHigh: sign | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64))
        }
    }

    var isZero: Bool { kind == .finite && coefficient == 0 }

    // MARK: Powers of ten and digit counts

    private static let powersOfTen: [UInt128] = {
        var table = [UInt128](repeating: 1, count: 39)
        for i in 1..<39 { table[i] = table[i - 1] * 10 }
        return table
    }()

    /// 10^n for n in 0 ... 38.
    @inline(__always)
    static func pow10(_ n: Int) -> UInt128 { powersOfTen[n] }

    /// The number of decimal digits of `c` (1 for 0).
    static func digits(_ c: UInt128) -> Int {
        if c == 0 { return 1 }
        // floor(bits × log10 2) is the digit count or one less.
        let estimate = ((128 - c.leadingZeroBitCount) * 1233) >> 12
        return c < powersOfTen[estimate] ? estimate : estimate + 1
    }

    /// `c × 10^e` with the coefficient's trailing zeros moved into the exponent.
    static func withoutTrailingZeros(_ c: UInt128, _ e: Int32) -> (UInt128, Int32) {
        var c = c
        var e = e
        guard c != 0 else { return (0, e) }
        if c >> 64 == 0 {
            var small = UInt64(truncatingIfNeeded: c)
            while small % 10 == 0 {
                small /= 10
                e += 1
            }
            return (UInt128(small), e)
        }
        while c % 10 == 0 {
            c /= 10
            e += 1
        }
        return (c, e)
    }

    // MARK: Comparison

    /// ORCore's three-way comparison of two decimals (`dec_cmp_parts` in value.c).
    static func compare(_ a: DecimalParts, _ b: DecimalParts) -> Int {
        if a.kind == .nan || b.kind == .nan {
            return (b.kind == .nan ? 1 : 0) - (a.kind == .nan ? 1 : 0)
        }
        // Zero of either sign lies between the negatives and the positives.
        let sa = a.isZero ? 0 : (a.negative ? -1 : 1)
        let sb = b.isZero ? 0 : (b.negative ? -1 : 1)
        if sa != sb { return sa < sb ? -1 : 1 }
        if sa == 0 { return 0 }
        let magnitude: Int
        if a.kind == .infinity || b.kind == .infinity {
            magnitude = (a.kind == .infinity ? 1 : 0) - (b.kind == .infinity ? 1 : 0)
        } else if a.exponent == b.exponent {
            magnitude = a.coefficient < b.coefficient ? -1 : (a.coefficient > b.coefficient ? 1 : 0)
        } else {
            // A value lies in [10^(digits-1+exp), 10^(digits+exp)).
            let ma = digits(a.coefficient) + Int(a.exponent)
            let mb = digits(b.coefficient) + Int(b.exponent)
            if ma != mb {
                magnitude = ma < mb ? -1 : 1
            } else {
                // Same magnitude: the exponents differ by at most 33, so scaling fits.
                var ca = a.coefficient
                var cb = b.coefficient
                if a.exponent > b.exponent {
                    ca *= pow10(Int(a.exponent - b.exponent))
                } else {
                    cb *= pow10(Int(b.exponent - a.exponent))
                }
                magnitude = ca < cb ? -1 : (ca > cb ? 1 : 0)
            }
        }
        return sa < 0 ? -magnitude : magnitude
    }

    // MARK: Rounding

    /// The decimal nearest `coefficient × 10^exponent`, half to even, with at most 34
    /// digits and the exponent in range: digits below the minimum exponent are
    /// rounded away (gradual underflow), a too-large exponent is brought down by
    /// adding trailing zeros when they fit, and anything larger is infinity.
    ///
    /// `sticky` says the exact value is slightly above `coefficient × 10^exponent`
    /// (some nonzero digits were already dropped below its last digit); callers that
    /// set it pass at least 35 digits, so that the last digit is dropped here too.
    /// Matches ORCore's `dec_round_pack`.
    static func rounded(negative: Bool, coefficient: UInt128, exponent: Int32, sticky: Bool) -> Decimal128 {
        var c = coefficient
        var e = exponent
        var sticky = sticky
        var dropped: UInt128 = 0 // the highest dropped digit
        let limit = maxCoefficient + 1
        while c >= limit || e < minExponent {
            if c == 0 { // underflow: whatever was dropped is below half a unit
                sticky = sticky || dropped != 0
                dropped = 0
                e = minExponent
                break
            }
            sticky = sticky || dropped != 0
            (c, dropped) = c.quotientAndRemainder(dividingBy: 10)
            e += 1
        }
        if dropped > 5 || (dropped == 5 && (sticky || c & 1 == 1)) {
            c += 1
            if c == limit {
                c /= 10
                e += 1
            }
        }
        while e > maxExponent && c != 0 && c * 10 < limit { // clamp: add trailing zeros
            c *= 10
            e -= 1
        }
        if e > maxExponent {
            if c != 0 { return Decimal128.infinity(negative: negative) }
            e = maxExponent
        }
        return DecimalParts(negative: negative, coefficient: c, exponent: e).packed
    }
}
