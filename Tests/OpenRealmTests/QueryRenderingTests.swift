import Foundation
import XCTest
@testable import OpenRealmQuery
import OpenRealmTestSupport

/// The canonical string (`ParsedQuery.description`): its exact form, that it reads back
/// to itself, and that equivalent spellings render alike.
final class QueryRenderingTests: XCTestCase {
    private func render(_ text: String, _ args: [Any] = [], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            return try QueryParser.parse(text, arguments: args).description
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
            return ""
        }
    }

    /// parse(render(q)) renders the same string again, and parses to the same normal form.
    private func assertRoundTrip(_ text: String, _ args: [Any] = [], file: StaticString = #filePath, line: UInt = #line) {
        do {
            let q = try QueryParser.parse(text, arguments: args)
            let once = q.description
            let again = try QueryParser.parse(once)
            XCTAssertEqual(again.description, once, "from \(text)", file: file, line: line)
            if !once.contains("nan") {
                XCTAssertEqual(again.normalized(), q.normalized(), "from \(text) via \(once)", file: file, line: line)
            }
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
        }
    }

    func testCanonicalForms() {
        let cases: [(String, String)] = [
            ("age>5", "age > 5"),
            ("  age   =   5  ", "age == 5"),
            ("age <> 5", "age != 5"),
            ("age =< 5 && age => 1", "age <= 5 AND age >= 1"),
            ("a == 1 || b == 2", "a == 1 OR b == 2"),
            ("a == 1 and (b == 2 or c == 3)", "a == 1 AND (b == 2 OR c == 3)"),
            ("a == 1 and b == 2 or c == 3", "(a == 1 AND b == 2) OR c == 3"),
            ("!(a == 1)", "NOT (a == 1)"),
            ("not a == 1 and b == 2", "NOT (a == 1) AND b == 2"),
            ("NOT (a == 1 OR b == 2)", "NOT (a == 1 OR b == 2)"),
            ("name beginswith[c] 'J'", "name BEGINSWITH[c] \"J\""),
            ("name ENDSWITH[d] 'J'", "name ENDSWITH[d] \"J\""),
            ("name contains[dc] 'J'", "name CONTAINS[cd] \"J\""),
            ("name like 'J*n?'", "name LIKE \"J*n?\""),
            ("name ==[c] 'x'", "name ==[c] \"x\""),
            ("priority IN {1,2,3}", "priority IN {1, 2, 3}"),
            ("'comedy' IN genres", "genres == \"comedy\""),
            ("age BETWEEN {1,2}", "age BETWEEN {1, 2}"),
            ("ANY tags == 'a'", "tags == \"a\""),
            ("SOME tags == 'a'", "tags == \"a\""),
            ("ALL tags == 'a'", "ALL tags == \"a\""),
            ("none scores > 5", "NONE scores > 5"),
            ("5 < age", "age > 5"),
            ("items.@size > 2", "items.@count > 2"),
            ("items.@sum.price > 2", "items.price.@sum > 2"),
            ("items.@average.price > 2", "items.price.@avg > 2"),
            ("dict['k'] == 1", "dict[\"k\"] == 1"),
            ("@links.Person.dogs.@count > 0", "@links.Person.dogs.@count > 0"),
            ("SUBQUERY(items, $item, $item.price > 5 && $item.done == false).@count > 0",
             "SUBQUERY(items, $x, $x.price > 5 AND $x.done == false).@count > 0"),
            ("SUBQUERY(a, $p, SUBQUERY($p.b, $q, $q.c == 1).@count > 0).@size == 1",
             "SUBQUERY(a, $x, SUBQUERY($x.b, $x2, $x2.c == 1).@count > 0).@count == 1"),
            ("truepredicate", "TRUEPREDICATE"),
            ("FalsePredicate", "FALSEPREDICATE"),
            ("x == NULL", "x == nil"),
            ("x == True", "x == true"),
            ("x == 0x10", "x == 16"),
            ("x == -0.0", "x == -0.0"),
            ("x == 1e-5", "x == 1e-05"),
            ("x == 1.5f", "x == 1.5f"),
            ("x == 2", "x == 2"),
            ("x == 2.0", "x == 2"),
            ("x == -INF", "x == -infinity"),
            ("x == Nan", "x == nan"),
            ("x == 'it''s'".replacingOccurrences(of: "''", with: "\\'"), "x == \"it's\""),
            ("x == 'a\\\"b\\\\c\\nd\\u0001'", "x == \"a\\\"b\\\\c\\nd\\u0001\""),
            ("x == oid(507F1F77BCF86CD799439011)", "x == oid(507f1f77bcf86cd799439011)"),
            ("x == uuid(D1B186E1-E9E0-4768-A1A7-C492519D47EE)", "x == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)"),
            ("x == 2021-02-20@17:30:15:5", "x == T1613842215:5"),
            ("x == B64\"AAEC\"", "x == B64\"AAEC\""),
            ("x == decimal128(12)", "x == decimal128(12)"),
            ("x == L2:5", "x == L2:5"),
            ("a == 1 sort(a asc, b descending) distinct(c) limit(3)", "a == 1 SORT(a ASC, b DESC) DISTINCT(c) LIMIT(3)"),
            ("a == 1 SORT(b)", "a == 1 SORT(b ASC)"),
            ("TRUEPREDICATE AND a == 1", "a == 1"),
            ("FALSEPREDICATE OR a == 1", "a == 1"),
            ("a == 1 AND FALSEPREDICATE", "FALSEPREDICATE"),
            ("a == 1 OR TRUEPREDICATE", "TRUEPREDICATE"),
            ("NOT NOT a == 1", "a == 1"),
            ("NOT TRUEPREDICATE", "FALSEPREDICATE"),
            ("a IN {1}", "a == 1"),
            ("a == {1, 2}", "a IN {1, 2}"),
            ("'abc' BEGINSWITH name", "\"abc\" BEGINSWITH name"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(render(input), expected, input)
        }
    }

    func testArgumentsRenderAsConstants() throws {
        let oid = try ObjectId(string: "507f1f77bcf86cd799439011")
        let uuid = UUID(uuidString: "D1B186E1-E9E0-4768-A1A7-C492519D47EE")!
        XCTAssertEqual(render("name == $0 AND age > $1", ["Ann", 30]), "name == \"Ann\" AND age > 30")
        XCTAssertEqual(render("x IN %@", [[1, 2]]), "x IN {1, 2}")
        XCTAssertEqual(render("x == $0", [[1, 2]]), "x IN {1, 2}")
        XCTAssertEqual(render("x IN %@", [[5]]), "x == 5")
        XCTAssertEqual(render("x == $0", [Date(timeIntervalSince1970: 10.5)]), "x == T10:500000000")
        XCTAssertEqual(render("x == $0", [Data([0xFF, 0x00])]), "x == B64\"/wA=\"")
        XCTAssertEqual(render("x == $0 OR y == $1", [oid, uuid]),
                       "x == oid(507f1f77bcf86cd799439011) OR y == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)")
        XCTAssertEqual(render("x == $0", [Optional<String>.none as Any]), "x == nil")
        XCTAssertEqual(render("x == $0", [Float(0.1)]), "x == 0.1f")
        XCTAssertEqual(render("x == $0", [0.1]), "x == 0.1")
        XCTAssertEqual(render("x == $0", [Float.infinity]), "x == infinity")
        XCTAssertEqual(render("%K == $1", ["dog.name", "Rex"]), "dog.name == \"Rex\"")
        XCTAssertEqual(render("$0 IN tags", ["a"]), "tags == \"a\"")
        // Unbound placeholders print as written (not canonical).
        XCTAssertEqual(try QueryParser.parse("x == $3").description, "x == $3")
    }

    func testEquivalentFormsRenderAlike() {
        let groups: [[String]] = [
            ["name == 'Ann' AND age > 30", "name=\"Ann\" && age>30", "(name == 'Ann') and (30 < age)",
             "TRUEPREDICATE AND name == 'Ann' AND age > 30", "name == 'Ann' AND (age > 30 OR FALSEPREDICATE)"],
            ["'comedy' IN genres", "ANY genres == 'comedy'", "genres == 'comedy'", "SOME genres = \"comedy\"",
             "'comedy' == genres", "'comedy' IN ANY genres"],
            ["priority IN {1, 2, 3}", "priority == {1,2,3}", "priority == ANY {1, 2, 3}", "priority in{1 , 2 , 3}"],
            ["age BETWEEN {1, 2}", "age between{1,2}", "age BETWEEN { 1 , 2 }", "age BETWEEN $0"],
            ["a == 1 OR (b == 2 OR c == 3)", "(a == 1 OR b == 2) OR c == 3", "a == 1 || b == 2 || c == 3"],
            ["a == 1 AND (b == 2 AND c == 3)", "(a == 1 && b == 2) && c == 3"],
            ["NOT (a == 1)", "!a == 1", "not(a == 1)", "NOT NOT NOT a == 1"],
            ["items.@count > 5", "items.@size > 5", "5 < items.@count"],
            ["items.@sum.price > 5", "items.price.@sum > 5"],
            ["SUBQUERY(items, $x, $x.p > 1).@count > 0", "SUBQUERY(items, $item, $item.p > 1).@size > 0",
             "0 < SUBQUERY(items, $i, 1 < $i.p).@count"],
            ["x == 'a'", "x == \"a\"", "x = 'a'"],
            ["x == 16", "x == 0x10", "x == +16"],
            ["ALL scores > 5", "5 < ALL scores"],
            ["x == 5", "x IN {5}"],
        ]
        for group in groups {
            let rendered = group.map { render($0, $0.contains("$0") ? [[1, 2]] : []) }
            XCTAssertEqual(Set(rendered).count, 1, "\(group) -> \(rendered)")
        }
        // And with arguments in place of literals.
        XCTAssertEqual(render("name == $0 AND age > $1", ["Ann", 30]), render("name == 'Ann' AND age > 30"))
        XCTAssertEqual(render("x IN $0", [[1, 2]]), render("x IN {1, 2}"))
        XCTAssertEqual(render("%@ IN tags", ["a"]), render("'a' IN tags"))
        // Different queries render differently.
        // Integral numbers are one query whatever their spelling (ORCore compares numbers by value).
        XCTAssertEqual(render("x == 5"), render("x == 5.0"))
        XCTAssertNotEqual(render("x == 5"), render("x == 5.5"))
        XCTAssertNotEqual(render("x == 'a'"), render("x ==[c] 'a'"))
        XCTAssertNotEqual(render("ALL x == 1"), render("x == 1"))
        XCTAssertNotEqual(render("a == 1 SORT(a ASC) LIMIT(1)"), render("a == 1 LIMIT(1) SORT(a ASC)"))
    }

    func testRoundTrips() throws {
        let queries = [
            "age > 5 AND name BEGINSWITH[c] 'J' OR NOT (x == nil)",
            "priority IN {1, 2, 3} AND 'comedy' IN genres",
            "ALL scores >= 0.5 AND NONE tags ==[cd] 'ß'",
            "items.@count > 2 AND items.@sum.price < 100.25 AND dict.@keys == 'k' AND dict.@values > 1",
            "dict['a key with \\'quotes\\''] == 1 AND dict[\"x\"].name == 'y'",
            "@links.Person.dogs.name CONTAINS 'a' AND owners.@count == 0",
            "SUBQUERY(items, $it, $it.price > 5 AND SUBQUERY($it.parts, $p, $p.ok == true).@count == 0).@count >= 1",
            "d == T-5:-100 OR d == 2020-01-01@00:00:00 OR d BETWEEN {T0:0, T10:999999999}",
            "x == B64\"AAECAwQ=\" OR x == B64\"\" OR x == oid(000000000000000000000000)",
            "x == uuid(00000000-0000-0000-0000-000000000000) OR x == decimal128(-5) OR x == L0:0",
            "x == 9223372036854775807 OR x == -9223372036854775808 OR x == 10000000000000000000",
            "x == 1.7976931348623157e308 OR x == 5e-324 OR x == -0.0 OR x == 0.30000000000000004",
            "x == 3.4028235e38f OR x == 1e-45f OR x == infinity OR x == -infinity OR x == nan",
            "s == '' OR s == '\\u0000\\u001f\\u007f' OR s == 'tab\\there' OR s == '😀 中文 é'",
            "TRUEPREDICATE SORT(a ASC, b.c DESC) DISTINCT(a, b.c) LIMIT(0) SORT(z ASC)",
            "FALSEPREDICATE",
            "NOT (a == 1 AND (b == 2 OR NOT (c == 3)))",
            "a LIKE '*x?' AND b ENDSWITH[d] 'é' AND c CONTAINS[c] 'Q'",
            "'abc' CONTAINS name",
            "x.y.z == true AND w != false",
        ]
        for q in queries { assertRoundTrip(q) }
        assertRoundTrip("a == $0 AND b IN $1 AND c BETWEEN $2",
                        [Date(timeIntervalSince1970: -0.5), ["x", "y"], [Float(1.5), Float(2.5)]])
    }

    /// Random trees (built by hand, as the typed builder will) render, parse back and
    /// render identically.
    func testRandomTreesRoundTrip() throws {
        var rng = SplitMix64(seed: 42)
        for i in 0..<500 {
            let p = randomPredicate(depth: 0, subqueryDepth: 0, rng: &rng)
            let q = ParsedQuery(predicate: p, descriptors: Bool.random(using: &rng) ? [.limit(UInt64(i)), .sort([QuerySortKey("a", ascending: false)])] : [])
            let once = q.description
            do {
                let back = try QueryParser.parse(once)
                XCTAssertEqual(back.description, once)
            } catch {
                XCTFail("\(once): \(error)")
            }
        }
    }

    private func randomValue(_ rng: inout SplitMix64) -> QueryValue {
        switch Int.random(in: 0..<13, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 3: return .double(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        case 4: return .float(Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng)))
        case 5:
            let scalars = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                Unicode.Scalar([0x22, 0x27, 0x5C, 0x0A, 0x00, 0x41, 0xE9, 0x1F600, 0x7F, 0x2028].randomElement(using: &rng)!)!
            }
            var s = String.UnicodeScalarView()
            s.append(contentsOf: scalars)
            return .string(String(s))
        case 6: return .binary(Data((0..<Int.random(in: 0...5, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 7:
            let s = Int64.random(in: -1_000_000...1_000_000, using: &rng)
            let ns = Int32.random(in: 0...999_999_999, using: &rng)
            return .timestamp(seconds: s, nanoseconds: s < 0 ? -ns : ns)
        case 8: return .decimal(try! Decimal128(string: String(Int64.random(in: -1000...1000, using: &rng))))
        case 9: return .objectId(try! ObjectId(string: (0..<24).map { _ in String(Int.random(in: 0..<16, using: &rng), radix: 16) }.joined()))
        case 10: return .uuid(UUID())
        case 11: return .link(table: UInt32.random(in: 0...100, using: &rng), key: UInt64.random(in: 0...UInt64.max, using: &rng))
        default: return .int(Int64.random(in: -10...10, using: &rng))
        }
    }

    private func randomPath(_ rng: inout SplitMix64) -> QueryKeyPath {
        var components: [QueryKeyPathComponent] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: components.append(.backlink(className: "Cls", property: "prop"))
            case 1 where !components.isEmpty: components.append(.dictionaryKey("k \"\\ é"))
            default: components.append(.property(["a", "b", "name", "tags", "contains", "sort"].randomElement(using: &rng)!))
            }
        }
        if case .dictionaryKey = components.first { components.insert(.property("d"), at: 0) }
        let agg: QueryAggregate? = Int.random(in: 0..<4, using: &rng) == 0 ? QueryAggregate.allCases.randomElement(using: &rng) : nil
        return QueryKeyPath(components, aggregate: agg)
    }

    private func randomPredicate(depth: Int, subqueryDepth: Int, rng: inout SplitMix64) -> QueryPredicate {
        let leaf = depth >= 3 || Int.random(in: 0..<3, using: &rng) == 0
        if !leaf {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .and((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomPredicate(depth: depth + 1, subqueryDepth: subqueryDepth, rng: &rng) })
            case 1: return .or((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomPredicate(depth: depth + 1, subqueryDepth: subqueryDepth, rng: &rng) })
            default: return .not(randomPredicate(depth: depth + 1, subqueryDepth: subqueryDepth, rng: &rng))
            }
        }
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return .truePredicate
        case 1: return .falsePredicate
        default: break
        }
        let op = QueryOperator.allCases.randomElement(using: &rng)!
        var lhs: QueryOperand = .keyPath(randomPath(&rng))
        if subqueryDepth < 2, Int.random(in: 0..<10, using: &rng) == 0 {
            lhs = .subqueryCount(QuerySubquery(collection: QueryKeyPath("items"),
                                               predicate: randomPredicate(depth: 2, subqueryDepth: subqueryDepth + 1, rng: &rng)))
        }
        var rhs: QueryOperand
        switch op {
        case .between: rhs = .list(of: [randomValue(&rng), randomValue(&rng)])
        case .in: rhs = Bool.random(using: &rng) ? .list(of: (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(&rng) }) : .keyPath(randomPath(&rng))
        default: rhs = Int.random(in: 0..<4, using: &rng) == 0 ? .keyPath(randomPath(&rng)) : .value(randomValue(&rng))
        }
        if Int.random(in: 0..<5, using: &rng) == 0, op.mirrored != nil, case .value = rhs { swap(&lhs, &rhs) }
        let options = QueryStringOptions(rawValue: UInt8.random(in: 0...3, using: &rng))
        let quantifier = QueryQuantifier(rawValue: UInt8.random(in: 0...3, using: &rng))!
        return .comparison(QueryComparison(lhs, op, rhs, options: options, quantifier: quantifier))
    }
}
