import Foundation
import ORCore
@testable import OpenRealmQuery
import XCTest
import OpenRealmTestSupport

/// Decimal128: text in and out, IEEE arithmetic against reference results, and the
/// order and double conversion checked against ORCore's own `orc_value_compare`.
final class Decimal128Tests: XCTestCase {
    // MARK: Helpers

    /// Parses text the test itself controls.
    private func dec(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Decimal128 {
        do {
            return try Decimal128(string: text)
        } catch {
            XCTFail("'\(text)' did not parse: \(error)", file: file, line: line)
            return .nan
        }
    }

    /// The exact encoding of `coefficient × 10^exponent`.
    private func bits(_ negative: Bool, _ coefficient: UInt128, _ exponent: Int32) -> Decimal128 {
        DecimalParts(negative: negative, coefficient: coefficient, exponent: exponent).packed
    }

    private func assertSameBits(_ a: Decimal128, _ b: Decimal128, _ message: String = "",
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(a.bidLow == b.bidLow && a.bidHigh == b.bidHigh,
                      "\(a) [\(hex(a))] is not bit-identical to \(b) [\(hex(b))] \(message)", file: file, line: line)
    }

    private func hex(_ d: Decimal128) -> String {
        String(d.bidHigh, radix: 16) + ":" + String(d.bidLow, radix: 16)
    }

    private func decimalValue(_ d: Decimal128) -> orc_value {
        var v = orc_value()
        v.type = ORC_TYPE_DECIMAL
        v.decimal.w = (d.bidLow, d.bidHigh)
        return v
    }

    private func orcCompare(_ a: Decimal128, _ b: Decimal128) -> Int {
        var x = decimalValue(a)
        var y = decimalValue(b)
        return Int(orc_value_compare(&x, &y).signum())
    }

    // MARK: Text

    func testStringValueIsCanonicalAndReadsBack() {
        let cases: [(String, String)] = [
            ("0", "0"), ("-0", "-0"), ("0.000", "0"), ("0E+20", "0"), ("+7", "7"),
            ("1.5", "1.5"), ("1.50", "1.5"), ("1.500000", "1.5"), ("-2.25E+40", "-2.25E+40"),
            ("225e38", "2.25E+40"), ("1E3", "1000"), ("1.5e3", "1500"), ("1500", "1500"),
            ("0.001", "0.001"), ("1E-3", "0.001"), ("0.000001", "0.000001"), ("0.0000001", "1E-7"),
            ("-12.5E-8", "-1.25E-7"), ("123.456", "123.456"), (".25", "0.25"), ("3.", "3"),
            ("1E+33", "1000000000000000000000000000000000"), ("1E+34", "1E+34"),
            ("9999999999999999999999999999999999", "9999999999999999999999999999999999"),
            ("1234567890123456789012345678901234E-20", "12345678901234.56789012345678901234"),
            ("NaN", "NaN"), ("-nan", "NaN"), ("Inf", "Inf"), ("-Infinity", "-Inf"), ("+INF", "Inf"),
            ("1E-6176", "1E-6176"), ("9.999999999999999999999999999999999E+6144", "9.999999999999999999999999999999999E+6144"),
        ]
        for (input, expected) in cases {
            let value = dec(input)
            XCTAssertEqual(value.stringValue, expected, "stringValue of '\(input)'")
            XCTAssertEqual(value.description, expected)
            let back = dec(value.stringValue)
            XCTAssertTrue(back == value, "'\(expected)' reads back to \(back), not the value of '\(input)'")
        }
    }

    func testParsingKeepsTheWrittenExponent() {
        assertSameBits(dec("1.50"), bits(false, 150, -2))
        assertSameBits(dec("-1.5E+3"), bits(true, 15, 2))
        assertSameBits(dec("000123"), bits(false, 123, 0))
        assertSameBits(dec("0.0000"), bits(false, 0, -4))
        assertSameBits(dec("-0"), bits(true, 0, 0))
        assertSameBits(dec("0E-9999"), bits(false, 0, -6176))
        assertSameBits(dec("0E+9999"), bits(false, 0, 6111))
        assertSameBits(Decimal128(), bits(false, 0, 0))
        XCTAssertEqual(Decimal128().bidHigh, 0x3040_0000_0000_0000)
        XCTAssertEqual(Decimal128().bidLow, 0)
        assertSameBits(dec("1"), Decimal128(bidLow: 1, bidHigh: 0x3040_0000_0000_0000))
        assertSameBits(dec("-1"), Decimal128(bidLow: 1, bidHigh: 0xB040_0000_0000_0000))
        assertSameBits(dec("NaN"), Decimal128(bidLow: 0, bidHigh: 0x7C00_0000_0000_0000))
        assertSameBits(dec("-Inf"), Decimal128(bidLow: 0, bidHigh: 0xF800_0000_0000_0000))
    }

    func testMoreThan34DigitsRoundHalfToEven() {
        // 35 digits: the last one decides.
        assertSameBits(dec("1234567890123456789012345678901234.4"), bits(false, 1234567890123456789012345678901234, 0))
        assertSameBits(dec("1234567890123456789012345678901234.6"), bits(false, 1234567890123456789012345678901235, 0))
        // Ties go to the even neighbour; anything past the tie breaks it upwards.
        assertSameBits(dec("1234567890123456789012345678901234.5"), bits(false, 1234567890123456789012345678901234, 0))
        assertSameBits(dec("1234567890123456789012345678901235.5"), bits(false, 1234567890123456789012345678901236, 0))
        assertSameBits(dec("1234567890123456789012345678901234.50000000001"), bits(false, 1234567890123456789012345678901235, 0))
        // Rounding up to 10^34 carries into the exponent.
        assertSameBits(dec("99999999999999999999999999999999995"), bits(false, 1_000_000_000_000_000_000_000_000_000_000_000, 2))
        // Integer digits past the 34th raise the exponent.
        assertSameBits(dec("-123456789012345678901234567890123456789"), bits(true, 1234567890123456789012345678901235, 5))
    }

    func testMalformedStringsThrowInvalidValue() {
        let bad = ["", " ", "1 ", " 1", "abc", "1.2.3", "1e", "1e+", "e5", ".", "-", "+", "--1", "+-1", "1,5",
                   "0x10", "1_000", "NaNa", "In", "infinit", "1e5.5", "١٢", "1E+-5", "five", "1d3", "∞"]
        for text in bad {
            XCTAssertThrowsError(try Decimal128(string: text), "'\(text)' should not parse") { error in
                guard let realmError = error as? RealmError else {
                    return XCTFail("'\(text)' threw \(error), not a RealmError")
                }
                XCTAssertEqual(realmError.code, .invalidValue)
                XCTAssertTrue(realmError.message.contains("'\(text)'"), "message \(realmError.message) names the input")
            }
        }
    }

    func testErrorsMatchByCodeInCatch() {
        do {
            _ = try Decimal128(string: "12 apples")
            XCTFail("parsed")
        } catch RealmError.invalidValue {
            // matched by code
        } catch {
            XCTFail("\(error) did not match .invalidValue")
        }
    }

    func testOutOfRangeStringsThrowAndRangeEdgesParse() {
        for text in ["1E+6145", "-1E+6145", "9.9999999999999999999999999999999995E+6144", "1E-6177", "5E-6177", "1E-99999999999999999999"] {
            XCTAssertThrowsError(try Decimal128(string: text), "'\(text)' is out of range") { error in
                XCTAssertEqual((error as? RealmError)?.code, .invalidValue)
            }
        }
        // The largest exponent folds down into trailing zeros; tiny numbers round (gradual underflow).
        assertSameBits(dec("1E+6144"), bits(false, 1_000_000_000_000_000_000_000_000_000_000_000, 6111))
        assertSameBits(dec("6E-6177"), bits(false, 1, -6176))
        assertSameBits(dec("2.5E-6176"), bits(false, 2, -6176))
        XCTAssertEqual(dec("9.999999999999999999999999999999999E+6144"), Decimal128.max)
        XCTAssertEqual(dec("-9.999999999999999999999999999999999E+6144"), Decimal128.min)
        XCTAssertEqual(Decimal128.maximumDecimalNumber, .max)
        XCTAssertEqual(Decimal128.minimumDecimalNumber, .min)
        XCTAssertTrue(Decimal128.min < Decimal128.max)
        XCTAssertTrue(Decimal128.max < dec("Inf"))
        XCTAssertTrue(Decimal128.max + dec("1E+6111") == dec("Inf"), "overflow gives infinity")
    }

    // MARK: Arithmetic

    func testArithmeticMatchesIEEEReferenceResults() {
        var checked = 0
        for line in decimal128ReferenceVectors.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words[0] == "parse" {
                let expected = words[3]
                let inputIsZero = words[1].prefix { $0 != "e" && $0 != "E" }.allSatisfy { !"123456789".contains($0) }
                if expected.hasSuffix("Inf") || (dec(expected).parts.coefficient == 0 && !inputIsZero) {
                    // Overflow and underflow to zero are refused rather than rounded.
                    XCTAssertThrowsError(try Decimal128(string: words[1]), String(line))
                } else {
                    assertSameBits(dec(words[1]), dec(expected), String(line))
                }
            } else {
                let a = dec(words[0]), b = dec(words[2]), expected = dec(words[4])
                let result: Decimal128
                switch words[1] {
                case "+": result = a + b
                case "-": result = a - b
                case "*": result = a * b
                default: result = a / b
                }
                assertSameBits(result, expected, String(line))
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 450)
    }

    func testArithmeticKnownResults() {
        // The Realm Swift SDK's own expectations.
        XCTAssertEqual((dec("1.234567") + dec("9.876543")).description, "11.11111")
        XCTAssertEqual((dec("2.5") - dec("3.5")).description, "-1")
        XCTAssertEqual(Decimal128(7) / Decimal128(3.5), 2)
        XCTAssertEqual(dec("0.21") / dec("0.7"), 0.3)
        XCTAssertEqual(Decimal128(7) * Decimal128(3.5), 24.5)
        XCTAssertEqual(dec("0.21") * dec("0.7"), 0.147)
        XCTAssertEqual(Decimal128(3.144444) + Decimal128(3.144444), 6.288888)
        XCTAssertEqual(Decimal128(-123.321).advanced(by: -123.321), -246.642)
        XCTAssertEqual(Decimal128(10.0).distance(to: 5.0), -5.0)

        // Decimal fractions are exact, unlike binary floating point.
        XCTAssertEqual(dec("0.1") + dec("0.2"), dec("0.3"))
        XCTAssertEqual((dec("1") / dec("3")).description, "0.3333333333333333333333333333333333")
        XCTAssertEqual((dec("2") / dec("3")).description, "0.6666666666666666666666666666666667")
        XCTAssertEqual((dec("1") / dec("8")).description, "0.125")
        XCTAssertEqual((dec("1E+10") / dec("1E-10")).description, "100000000000000000000")
        XCTAssertEqual((dec("9999999999999999999999999999999999") + 1).description, "1E+34")
        XCTAssertEqual((dec("1E+34") - 1).description, "9999999999999999999999999999999999")
        XCTAssertEqual((dec("0.5") * dec("0.5")).stringValue, "0.25")

        var x: Decimal128 = 10
        x += 5
        x -= 3
        x *= 2
        x /= 8
        XCTAssertEqual(x, 3)
        XCTAssertEqual(-x, -3)
        XCTAssertEqual((x - 10).magnitude, 7)

        // Signed zeros follow IEEE: x - x is +0, -0 + -0 is -0.
        XCTAssertEqual((dec("5") - dec("5")).stringValue, "0")
        XCTAssertEqual((dec("-0") + dec("-0")).stringValue, "-0")
        XCTAssertEqual((dec("-0") * dec("3")).stringValue, "-0")
    }

    func testSpecialValuesInArithmetic() {
        let inf = dec("Inf"), nan = Decimal128.nan, zero = Decimal128(), one: Decimal128 = 1
        XCTAssertTrue((inf - inf).isNaN)
        XCTAssertTrue((zero * inf).isNaN)
        XCTAssertTrue((zero / zero).isNaN)
        XCTAssertTrue((inf / inf).isNaN)
        XCTAssertTrue((nan + one).isNaN)
        XCTAssertTrue((one * nan).isNaN)
        XCTAssertEqual(one / zero, inf)
        XCTAssertEqual(-one / zero, -inf)
        XCTAssertEqual(one / -zero, -inf)
        XCTAssertEqual(inf + one, inf)
        XCTAssertEqual(-inf * one, -inf)
        XCTAssertEqual(one / inf, zero)
        XCTAssertEqual((one / -inf).stringValue, "-0")
        XCTAssertTrue(nan.magnitude.isNaN)
        XCTAssertTrue((-nan).isNaN)
        XCTAssertEqual((-inf).magnitude, inf)
    }

    // MARK: Order, equality, hashing

    func testEqualityIsNumericAndHashFollowsIt() {
        let groups: [[String]] = [
            ["1", "1.0", "1.00", "0.1E1", "100E-2", "1.000000000000000000000000000000000"],
            ["0", "-0", "0.000", "0E+100", "-0E-6176"],
            ["NaN", "-NaN"],
            ["1500", "1.5E3", "15E2", "150E1"],
            ["-2.25E+40", "-225E38", "-2250000000000000000000000000000000E7"],
        ]
        for group in groups {
            let values = group.map { dec($0) }
            for a in values {
                for b in values {
                    XCTAssertEqual(a, b)
                    XCTAssertEqual(a.hashValue, b.hashValue, "\(a) and \(b) are equal but hash differently")
                }
            }
            XCTAssertEqual(Set(values).count, 1)
        }
        // Non-canonical encodings read as zero.
        let oversized = Decimal128(bidLow: .max, bidHigh: 0x3041_FFFF_FFFF_FFFF) // coefficient field above 10^34
        let largeForm = Decimal128(bidLow: 5, bidHigh: 0x6000_0000_0000_0000)
        XCTAssertEqual(oversized, Decimal128())
        XCTAssertEqual(largeForm, Decimal128())
        XCTAssertEqual(oversized.hashValue, Decimal128().hashValue)
        XCTAssertNotEqual(dec("1"), dec("1.000000000000000000000000000000001"))
    }

    func testOrderPutsNaNFirstAndSortsNumerically() {
        let sorted = ["NaN", "-Inf", "-1E+6144", "-2", "-1.5", "-1E-6176", "0", "1E-6176", "0.1", "1", "1.5", "2",
                      "1E+33", "1E+34", "9.999999999999999999999999999999999E+6144", "Inf"].map { dec($0) }
        XCTAssertEqual(sorted.shuffled().sorted().map(\.stringValue), sorted.map(\.stringValue))
        for (i, a) in sorted.enumerated() {
            for (j, b) in sorted.enumerated() {
                XCTAssertEqual(a < b, i < j, "\(a) < \(b)")
                XCTAssertEqual(a <= b, i <= j)
                XCTAssertEqual(a > b, i > j)
                XCTAssertEqual(a >= b, i >= j)
                XCTAssertEqual(a == b, i == j)
            }
        }
        XCTAssertFalse(Decimal128.nan < Decimal128.nan)
        XCTAssertTrue(Decimal128.nan == Decimal128.nan)
        XCTAssertTrue(dec("-0") == dec("0"))
        XCTAssertFalse(dec("-0") < dec("0"))
    }

    func testOrderAndEqualityAgreeWithORCoreOnRandomPairs() {
        var rng = SplitMix64(seed: 0x5EED_DEC1_28)
        var values: [Decimal128] = []
        for _ in 0..<600 { values.append(randomDecimal(&rng)) }
        var pairs = 0
        for _ in 0..<6000 {
            let a = values[Int(rng.next() % UInt64(values.count))]
            // Half the pairs are a value against a numerically close or equal one.
            let b = rng.next() & 1 == 0 ? values[Int(rng.next() % UInt64(values.count))] : sibling(of: a, &rng)
            let expected = orcCompare(a, b)
            XCTAssertEqual(Decimal128.compare(a, b), expected, "compare \(hex(a)) vs \(hex(b))")
            XCTAssertEqual(a == b, expected == 0, "\(a) == \(b)")
            XCTAssertEqual(a < b, expected < 0, "\(a) < \(b)")
            XCTAssertEqual(a > b, expected > 0, "\(a) > \(b)")
            if a == b { XCTAssertEqual(a.hashValue, b.hashValue, "\(hex(a)) and \(hex(b)) are equal") }
            pairs += 1
        }
        XCTAssertEqual(pairs, 6000)
    }

    /// Canonical numbers of every shape, specials, and raw bit patterns (non-canonical
    /// encodings, NaN payloads) so that decoding is compared too.
    private func randomDecimal(_ rng: inout SplitMix64) -> Decimal128 {
        switch rng.next() % 10 {
        case 0:
            return Decimal128(bidLow: rng.next(), bidHigh: rng.next())
        case 1:
            let specials = ["NaN", "Inf", "-Inf", "0", "-0", "0E-6176", "0E+6111", "1E-6176", "-1E-6176"]
            return dec(specials[Int(rng.next() % UInt64(specials.count))])
        case 2:
            return DecimalParts(negative: rng.next() & 1 == 0, coefficient: randomCoefficient(&rng),
                                exponent: Int32(rng.next() % 12288) - 6176).packed
        default:
            return DecimalParts(negative: rng.next() & 1 == 0, coefficient: randomCoefficient(&rng),
                                exponent: Int32(rng.next() % 21) - 10).packed
        }
    }

    private func randomCoefficient(_ rng: inout SplitMix64) -> UInt128 {
        let digits = Int(rng.next() % 35)
        guard digits > 0 else { return 0 }
        let raw = UInt128(rng.next()) << 64 | UInt128(rng.next())
        return raw % DecimalParts.pow10(digits)
    }

    /// A value equal to `a` in another cohort, or one unit of its last digit away.
    private func sibling(of a: Decimal128, _ rng: inout SplitMix64) -> Decimal128 {
        let p = a.parts
        guard p.kind == .finite else { return a }
        var c = p.coefficient, e = p.exponent
        switch rng.next() % 4 {
        case 0 where DecimalParts.digits(c) < 34 && e > DecimalParts.minExponent:
            c *= 10
            e -= 1
        case 1 where c > 0 && c % 10 == 0 && e < DecimalParts.maxExponent:
            c /= 10
            e += 1
        case 2 where c < DecimalParts.maxCoefficient:
            c += 1
        case 3 where c > 0:
            c -= 1
        default:
            return DecimalParts(negative: !p.negative, coefficient: c, exponent: e).packed
        }
        return DecimalParts(negative: p.negative, coefficient: c, exponent: e).packed
    }

    // MARK: Conversions

    func testDoublesConvertAsORCoreComparesThem() {
        var rng = SplitMix64(seed: 42)
        var doubles: [Double] = [0.1, 0.2, 0.3, 1.0 / 3.0, 1e20, 1e22, 1e23, 1e33, 9.999999999999999e33, 1e34, 1e300, .leastNonzeroMagnitude,
                                 2.2250738585072014e-308, .greatestFiniteMagnitude, -0.0, 123456789.125, -7.5, 100, 1e-7]
        for _ in 0..<3000 {
            switch rng.next() % 3 {
            case 0: doubles.append(Double(bitPattern: rng.next()))
            case 1: doubles.append(Double(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64)) / 1000)
            default: doubles.append(Double(rng.next() % 100_000) * pow(10, Double(Int(rng.next() % 60) - 30)))
            }
        }
        let decimals = (0..<200).map { _ in randomDecimal(&rng) }
        for d in doubles where !d.isNaN {
            let converted = Decimal128(double: d)
            var x = decimalValue(converted)
            var y = orc_value()
            y.type = ORC_TYPE_DOUBLE
            y.dnum = d
            XCTAssertEqual(orc_value_compare(&x, &y), 0, "Decimal128(\(d)) = \(converted) is not \(d) to ORCore")
            XCTAssertEqual(converted.doubleValue, d, "\(d) → \(converted) → \(converted.doubleValue)")
            // Against other decimals the converted double orders exactly as ORCore orders the double.
            let other = decimals[Int(rng.next() % UInt64(decimals.count))]
            var o = decimalValue(other)
            XCTAssertEqual(Decimal128.compare(other, converted), Int(orc_value_compare(&o, &y).signum()),
                           "\(other) vs double \(d)")
        }
        XCTAssertEqual(Decimal128(double: 0.1).stringValue, "0.1")
        XCTAssertEqual(Decimal128(double: 1e20).stringValue, "100000000000000000000")
        XCTAssertEqual(Decimal128(double: 1e40).stringValue, "1E+40")
        XCTAssertEqual(Decimal128(double: -0.0).stringValue, "-0")
        XCTAssertTrue(Decimal128(double: .nan).isNaN)
        XCTAssertEqual(Decimal128(double: -.infinity).stringValue, "-Inf")
    }

