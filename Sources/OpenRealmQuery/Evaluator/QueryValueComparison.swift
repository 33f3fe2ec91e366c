import Foundation

/// ORCore's comparisons of values (`orc_value_compare` in value.c; `v_eq`, `v_order`,
/// `v_text` in query_eval.c) on ``QueryValue``s, for the evaluator.
///
/// - Order of kinds: null < numbers < bool < string < binary < date < ObjectId < UUID
///   < object. Numbers compare by value across int, float, double and decimal: int
///   against float / double exactly (no rounding above 2^53), a decimal against a float
///   or double through the shortest decimal that reads back as the double. -0.0 equals
///   0, and every NaN equals every other NaN and is below -infinity: a total order,
///   where IEEE would have NaN unequal to everything.
/// - `==` / `!=`: null equals only null; different kinds are unequal (numbers aside);
///   strings under `[c]` / `[d]` compare as ``QueryText`` says, binaries ignore them.
/// - `<`, `<=`, `>`, `>=`, `BETWEEN`: false whenever either side is null or the kinds
///   differ (numbers aside), so `!(a < b)` is not `a >= b` across kinds.
/// - String operators: false unless both sides are strings or binaries; options apply
///   only when both are strings.
///
/// Strings compare as their UTF-8 bytes, never with Swift's `==` (which would equate
/// canonically equivalent strings that ORCore keeps apart).
package enum QueryValueComparison {
    private static func kindRank(_ v: QueryValue) -> Int {
        switch v {
        case .null: return 0
        case .int, .float, .double, .decimal: return 1
        case .bool: return 2
        case .string: return 3
        case .binary: return 4
        case .timestamp: return 5
        case .objectId: return 6
        case .uuid: return 7
        case .link: return 8
        }
    }

    private static func cmp3<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a > b ? 1 : 0) }

    /// `orc_value_compare`: -1, 0 or 1 in the total order above.
    package static func compare(_ a: QueryValue, _ b: QueryValue) -> Int {
        let ka = kindRank(a), kb = kindRank(b)
        if ka != kb { return cmp3(ka, kb) }
        switch (a, b) {
        case (.null, .null): return 0
        case (.bool(let x), .bool(let y)): return cmp3(x ? 1 : 0, y ? 1 : 0)
        case (.string(let x), .string(let y)): return QueryText.compareBytes(x.utf8, y.utf8)
        case (.binary(let x), .binary(let y)): return QueryText.compareBytes(x, y)
        case (.timestamp(let xs, let xn), .timestamp(let ys, let yn)):
            return xs != ys ? cmp3(xs, ys) : cmp3(xn, yn)
        case (.objectId(let x), .objectId(let y)):
            return QueryText.compareBytes(withUnsafeBytes(of: x.orcBytes) { Array($0) },
                                          withUnsafeBytes(of: y.orcBytes) { Array($0) })
        case (.uuid(let x), .uuid(let y)):
            return QueryText.compareBytes(withUnsafeBytes(of: x.uuid) { Array($0) },
                                          withUnsafeBytes(of: y.uuid) { Array($0) })
        case (.link(let xt, let xk), .link(let yt, let yk)):
            return xt != yt ? cmp3(xt, yt) : cmp3(xk, yk)
        default:
            return compareNumbers(a, b)
        }
    }

    private static func asDouble(_ v: QueryValue) -> Double {
        switch v {
        case .float(let f): return Double(f)
        case .double(let d): return d
        default: return 0
        }
    }

    private static func asDecimal(_ v: QueryValue) -> Decimal128 {
        switch v {
        case .decimal(let d): return d
        case .int(let i): return Decimal128(integerLiteral: i)
        default: return Decimal128(double: asDouble(v))
        }
    }

    /// `cmp_numbers`.
    private static func compareNumbers(_ a: QueryValue, _ b: QueryValue) -> Int {
        switch (a, b) {
        case (.decimal, _), (_, .decimal):
            return Decimal128.compare(asDecimal(a), asDecimal(b))
        case (.int(let x), .int(let y)):
            return cmp3(x, y)
        case (.int(let x), _):
            return compareIntDouble(x, asDouble(b))
        case (_, .int(let y)):
            return -compareIntDouble(y, asDouble(a))
        default:
            return compareDoubles(asDouble(a), asDouble(b))
        }
    }

    /// `cmp_double`: NaN is the lowest number and NaNs are equal.
    private static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        if x.isNaN || y.isNaN { return (y.isNaN ? 1 : 0) - (x.isNaN ? 1 : 0) }
        return cmp3(x, y)
    }

    /// `cmp_int_double`: exact (converting the int to a double would merge neighbours above 2^53).
    private static func compareIntDouble(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let t = d.rounded(.towardZero)
        let ti = Int64(t) // exact: t is an integer in [-2^63, 2^63)
        if i != ti { return cmp3(i, ti) }
        return cmp3(t, d) // i == trunc(d): the fraction decides
    }

    private static func bothNumeric(_ a: QueryValue, _ b: QueryValue) -> Bool { a.isNumeric && b.isNumeric }

    private static func sameKind(_ a: QueryValue, _ b: QueryValue) -> Bool {
        switch (a, b) {
        case (.null, .null), (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.string, .string),
             (.binary, .binary), (.timestamp, .timestamp), (.decimal, .decimal), (.objectId, .objectId),
             (.uuid, .uuid), (.link, .link):
            return true
        default:
            return false
        }
    }

    /// `v_eq`.
    static func equal(_ l: QueryValue, _ r: QueryValue, _ flags: UInt8) -> Bool {
        if case .int(let x) = l, case .int(let y) = r { return x == y }
        if case .null = l { if case .null = r { return true }; return false }
        if case .null = r { return false }
        if !sameKind(l, r) {
            if !bothNumeric(l, r) { return false }
        } else if case .string(let x) = l, case .string(let y) = r, flags != 0 {
            return QueryText.equal(Array(x.utf8), Array(y.utf8), flags)
        }
        return compare(l, r) == 0
    }

    /// `v_order`: the three-way comparison when `l` and `r` can be ordered against each other.
    static func order(_ l: QueryValue, _ r: QueryValue, _ flags: UInt8) -> Int? {
        if case .int(let x) = l, case .int(let y) = r { return cmp3(x, y) }
        if case .null = l { return nil }
        if case .null = r { return nil }
        if !sameKind(l, r) {
            if !bothNumeric(l, r) { return nil }
        } else if case .string(let x) = l, case .string(let y) = r, flags != 0 {
            return QueryText.compare(Array(x.utf8), Array(y.utf8), flags)
        }
        return compare(l, r)
    }

    private static func textBytes(_ v: QueryValue) -> [UInt8]? {
        switch v {
        case .string(let s): return Array(s.utf8)
        case .binary(let d): return Array(d)
        default: return nil
        }
    }

    /// `v_text`: BEGINSWITH, ENDSWITH, CONTAINS, LIKE.
    static func text(_ op: QueryOperator, _ flags: UInt8, _ l: QueryValue, _ r: QueryValue) -> Bool {
        guard let s = textBytes(l), let t = textBytes(r) else { return false }
        var f: UInt8 = 0
        if case .string = l, case .string = r { f = flags }
        switch op {
        case .beginsWith: return QueryText.begins(s, t, f)
        case .endsWith: return QueryText.ends(s, t, f)
        case .contains: return QueryText.contains(s, t, f)
        default: return QueryText.like(s, t, f)
        }
    }

    /// `v_op`: one left value against one right value.
    static func holds(_ op: QueryOperator, _ flags: UInt8, _ l: QueryValue, _ r: QueryValue) -> Bool {
        switch op {
        case .equal: return equal(l, r, flags)
        case .notEqual: return !equal(l, r, flags)
        case .lessThan: return order(l, r, flags).map { $0 < 0 } ?? false
        case .lessThanOrEqual: return order(l, r, flags).map { $0 <= 0 } ?? false
        case .greaterThan: return order(l, r, flags).map { $0 > 0 } ?? false
        case .greaterThanOrEqual: return order(l, r, flags).map { $0 >= 0 } ?? false
        default: return text(op, flags, l, r)
        }
    }
}
