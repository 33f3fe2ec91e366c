/// Rewrites a query tree into its normal form: the same meaning in ORCore, one spelling.
/// The renderer prints the normal form (so equivalent queries render alike) and the
/// compiler compiles it (so it sees fewer shapes).
///
/// The rewrites, each exact under ORCore's semantics and needing no schema:
///
/// 1. AND / OR: nested ones of the same kind are flattened; TRUEPREDICATE drops out of
///    an AND and FALSEPREDICATE out of an OR; an AND holding FALSEPREDICATE is
///    FALSEPREDICATE and an OR holding TRUEPREDICATE is TRUEPREDICATE; an empty AND is
///    TRUEPREDICATE, an empty OR FALSEPREDICATE, and a single operand stands alone.
/// 2. NOT: `NOT NOT p` is `p`; NOT of TRUEPREDICATE / FALSEPREDICATE is the other one.
/// 3. `x == {list}` is `x IN {list}`; `x IN {v}` (one element) is `x == v`.
/// 4. `x IN path` (the right side not a list) is `x == path`: ORCore matches a right
///    side of many values when any of them compares true.
/// 5. A constant on the left of a key path or SUBQUERY count swaps sides, the operator
///    mirrored, unless a quantifier was set on it: `'comedy' == genres` is
///    `genres == 'comedy'`, `5 < age` is `age > 5`. String operators keep their sides.
/// 6. `ANY` / `SOME` is the implicit quantifier (ORCore treats them alike).
/// 7. `@size` is `@count`.
/// 8. ALL / NONE on a left side of one value (a constant, a SUBQUERY count) is the
///    plain comparison / its negation.
extension ParsedQuery {
    /// The normal form (see above).
    package func normalized() -> ParsedQuery {
        ParsedQuery(predicate: predicate.normalized(),
                    descriptors: descriptors.map { $0.normalized() })
    }
}

extension QueryDescriptor {
    package func normalized() -> QueryDescriptor {
        switch self {
        case .sort(let keys): return .sort(keys.map { QuerySortKey($0.keyPath.normalized(), ascending: $0.ascending) })
        case .distinct(let paths): return .distinct(paths.map { $0.normalized() })
        case .limit: return self
        }
    }
}

extension QueryKeyPath {
    package func normalized() -> QueryKeyPath {
        aggregate == .size ? QueryKeyPath(components, aggregate: .count) : self
    }
}

extension QueryPredicate {
    /// The normal form (see `QueryNormalizer.swift`).
    package func normalized() -> QueryPredicate {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .and(let parts):
            return Self.joined(parts, and: true)
        case .or(let parts):
            return Self.joined(parts, and: false)
        case .not(let inner):
            switch inner.normalized() {
            case .not(let p): return p
            case .truePredicate: return .falsePredicate
            case .falsePredicate: return .truePredicate
            case let p: return .not(p)
            }
        case .comparison(var c):
            // A quantifier over a left side of one value: ALL is the plain comparison,
            // NONE its negation.
            var negate = false
            switch c.lhs {
            case .value, .argument, .subqueryCount:
                if c.quantifier == .all { c.quantifier = .implicit }
                if c.quantifier == .none { c.quantifier = .implicit; negate = true }
            default:
                break
            }
            let n = QueryPredicate.comparison(c.normalized())
            return negate ? .not(n) : n
        case .geoWithin(var g):
            g.keyPath = g.keyPath.normalized()
            return .geoWithin(g)
        }
    }

    /// The AND (`and`) or the OR of `parts`, normalized: nested ones of the same kind
    /// spliced in, the connective's identity (TRUEPREDICATE for AND, FALSEPREDICATE for
    /// OR) dropped, and its other constant deciding the whole.
    private static func joined(_ parts: [QueryPredicate], and: Bool) -> QueryPredicate {
        var out: [QueryPredicate] = []
        for part in parts {
            switch (part.normalized(), and) {
            case (.truePredicate, true), (.falsePredicate, false): continue
            case (.falsePredicate, true), (.truePredicate, false): return and ? .falsePredicate : .truePredicate
            case (.and(let inner), true), (.or(let inner), false): out.append(contentsOf: inner)
            case (let other, _): out.append(other)
            }
        }
        if out.count == 1 { return out[0] }
        return out.isEmpty ? (and ? .truePredicate : .falsePredicate) : and ? .and(out) : .or(out)
    }
}

extension QueryComparison {
    package func normalized() -> QueryComparison {
        var c = self
        c.lhs = c.lhs.normalized()
        c.rhs = c.rhs.normalized()
        if c.quantifier == .any { c.quantifier = .implicit }
        if c.op == .equal, case .list = c.rhs { c.op = .in }
        if c.op == .in {
            switch c.rhs {
            case .list(let items):
                if items.count == 1, case .value = items[0] {
                    c.op = .equal
                    c.rhs = items[0]
                }
            case .keyPath, .value, .subqueryCount, .keyPathArgument:
                c.op = .equal
            case .argument:
                break // may become a list when bound
            }
        }
        let lhsIsConstant: Bool
        switch c.lhs {
        case .value, .argument: lhsIsConstant = true
        default: lhsIsConstant = false
        }
        let rhsIsPath: Bool
        switch c.rhs {
        case .keyPath, .subqueryCount, .keyPathArgument: rhsIsPath = true
        default: rhsIsPath = false
        }
        if lhsIsConstant, rhsIsPath, c.quantifier == .implicit, let mirrored = c.op.mirrored {
            swap(&c.lhs, &c.rhs)
            c.op = mirrored
        }
        return c
    }
}

extension QueryOperand {
    package func normalized() -> QueryOperand {
        switch self {
        case .keyPath(let path): return .keyPath(path.normalized())
        case .subqueryCount(let s):
            return .subqueryCount(QuerySubquery(collection: s.collection.normalized(),
                                                predicate: s.predicate.normalized()))
        case .value, .list, .argument, .keyPathArgument: return self
        }
    }
}
