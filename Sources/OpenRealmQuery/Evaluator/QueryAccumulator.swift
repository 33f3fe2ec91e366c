/// An aggregate at the end of a key path, accumulated as ORCore does (`qacc` in
/// query_agg.c), value by value in the order the path yields them.
///
/// - `@count` / `@size` count every value (nulls and objects too); of a single string
///   or binary they give its length in bytes (`.length`), null when there is none.
/// - `@min` / `@max` consider numbers and dates only, and keep the first of equals.
/// - `@sum` adds ints in an Int64 until it would overflow, then goes on in Double;
///   floats and doubles add as Double, decimals as decimal (any decimal makes the
///   result a decimal). The sum of nothing is 0 of the property's type (0.0 for float /
///   double, decimal 0 for decimal, else int 0).
/// - `@avg` is a Double, or a decimal when decimals were added; of nothing, null.
///
/// Floating-point sums depend on the order of the values, so the evaluator feeds sets
/// and dictionaries in ORCore's stored order (see `QueryEvaluator+Paths.swift`).
struct QueryAccumulator {
    enum Kind {
        case count, length, min, max, sum, avg
    }

    let kind: Kind
    /// The type of the path's last property: the type of an empty sum.
    let zeroType: QueryPropertyType?
    private var n: UInt64 = 0
    private var intSum: Int64 = 0
    private var doubleSum: Double = 0
    private var decimalSum = Decimal128()
    private var hasDouble = false, hasDecimal = false, overflow = false
    private var best: QueryValue?

    init(_ kind: Kind, zeroType: QueryPropertyType?) {
        self.kind = kind
        self.zeroType = zeroType
    }

    /// `qacc_add`: takes one value the path yielded (values the aggregate does not take are skipped).
    mutating func add(_ item: QueryEvaluator.Item) {
        switch kind {
        case .count:
            n += 1
            return
        case .length:
            switch item {
            case .value(.string(let s)):
                n = UInt64(s.utf8.count)
                best = .null
            case .value(.binary(let d)):
                n = UInt64(d.count)
                best = .null
            default:
                break
            }
            return
        case .min, .max:
            guard case .value(let v) = item else { return }
            switch v {
            case .int, .float, .double, .decimal, .timestamp: break
            default: return
            }
            if let b = best {
                let c = QueryValueComparison.compare(v, b)
                if kind == .min ? c >= 0 : c <= 0 { return }
            }
            best = v
            return
        case .sum, .avg:
            break
        }
        guard case .value(let v) = item else { return }
        switch v {
        case .int(let i):
            if overflow {
                doubleSum += Double(i)
            } else {
                let (r, over) = intSum.addingReportingOverflow(i)
                if over {
                    overflow = true
                    doubleSum += Double(intSum) + Double(i)
                    intSum = 0
                } else {
                    intSum = r
                }
            }
        case .float(let f):
            doubleSum += Double(f)
            hasDouble = true
        case .double(let d):
            doubleSum += d
            hasDouble = true
        case .decimal(let d):
            decimalSum = hasDecimal ? decimalSum + d : d
            hasDecimal = true
        default:
            return
        }
        n += 1
    }

    /// `qacc_result`: the aggregate's value.
    var result: QueryValue {
        switch kind {
        case .count:
            return .int(Int64(truncatingIfNeeded: n))
        case .length:
            return best == nil ? .null : .int(Int64(truncatingIfNeeded: n))
        case .min, .max:
            return best ?? .null
        case .sum, .avg:
            break
        }
        let isDouble = hasDouble || overflow
        if n == 0 {
            if kind == .avg { return .null }
            switch zeroType {
            case .decimal?: return .decimal(Decimal128(integerLiteral: 0))
            case .float?, .double?: return .double(0)
            default: return .int(0)
            }
        }
        if hasDecimal {
            var x = decimalSum
            if intSum != 0 { x = x + Decimal128(integerLiteral: intSum) }
            if isDouble { x = x + Decimal128(double: doubleSum) }
            return .decimal(kind == .avg ? x / Decimal128(integerLiteral: Int64(truncatingIfNeeded: n)) : x)
        }
        if isDouble || kind == .avg {
            let d = doubleSum + Double(intSum)
            return .double(kind == .avg ? d / Double(n) : d)
        }
        return .int(intSum)
    }
}