    func testDoubleValueIsNearest() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let d = randomDecimal(&rng)
            let expected = d.isNaN ? Double.nan : Double(d.stringValue.replacingOccurrences(of: "Inf", with: "inf"))!
            if expected.isNaN {
                XCTAssertTrue(d.doubleValue.isNaN)
            } else {
                XCTAssertEqual(d.doubleValue, expected, "\(d)")
            }
        }
        XCTAssertEqual(dec("0.1").doubleValue, 0.1)
        XCTAssertEqual(dec("1E+400").doubleValue, .infinity)
        XCTAssertEqual(dec("-1E-400").doubleValue, -0.0)
        XCTAssertEqual(dec("123456789012345678901234567890").doubleValue, 1.2345678901234568e29)
    }

    func testIntegersAndLiterals() {
        XCTAssertEqual(Decimal128(integerLiteral: .min).stringValue, "-9223372036854775808")
        XCTAssertEqual(Decimal128(exactly: UInt64.max)?.stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(exactly: 0b101), 5)
        XCTAssertEqual(Decimal128(exactly: Int8(-128)), -128)
        XCTAssertEqual(Decimal128(exactly: UInt128(1) << 120)?.stringValue, nil, "2^120 has 37 digits")
        XCTAssertEqual(Decimal128(exactly: DecimalParts.pow10(38))?.stringValue, "1E+38")
        XCTAssertEqual(Decimal128(exactly: Int128(-99_999_999_999_999_999_999_999_999_999_999_990_000))?.stringValue,
                       "-9.999999999999999999999999999999999E+37")
        XCTAssertNil(Decimal128(exactly: Int128(99_999_999_999_999_999_999_999_999_999_999_999_999)))
        XCTAssertEqual(Decimal128(value: UInt128(1) << 120).stringValue, "1.329227995784915872903807060280345E+36")
        let fromLiterals: [Decimal128] = [3, -3, 3.5, "3.5", "-1E+2"]
        XCTAssertEqual(fromLiterals.map(\.stringValue), ["3", "-3", "3.5", "3.5", "-100"])
    }

    func testInitFromValueAndNumber() {
        XCTAssertEqual(Decimal128(value: 42).stringValue, "42")
        XCTAssertEqual(Decimal128(value: UInt8(200)).stringValue, "200")
        XCTAssertEqual(Decimal128(value: 2.5).stringValue, "2.5")
        XCTAssertEqual(Decimal128(value: Float(0.5)).stringValue, "0.5")
        XCTAssertEqual(Decimal128(value: "12.50").stringValue, "12.5")
        XCTAssertEqual(Decimal128(value: Substring("7")).stringValue, "7")
        XCTAssertEqual(Decimal128(value: dec("1E+100")).stringValue, "1E+100")
        XCTAssertEqual(Decimal128(value: Decimal(string: "3.14159")!).stringValue, "3.14159")
        XCTAssertEqual(Decimal128(value: NSNumber(value: 3.25)).stringValue, "3.25")
        XCTAssertEqual(Decimal128(value: NSNumber(value: UInt64.max)).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(value: NSNumber(value: Int64.min)).stringValue, "-9223372036854775808")
        XCTAssertEqual(Decimal128(value: NSDecimalNumber(string: "-0.0625")).stringValue, "-0.0625")
        XCTAssertEqual(Decimal128(value: true).stringValue, "1")
        XCTAssertTrue(Decimal128(value: NSNull()).isNaN)
        XCTAssertTrue(Decimal128(value: Optional<Int>.none as Any).isNaN)
        XCTAssertEqual(Decimal128(value: Optional(5) as Any).stringValue, "5")
        XCTAssertTrue(Decimal128(value: NSNull()).isSignaling)
        XCTAssertTrue(Decimal128(value: NSNull()).isSignalingNaN)
        XCTAssertEqual(Decimal128(number: NSNumber(value: 3.14159)), 3.14159)
        XCTAssertEqual(Decimal128(number: NSNumber(value: true)), 1)
        XCTAssertEqual(Decimal128(number: NSNumber(value: Int32(-9))).stringValue, "-9")
    }

    func testDecimalValue() {
        XCTAssertEqual(dec("3.14159").decimalValue, Decimal(string: "3.14159"))
        XCTAssertEqual(dec("-2.5E+10").decimalValue, Decimal(string: "-25000000000"))
        XCTAssertEqual(dec("0").decimalValue, Decimal(0))
        XCTAssertTrue(dec("1E+200").decimalValue.isNaN)
        XCTAssertTrue(dec("Inf").decimalValue.isNaN)
    }

    func testMagnitudeNegateAndMinMax() {
        var d: Decimal128 = -123.321
        XCTAssertEqual(d.magnitude, 123.321)
        d.negate()
        XCTAssertEqual(d, 123.321)
        assertSameBits(-dec("1.50"), dec("-1.50"))
        XCTAssertEqual(Decimal128.zero, 0)
        XCTAssertEqual(Decimal128.max.stringValue, "9.999999999999999999999999999999999E+6144")
        XCTAssertEqual(Decimal128.min.stringValue, "-9.999999999999999999999999999999999E+6144")
    }

    // MARK: Codable

    func testCodableUsesTheString() throws {
        let values = ["1.5", "-2.25E+40", "NaN", "-Inf", "0", "1E-6176"].map { dec($0) }
        let data = try JSONEncoder().encode(values)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["1.5","-2.25E+40","NaN","-Inf","0","1E-6176"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: data)
        XCTAssertEqual(decoded, values)

        let numbers = try JSONDecoder().decode([Decimal128].self, from: Data("[12, -3.5]".utf8))
        XCTAssertEqual(numbers.map(\.stringValue), ["12", "-3.5"])
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data(#"["12 apples"]"#.utf8))) { error in
            guard case DecodingError.dataCorrupted = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)))
    }
}

