import Foundation
import XCTest
@testable import OpenRealmQuery
import OpenRealmTestSupport

/// Random predicates over a few properties, run in ORCore and evaluated in plain Swift
/// over the same objects: the two must select the same objects.
extension QueryCompilerTests {
    private struct Item {
        var i: Int64
        var o: Int64?
        var d: Double
        var f: Float
        var s: String
        var b: Bool
        var tags: [Int64]
    }

    private static let strings = ["", "a", "ab", "Ab", "abc", "b", "ba", "BA", "bab"]
    private static let patterns = ["a*", "*b", "?b", "*", "a?c", "b*b", "A*", "*a*", "??"]

    func testRandomPredicatesAgreeWithSwift() throws {
        var rng = SplitMix64(seed: 20_240_601)
        let realm = try QueryTestRealm()
        try realm.beginWrite()
        let table = try realm.addClass("Item")
        try realm.addProperty(table, "i", .int, indexed: true)
        try realm.addProperty(table, "o", .int, optional: true)
        try realm.addProperty(table, "d", .double)
        try realm.addProperty(table, "f", .float)
        try realm.addProperty(table, "s", .string, indexed: true)
        try realm.addProperty(table, "b", .bool)
        try realm.addProperty(table, "tags", .int, .list)
        var items: [UInt64: Item] = [:]
        for _ in 0..<150 {
            let item = Item(i: Int64.random(in: -5...5, using: &rng),
                            o: Int.random(in: 0..<3, using: &rng) == 0 ? nil : Int64.random(in: -3...3, using: &rng),
                            d: [-1.5, 0, 0.5, 2, 3.25, -0.0, 5].randomElement(using: &rng)!,
                            f: [-1.5, 0, 0.5, 2, 3.25].randomElement(using: &rng)!,
                            s: Self.strings.randomElement(using: &rng)!,
                            b: Bool.random(using: &rng),
                            tags: (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int64.random(in: 0...4, using: &rng) })
            let key = try realm.create(table, ["i": .int(item.i), "o": item.o.map { .int($0) } ?? .null,
                                               "d": .double(item.d), "f": .float(item.f), "s": .string(item.s),
                                               "b": .bool(item.b)])
            try realm.append(table, key, "tags", item.tags.map { .int($0) })
            items[key] = item
        }
        try realm.commit()

        var nonEmpty = 0
        for round in 0..<400 {
            let p = randomPredicate(depth: 0, rng: &rng)
            let expected = Set(items.filter { evaluate(p, $0.value) }.map(\.key))
            // Compiled straight from the tree, and through its canonical string.
            let direct = try QueryCompiler.compile(ParsedQuery(predicate: p), className: "Item", schema: realm.schema)
            let text = ParsedQuery(predicate: p).description
            let reparsed = try QueryParser.parse(text)
            let viaText = try QueryCompiler.compile(reparsed, className: "Item", schema: realm.schema)
            let got = try realm.run(program: direct, className: "Item").keys
            XCTAssertEqual(Set(got), expected, "round \(round): \(text)")
            XCTAssertEqual(Set(try realm.run(program: viaText, className: "Item").keys), expected, "round \(round) via text: \(text)")
            if !expected.isEmpty && expected.count < items.count { nonEmpty += 1 }
        }
        // The generator must produce selective predicates, or the test proves little.
        XCTAssertGreaterThan(nonEmpty, 150)
    }

    // MARK: - Generator

    private func randomPredicate(depth: Int, rng: inout SplitMix64) -> QueryPredicate {
        if depth < 3, Int.random(in: 0..<3, using: &rng) == 0 {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .and((0..<Int.random(in: 1...3, using: &rng)).map { _ in randomPredicate(depth: depth + 1, rng: &rng) })
            case 1: return .or((0..<Int.random(in: 1...3, using: &rng)).map { _ in randomPredicate(depth: depth + 1, rng: &rng) })
            default: return .not(randomPredicate(depth: depth + 1, rng: &rng))
            }
        }
        return randomLeaf(&rng)
    }

    private func number(_ rng: inout SplitMix64) -> QueryValue {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .double(Double(Int.random(in: -12...12, using: &rng)) / 2)
        case 1: return .float(Float(Int.random(in: -12...12, using: &rng)) / 4)
        default: return .int(Int64.random(in: -6...6, using: &rng))
        }
    }

    private func randomLeaf(_ rng: inout SplitMix64) -> QueryPredicate {
        let ordering: [QueryOperator] = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        func cmp(_ l: QueryOperand, _ op: QueryOperator, _ r: QueryOperand, _ o: QueryStringOptions = [],
                 _ q: QueryQuantifier = .implicit) -> QueryPredicate {
            .comparison(QueryComparison(l, op, r, options: o, quantifier: q))
        }
        let op = ordering.randomElement(using: &rng)!
        switch Int.random(in: 0..<16, using: &rng) {
        case 0: return Bool.random(using: &rng) ? .truePredicate : .falsePredicate
        case 1, 2: return cmp(.keyPath("i"), op, .value(number(&rng)))
        case 3:
            if Bool.random(using: &rng) {
                return cmp(.keyPath("o"), Bool.random(using: &rng) ? .equal : .notEqual, .value(.null))
            }
            return cmp(.keyPath("o"), op, .value(number(&rng)))
        case 4: return cmp(.keyPath("d"), op, .value(number(&rng)))
        case 5: return cmp(.keyPath("f"), op, .value(number(&rng)))
        case 6, 7:
            let sops: [QueryOperator] = [.equal, .notEqual, .lessThan, .greaterThanOrEqual, .beginsWith, .endsWith, .contains, .like]
            let sop = sops.randomElement(using: &rng)!
            let pool = sop == .like ? Self.patterns : Self.strings
            let opts: QueryStringOptions = Bool.random(using: &rng) ? .caseInsensitive : []
            return cmp(.keyPath("s"), sop, .value(.string(pool.randomElement(using: &rng)!)), opts)
        case 8: return cmp(.keyPath("b"), Bool.random(using: &rng) ? .equal : .notEqual, .value(.bool(Bool.random(using: &rng))))
        case 9:
            let path = ["i", "d", "o"].randomElement(using: &rng)!
            let values = (0..<Int.random(in: 0...3, using: &rng)).map { _ in number(&rng) }
            return cmp(.keyPath(path), .in, .list(of: values))
        case 10:
            let a = number(&rng), b = number(&rng)
            return cmp(.keyPath(["i", "d", "f"].randomElement(using: &rng)!), .between, .list(of: [a, b]))
        case 11:
            let q: QueryQuantifier = [.implicit, .any, .all, .none].randomElement(using: &rng)!
            return cmp(.keyPath("tags"), op, .value(.int(Int64.random(in: 0...4, using: &rng))), [], q)
        case 12: return cmp(.keyPath("tags", aggregate: [.count, .size].randomElement(using: &rng)!), op, .value(number(&rng)))
        case 13:
            let agg: QueryAggregate = [.sum, .min, .max, .avg].randomElement(using: &rng)!
            return cmp(.keyPath("tags", aggregate: agg), op, .value(number(&rng)))
        case 14: return cmp(.value(.int(Int64.random(in: 0...4, using: &rng))), .in, .keyPath("tags"))
        default:
            // A constant on the left of a single property.
            return cmp(.value(number(&rng)), op, .keyPath(["i", "d", "o"].randomElement(using: &rng)!))
        }
    }

    // MARK: - Evaluation in Swift (ORCore's semantics)

    private func evaluate(_ p: QueryPredicate, _ item: Item) -> Bool {
        switch p {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .and(let ps): return ps.allSatisfy { evaluate($0, item) }
        case .or(let ps): return ps.contains { evaluate($0, item) }
        case .not(let q): return !evaluate(q, item)
        case .comparison(let c): return evaluate(c, item)
        case .geoWithin: preconditionFailure("the random queries have no GEOWITHIN")
        }
    }

    /// The values an operand yields for `item`, and whether they are many.
    private func values(_ o: QueryOperand, _ item: Item) -> (values: [QueryValue], multi: Bool) {
        switch o {
        case .value(let v): return ([v], false)
        case .keyPath(let path):
            guard case .property(let name) = path.components[0] else { fatalError("unexpected path \(path)") }
            let tags = item.tags.map { QueryValue.int($0) }
            switch (name, path.aggregate) {
            case ("i", _): return ([.int(item.i)], false)
            case ("o", _): return ([item.o.map { .int($0) } ?? .null], false)
            case ("d", _): return ([.double(item.d)], false)
            case ("f", _): return ([.float(item.f)], false)
            case ("s", _): return ([.string(item.s)], false)
            case ("b", _): return ([.bool(item.b)], false)
            case ("tags", nil): return (tags, true)
            case ("tags", .count?), ("tags", .size?): return ([.int(Int64(item.tags.count))], false)
            case ("tags", .sum?): return ([.int(item.tags.reduce(0, +))], false)
            case ("tags", .min?): return ([item.tags.min().map { .int($0) } ?? .null], false)
            case ("tags", .max?): return ([item.tags.max().map { .int($0) } ?? .null], false)
            case ("tags", .avg?):
                return ([item.tags.isEmpty ? .null : .double(Double(item.tags.reduce(0, +)) / Double(item.tags.count))], false)
            default: fatalError("unexpected path \(path)")
            }
        default: fatalError("unexpected operand \(o)")
        }
    }

    private func evaluate(_ c: QueryComparison, _ item: Item) -> Bool {
        let left = values(c.lhs, item).values
        let right: [QueryValue]
        if case .list(let items) = c.rhs {
            right = items.map { if case .value(let v) = $0 { return v }; fatalError() }
        } else {
            right = values(c.rhs, item).values
        }
        func matches(_ l: QueryValue) -> Bool {
            switch c.op {
            case .in: return right.contains { equal(l, $0, c.options) }
            case .between:
                guard let lo = order(l, right[0], c.options), let hi = order(l, right[1], c.options) else { return false }
                return lo >= 0 && hi <= 0
            default:
                // A right side of many values matches when any of them does.
                return right.contains { compare(c.op, l, $0, c.options) }
            }
        }
        switch c.quantifier {
        case .implicit, .any: return left.contains(where: matches)
        case .all: return left.allSatisfy(matches)
        case .none: return !left.contains(where: matches)
        }
    }

    private func numeric(_ v: QueryValue) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .float(let f): return Double(f)
        default: return nil
        }
    }

    private func folded(_ s: String, _ o: QueryStringOptions) -> [UInt8] {
        Array((o.contains(.caseInsensitive) ? s.lowercased() : s).utf8)
    }

    private func equal(_ l: QueryValue, _ r: QueryValue, _ o: QueryStringOptions) -> Bool {
        if case .null = l { if case .null = r { return true }; return false }
        if case .null = r { return false }
        if let a = numeric(l), let b = numeric(r) { return a == b }
        if case .string(let a) = l, case .string(let b) = r { return folded(a, o) == folded(b, o) }
        return l == r
    }

    /// -1, 0, 1, or nil when the two do not order (null, different kinds).
    private func order(_ l: QueryValue, _ r: QueryValue, _ o: QueryStringOptions) -> Int? {
        if let a = numeric(l), let b = numeric(r) { return a < b ? -1 : a > b ? 1 : 0 }
        if case .string(let a) = l, case .string(let b) = r {
            let x = folded(a, o), y = folded(b, o)
            return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
        }
        return nil
    }

    private func compare(_ op: QueryOperator, _ l: QueryValue, _ r: QueryValue, _ o: QueryStringOptions) -> Bool {
        switch op {
        case .equal: return equal(l, r, o)
        case .notEqual: return !equal(l, r, o)
        case .lessThan: return order(l, r, o).map { $0 < 0 } ?? false
        case .lessThanOrEqual: return order(l, r, o).map { $0 <= 0 } ?? false
        case .greaterThan: return order(l, r, o).map { $0 > 0 } ?? false
        case .greaterThanOrEqual: return order(l, r, o).map { $0 >= 0 } ?? false
        case .beginsWith, .endsWith, .contains, .like:
            guard case .string(let a) = l, case .string(let b) = r else { return false }
            let s = folded(a, o), t = folded(b, o)
            switch op {
            case .beginsWith: return s.starts(with: t)
            case .endsWith: return s.reversed().starts(with: t.reversed())
            case .contains: return t.isEmpty || (0...max(0, s.count - t.count)).contains { s.count >= t.count && Array(s[$0..<$0 + t.count]) == t }
            default: return like(s[...], t[...])
            }
        default: fatalError("\(op) handled by the caller")
        }
    }

    /// `*` matches any run, `?` one character (the test strings are ASCII).
    private func like(_ s: ArraySlice<UInt8>, _ p: ArraySlice<UInt8>) -> Bool {
        guard let first = p.first else { return s.isEmpty }
        switch first {
        case UInt8(ascii: "*"):
            return (s.startIndex...s.endIndex).contains { like(s[$0...], p.dropFirst()) }
        case UInt8(ascii: "?"):
            return !s.isEmpty && like(s.dropFirst(), p.dropFirst())
        default:
            return s.first == first && like(s.dropFirst(), p.dropFirst())
        }
    }
}
