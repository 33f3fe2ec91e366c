import Foundation
import XCTest
@testable import OpenRealmQuery
import OpenRealmTestSupport

/// The RQL lexer and parser: every construct parses to the tree it means, arguments
/// bind, and malformed strings fail with the offending token and its offset.
final class RQLParserTests: XCTestCase {
    // MARK: - Helpers

    private func predicate(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> QueryPredicate? {
        do {
            return try QueryParser.parse(text).predicate
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
            return nil
        }
    }

    private func comparison(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> QueryComparison? {
        guard let p = predicate(text, file: file, line: line) else { return nil }
        guard case .comparison(let c) = p else {
            XCTFail("\(text) is not a comparison: \(p)", file: file, line: line)
            return nil
        }
        return c
    }

    private func value(_ literal: String, file: StaticString = #filePath, line: UInt = #line) -> QueryValue? {
        guard let c = comparison("x == \(literal)", file: file, line: line) else { return nil }
        guard case .value(let v) = c.rhs else {
            XCTFail("\(literal) is not a constant: \(c.rhs)", file: file, line: line)
            return nil
        }
        return v
    }

    private func path(_ dotted: String) -> QueryOperand { .keyPath(QueryKeyPath(dotted)) }

    private func cmp(_ lhs: QueryOperand, _ op: QueryOperator, _ rhs: QueryOperand,
                     _ options: QueryStringOptions = [], _ q: QueryQuantifier = .implicit) -> QueryPredicate {
        .comparison(QueryComparison(lhs, op, rhs, options: options, quantifier: q))
    }

    /// Asserts that parsing fails with a syntax (or other) error at `offset` whose
    /// message names `token`.
    private func assertFails(_ text: String, kind: QueryError.Kind = .syntax, offset: Int?, token: String?,
                             file: StaticString = #filePath, line: UInt = #line) {
        guard let e = assertQueryError(kind, file: file, line: line, { "parsed \(text) as \(try QueryParser.parse(text))" }) else {
            return
        }
        XCTAssertEqual(e.offset, offset, e.message, file: file, line: line)
        if let token {
            XCTAssertTrue(e.message.contains("'\(token)'"), "message does not name '\(token)': \(e.message)",
                          file: file, line: line)
        }
        if let offset {
            XCTAssertTrue(e.message.contains("offset \(offset)"), e.message, file: file, line: line)
        }
        XCTAssertTrue(e.message.hasPrefix("Invalid query: "), e.message, file: file, line: line)
    }

    // MARK: - Comparisons

    func testComparisonOperatorsAndTheirSpellings() {
        let cases: [(String, QueryOperator)] = [
            ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .lessThan),
            ("<=", .lessThanOrEqual), ("=<", .lessThanOrEqual), (">", .greaterThan), (">=", .greaterThanOrEqual),
            ("=>", .greaterThanOrEqual),
        ]
        for (token, op) in cases {
            XCTAssertEqual(predicate("age \(token) 5"), cmp(path("age"), op, .value(.int(5))), token)
            XCTAssertEqual(predicate("age\(token)5"), cmp(path("age"), op, .value(.int(5))), token)
        }
        XCTAssertEqual(predicate("a == b"), cmp(path("a"), .equal, path("b")))
    }

    func testStringOperatorsAndOptions() {
        let ops: [(String, QueryOperator)] = [("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith),
                                              ("CONTAINS", .contains), ("LIKE", .like)]
        for (word, op) in ops {
            XCTAssertEqual(predicate("name \(word) 'a'"), cmp(path("name"), op, .value(.string("a"))))
            XCTAssertEqual(predicate("name \(word.lowercased()) 'a'"), cmp(path("name"), op, .value(.string("a"))))
            XCTAssertEqual(predicate("name \(word)[c] 'a'"),
                           cmp(path("name"), op, .value(.string("a")), .caseInsensitive))
            XCTAssertEqual(predicate("name \(word)[d] 'a'"),
                           cmp(path("name"), op, .value(.string("a")), .diacriticInsensitive))
            XCTAssertEqual(predicate("name \(word)[cd] 'a'"),
                           cmp(path("name"), op, .value(.string("a")), [.caseInsensitive, .diacriticInsensitive]))
        }
        XCTAssertEqual(predicate("name ==[c] 'a'"), cmp(path("name"), .equal, .value(.string("a")), .caseInsensitive))
        XCTAssertEqual(predicate("name !=[cd] 'a'"),
                       cmp(path("name"), .notEqual, .value(.string("a")), [.caseInsensitive, .diacriticInsensitive]))
        XCTAssertEqual(predicate("name ==[DC] 'a'"),
                       cmp(path("name"), .equal, .value(.string("a")), [.caseInsensitive, .diacriticInsensitive]))
    }

    func testBetweenAndIn() {
        XCTAssertEqual(predicate("age BETWEEN {1, 10}"), cmp(path("age"), .between, .list(of: [.int(1), .int(10)])))
        XCTAssertEqual(predicate("priority IN {1, 2, 3}"),
                       cmp(path("priority"), .in, .list(of: [.int(1), .int(2), .int(3)])))
        XCTAssertEqual(predicate("priority in {}"), cmp(path("priority"), .in, .list([])))
        XCTAssertEqual(predicate("'comedy' IN genres"), cmp(.value(.string("comedy")), .in, path("genres")))
        XCTAssertEqual(predicate("name IN[c] {'a', \"b\"}"),
                       cmp(path("name"), .in, .list(of: [.string("a"), .string("b")]), .caseInsensitive))
        // `== {list}` and `== ANY {list}` mean IN.
        XCTAssertEqual(predicate("age == {18, 21}"), cmp(path("age"), .in, .list(of: [.int(18), .int(21)])))
        XCTAssertEqual(predicate("age == ANY {18, 21}"), cmp(path("age"), .in, .list(of: [.int(18), .int(21)])))
        XCTAssertEqual(predicate("age BETWEEN $0"), cmp(path("age"), .between, .argument(0)))
        XCTAssertEqual(predicate("age IN $0"), cmp(path("age"), .in, .argument(0)))
    }

    func testQuantifiers() {
        XCTAssertEqual(predicate("ANY tags == 'a'"), cmp(path("tags"), .equal, .value(.string("a")), [], .any))
        XCTAssertEqual(predicate("some tags == 'a'"), cmp(path("tags"), .equal, .value(.string("a")), [], .any))
        XCTAssertEqual(predicate("ALL scores > 5"), cmp(path("scores"), .greaterThan, .value(.int(5)), [], .all))
        XCTAssertEqual(predicate("NONE scores > 5"), cmp(path("scores"), .greaterThan, .value(.int(5)), [], .none))
        XCTAssertEqual(predicate("none dogs.age < 2"), cmp(path("dogs.age"), .lessThan, .value(.int(2)), [], .none))
        // A quantifier on the right moves to the left with the path.
        XCTAssertEqual(predicate("5 < ALL scores"), cmp(path("scores"), .greaterThan, .value(.int(5)), [], .all))
        XCTAssertEqual(predicate("'a' IN NONE tags"), cmp(path("tags"), .equal, .value(.string("a")), [], .none))
        XCTAssertEqual(predicate("x == ANY tags"), cmp(path("x"), .equal, path("tags")))
        XCTAssertEqual(predicate("ANY %K == 1"), cmp(.keyPathArgument(0), .equal, .value(.int(1)), [], .any))
    }

    // MARK: - Logic

    func testLogicalOperatorsAndPrecedence() {
        let a = cmp(path("a"), .equal, .value(.int(1)))
        let b = cmp(path("b"), .equal, .value(.int(2)))
        let c = cmp(path("c"), .equal, .value(.int(3)))
        XCTAssertEqual(predicate("a == 1 AND b == 2"), .and([a, b]))
        XCTAssertEqual(predicate("a == 1 && b == 2"), .and([a, b]))
        XCTAssertEqual(predicate("a == 1 and b == 2 AnD c == 3"), .and([a, b, c]))
        XCTAssertEqual(predicate("a == 1 OR b == 2"), .or([a, b]))
        XCTAssertEqual(predicate("a == 1 || b == 2"), .or([a, b]))
        XCTAssertEqual(predicate("a == 1 OR b == 2 AND c == 3"), .or([a, .and([b, c])]))
        XCTAssertEqual(predicate("a == 1 AND b == 2 OR c == 3"), .or([.and([a, b]), c]))
        XCTAssertEqual(predicate("(a == 1 OR b == 2) AND c == 3"), .and([.or([a, b]), c]))
        XCTAssertEqual(predicate("NOT a == 1 AND b == 2"), .and([.not(a), b]))
        XCTAssertEqual(predicate("!a == 1 || b == 2"), .or([.not(a), b]))
        XCTAssertEqual(predicate("NOT (a == 1 OR b == 2)"), .not(.or([a, b])))
        XCTAssertEqual(predicate("not not a == 1"), .not(.not(a)))
        XCTAssertEqual(predicate("!(a == 1)"), .not(a))
        XCTAssertEqual(predicate("((a == 1))"), a)
        XCTAssertEqual(predicate("TRUEPREDICATE"), .truePredicate)
        XCTAssertEqual(predicate("falsepredicate"), .falsePredicate)
        XCTAssertEqual(predicate("TruePredicate AND a == 1"), .and([.truePredicate, a]))
    }

    // MARK: - Key paths

    func testKeyPaths() {
        XCTAssertEqual(predicate("dog.owner.name == 'x'"), cmp(path("dog.owner.name"), .equal, .value(.string("x"))))
        XCTAssertEqual(predicate("dict['key'] == 1"),
                       cmp(.keyPath(QueryKeyPath([.property("dict"), .dictionaryKey("key")])), .equal, .value(.int(1))))
        XCTAssertEqual(predicate("dict[\"a.b\"].name == 1"),
                       cmp(.keyPath(QueryKeyPath([.property("dict"), .dictionaryKey("a.b"), .property("name")])),
                           .equal, .value(.int(1))))
        XCTAssertEqual(predicate("@links.Person.dogs.name == 'a'"),
                       cmp(.keyPath(QueryKeyPath([.backlink(className: "Person", property: "dogs"), .property("name")])),
                           .equal, .value(.string("a"))))
        XCTAssertEqual(predicate("owner.@links.Dog.owner.@count > 1"),
                       cmp(.keyPath(QueryKeyPath([.property("owner"), .backlink(className: "Dog", property: "owner")],
                                                 aggregate: .count)), .greaterThan, .value(.int(1))))
        // Operator words are property names where a key path is expected.
        XCTAssertEqual(predicate("contains == 1"), cmp(path("contains"), .equal, .value(.int(1))))
        XCTAssertEqual(predicate("sort.limit == 1"), cmp(path("sort.limit"), .equal, .value(.int(1))))
        XCTAssertEqual(predicate("größe > 1"), cmp(path("größe"), .greaterThan, .value(.int(1))))
        XCTAssertEqual(predicate("_id == 1"), cmp(path("_id"), .equal, .value(.int(1))))
    }

    func testAggregates() {
        for agg in QueryAggregate.allCases {
            XCTAssertEqual(predicate("items.@\(agg.name) > 1"),
                           cmp(.keyPath(QueryKeyPath("items", aggregate: agg)), .greaterThan, .value(.int(1))), agg.name)
        }
        XCTAssertEqual(predicate("items.@average > 1"),
                       cmp(.keyPath(QueryKeyPath("items", aggregate: .avg)), .greaterThan, .value(.int(1))))
        // `items.@sum.price` is `items.price.@sum`.
        XCTAssertEqual(predicate("items.@sum.price > 10"),
                       cmp(.keyPath(QueryKeyPath("items.price", aggregate: .sum)), .greaterThan, .value(.int(10))))
        XCTAssertEqual(predicate("items.price.@sum > 10"),
                       cmp(.keyPath(QueryKeyPath("items.price", aggregate: .sum)), .greaterThan, .value(.int(10))))
        XCTAssertEqual(predicate("dict.@keys == 'a'"),
                       cmp(.keyPath(QueryKeyPath("dict", aggregate: .keys)), .equal, .value(.string("a"))))
    }

    func testSubquery() {
        let inner = QueryPredicate.and([
            cmp(path("price"), .greaterThan, .value(.int(5))),
            cmp(path("name"), .beginsWith, .value(.string("a"))),
        ])
        XCTAssertEqual(predicate("SUBQUERY(items, $item, $item.price > 5 AND $item.name BEGINSWITH 'a').@count > 0"),
                       cmp(.subqueryCount(QuerySubquery(collection: QueryKeyPath("items"), predicate: inner)),
                           .greaterThan, .value(.int(0))))
        XCTAssertEqual(predicate("subquery(a.items, $x, $x == $0).@size == 2"),
                       cmp(.subqueryCount(QuerySubquery(
                        collection: QueryKeyPath("a.items"),
                        predicate: cmp(.keyPath(QueryKeyPath([])), .equal, .argument(0)))),
                           .equal, .value(.int(2))))
        // Nested: the inner variable shadows the outer one.
        let nested = predicate("SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == 1).@count > 0).@count > 0")
        let innerMost = QuerySubquery(collection: QueryKeyPath("c"), predicate: .truePredicate)
        _ = innerMost
        guard case .comparison(let outer)? = nested, case .subqueryCount(let s) = outer.lhs,
              case .comparison(let mid) = s.predicate, case .subqueryCount(let s2) = mid.lhs else {
            return XCTFail("nested subquery shape: \(String(describing: nested))")
        }
        XCTAssertEqual(s2.collection, QueryKeyPath("b"))
        XCTAssertEqual(s2.predicate, cmp(path("c"), .equal, .value(.int(1))))
    }

    // MARK: - Literals

    func testNullBoolAndNumbers() {
        XCTAssertEqual(value("nil"), .null)
        XCTAssertEqual(value("NULL"), .null)
        XCTAssertEqual(value("null"), .null)
        XCTAssertEqual(value("true"), .bool(true))
        XCTAssertEqual(value("FALSE"), .bool(false))
        XCTAssertEqual(value("42"), .int(42))
        XCTAssertEqual(value("-42"), .int(-42))
        XCTAssertEqual(value("+42"), .int(42))
        XCTAssertEqual(value("0x1F"), .int(31))
        XCTAssertEqual(value("-0x10"), .int(-16))
        XCTAssertEqual(value("9223372036854775807"), .int(Int64.max))
        XCTAssertEqual(value("-9223372036854775808"), .int(Int64.min))
        XCTAssertEqual(value("1.5"), .double(1.5))
        XCTAssertEqual(value("-1.5"), .double(-1.5))
        XCTAssertEqual(value(".5"), .double(0.5))
        XCTAssertEqual(value("5."), .double(5))
        XCTAssertEqual(value("1e3"), .double(1000))
        XCTAssertEqual(value("2.5E-3"), .double(0.0025))
        XCTAssertEqual(value("1e+20"), .double(1e20))
        XCTAssertEqual(value("1.5f"), .float(1.5))
        XCTAssertEqual(value("2f"), .float(2))
        XCTAssertEqual(value("0.30000000000000004"), .double(0.1 + 0.2))
        XCTAssertEqual(value("infinity"), .double(.infinity))
        XCTAssertEqual(value("-inf"), .double(-.infinity))
        guard case .double(let nan)? = value("NaN") else { return XCTFail("nan") }
        XCTAssertTrue(nan.isNaN)
        // Integers past Int64 are decimals.
        XCTAssertEqual(value("10000000000000000000"), .decimal(try! Decimal128(string: "10000000000000000000")))
        XCTAssertEqual(value("decimal128(125)"), .decimal(try! Decimal128(string: "125")))
        XCTAssertEqual(value("decimal128( -7 )"), .decimal(try! Decimal128(string: "-7")))
    }

    func testStrings() {
        XCTAssertEqual(value("'abc'"), .string("abc"))
        XCTAssertEqual(value("\"abc\""), .string("abc"))
        XCTAssertEqual(value("''"), .string(""))
        XCTAssertEqual(value(#"'it\'s'"#), .string("it's"))
        XCTAssertEqual(value(#""say \"hi\"""#), .string("say \"hi\""))
        XCTAssertEqual(value(#"'a"b'"#), .string("a\"b"))
        XCTAssertEqual(value(#"'\\ \/ \n \r \t \b \f \0'"#), .string("\\ / \n \r \t \u{08} \u{0C} \u{00}"))
        XCTAssertEqual(value(#"'\u00e9\u4E2D'"#), .string("é中"))
        XCTAssertEqual(value(#"'\ud83d\ude00'"#), .string("😀"))
        XCTAssertEqual(value("'día 😀 中'"), .string("día 😀 中"))
        XCTAssertEqual(value("'AND OR ) ('"), .string("AND OR ) ("))
    }

    func testTypedLiterals() throws {
        XCTAssertEqual(value("oid(507f1f77bcf86cd799439011)"),
                       .objectId(try ObjectId(string: "507f1f77bcf86cd799439011")))
        XCTAssertEqual(value("oid(507F1F77BCF86CD799439011)"),
                       .objectId(try ObjectId(string: "507f1f77bcf86cd799439011")))
        XCTAssertEqual(value("uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)"),
                       .uuid(UUID(uuidString: "D1B186E1-E9E0-4768-A1A7-C492519D47EE")!))
        XCTAssertEqual(value("T1700000000:500"), .timestamp(seconds: 1_700_000_000, nanoseconds: 500))
        XCTAssertEqual(value("T-5:-100"), .timestamp(seconds: -5, nanoseconds: -100))
        XCTAssertEqual(value("T0:-3"), .timestamp(seconds: 0, nanoseconds: -3))
        XCTAssertEqual(value("2021-02-20@17:30:15"), .timestamp(seconds: 1_613_842_215, nanoseconds: 0))
        XCTAssertEqual(value("2021-02-20T17:30:15:123"), .timestamp(seconds: 1_613_842_215, nanoseconds: 123))
        XCTAssertEqual(value("1970-01-01@00:00:00"), .timestamp(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(value("1969-12-31@23:59:59:500000000"), .timestamp(seconds: 0, nanoseconds: -500_000_000))
        XCTAssertEqual(value("2024-02-29@00:00:00"), .timestamp(seconds: 1_709_164_800, nanoseconds: 0))
        XCTAssertEqual(value("B64\"AAEC/w==\""), .binary(Data([0, 1, 2, 255])))
        XCTAssertEqual(value("B64\"\""), .binary(Data()))
        XCTAssertEqual(value("L3:17"), .link(table: 3, key: 17))
    }

    // MARK: - Arguments

    func testArgumentsAreNumbered() {
        XCTAssertEqual(predicate("a == $0 AND b == $1 AND c == $0"),
                       .and([cmp(path("a"), .equal, .argument(0)), cmp(path("b"), .equal, .argument(1)),
                             cmp(path("c"), .equal, .argument(0))]))
        XCTAssertEqual(predicate("a == %@ AND %K == %@ AND b IN {%@, 3}"),
                       .and([cmp(path("a"), .equal, .argument(0)), cmp(.keyPathArgument(1), .equal, .argument(2)),
                             cmp(path("b"), .in, .list([.argument(3), .value(.int(3))]))]))
    }

    private struct Status: QueryValueConvertible {
        var raw: Int
        var queryValue: QueryValue { .int(Int64(raw)) }
    }

    func testArgumentBinding() throws {
        let oid = try ObjectId(string: "507f1f77bcf86cd799439011")
        let uuid = UUID()
        let dec = try Decimal128(string: "12")
        let date = Date(timeIntervalSince1970: 1.25)
        let none: Int? = nil
        let some: Int? = 7
        let args: [(Any, QueryValue)] = [
            (true, .bool(true)), (5, .int(5)), (Int8(-3), .int(-3)), (Int16(300), .int(300)),
            (Int32(-70000), .int(-70000)), (Int64.max, .int(.max)), (UInt(9), .int(9)), (UInt8(255), .int(255)),
            (UInt16(9), .int(9)), (UInt32(9), .int(9)), (UInt64(9), .int(9)), (Float(1.5), .float(1.5)),
            (2.5, .double(2.5)), ("s", .string("s")), ("sub"[...], .string("sub")), (Character("c"), .string("c")),
            (Data([1, 2]), .binary(Data([1, 2]))), (date, .timestamp(seconds: 1, nanoseconds: 250_000_000)),
            (Date(timeIntervalSince1970: -1.25), .timestamp(seconds: -1, nanoseconds: -250_000_000)),
            (uuid, .uuid(uuid)), (dec, .decimal(dec)), (oid, .objectId(oid)), (none as Any, .null), (some as Any, .int(7)),
            (NSNull(), .null), (Status(raw: 3), .int(3)), (QueryValue.link(table: 2, key: 9), .link(table: 2, key: 9)),
        ]
        for (i, (arg, expected)) in args.enumerated() {
            let q = try QueryParser.parse("x == $0", arguments: [arg])
            XCTAssertEqual(q.predicate, cmp(path("x"), .equal, .value(expected)), "argument \(i): \(arg)")
        }
        // Arrays and sets become lists.
        XCTAssertEqual(try QueryParser.parse("x IN $0", arguments: [[1, 2, 3]]).predicate,
                       cmp(path("x"), .in, .list(of: [.int(1), .int(2), .int(3)])))
        let set = try QueryParser.parse("x IN %@", arguments: [Set(["a"])]).predicate
        XCTAssertEqual(set, cmp(path("x"), .in, .list(of: [.string("a")])))
        XCTAssertEqual(try QueryParser.parse("x BETWEEN $0", arguments: [[1.5, 2.5]]).predicate,
                       cmp(path("x"), .between, .list(of: [.double(1.5), .double(2.5)])))
        XCTAssertEqual(try QueryParser.parse("x IN {$1, %@}", arguments: ["a", "b"]).predicate,
                       cmp(path("x"), .in, .list(of: [.string("b"), .string("a")])))
        XCTAssertEqual(try QueryParser.parse("x == $0", arguments: [[Int?.none, 1]]).predicate,
                       cmp(path("x"), .equal, .list(of: [.null, .int(1)])))
        // %K takes a key path.
        XCTAssertEqual(try QueryParser.parse("%K == %@", arguments: ["dog.name", "Rex"]).predicate,
                       cmp(path("dog.name"), .equal, .value(.string("Rex"))))
        XCTAssertEqual(try QueryParser.parse("%K > 1 OR %K == 1", arguments: ["a", "b"]).predicate.hasPlaceholders, false)
        // Subqueries bind too; extra arguments are ignored.
        let sub = try QueryParser.parse("SUBQUERY(items, $x, $x.p == $0).@count > $1", arguments: [1, 0, "extra"])
        XCTAssertFalse(sub.hasPlaceholders)
    }

    private func assertBindingFails(_ text: String, _ args: [Any], kind: QueryError.Kind, mentions: [String],
                                    file: StaticString = #filePath, line: UInt = #line) {
        assertQueryError(kind, mentions: mentions, file: file, line: line) {
            "bound \(text) as \(try QueryParser.parse(text, arguments: args))"
        }
    }

    func testBadArguments() {
        assertBindingFails("a == $0 AND b == $2", [1, 2], kind: .badArgument, mentions: ["$2", "only 2 arguments"])
        assertBindingFails("a == %@", [], kind: .badArgument, mentions: ["$0", "only 0 arguments"])
        assertBindingFails("a == $0", [URL(fileURLWithPath: "/tmp")], kind: .badArgument, mentions: ["$0", "URL"])
        assertBindingFails("a == $1", [1, ["k": 1]], kind: .badArgument, mentions: ["$1", "Dictionary"])
        assertBindingFails("a == $0", [UInt64.max], kind: .badArgument, mentions: ["$0", "18446744073709551615"])
        assertBindingFails("a IN $0", [[[1]]], kind: .badArgument, mentions: ["$0", "list of lists"])
        assertBindingFails("a IN {$0}", [[1]], kind: .badArgument, mentions: ["$0", "list"])
        assertBindingFails("a BETWEEN $0", [[1, 2, 3]], kind: .badArgument, mentions: ["$0", "3"])
        assertBindingFails("a BETWEEN $0", [1], kind: .badArgument, mentions: ["$0", "Int"])
        assertBindingFails("a < $0", [[1, 2]], kind: .unsupported, mentions: ["$0", "'<'"])
        assertBindingFails("%K == 1", [5], kind: .badArgument, mentions: ["%K", "$0", "Int"])
        assertBindingFails("%K == 1", ["a b"], kind: .badArgument, mentions: ["%K", "'a b'"])
    }

    // MARK: - Descriptors

    func testDescriptors() throws {
        let q = try QueryParser.parse("TRUEPREDICATE SORT(name ASC, age DESC) DISTINCT(name, dog.name) LIMIT(10) sort(x)")
        XCTAssertEqual(q.descriptors, [
            .sort([QuerySortKey("name", ascending: true), QuerySortKey("age", ascending: false)]),
            .distinct([QueryKeyPath("name"), QueryKeyPath("dog.name")]),
            .limit(10),
            .sort([QuerySortKey("x", ascending: true)]),
        ])
        let q2 = try QueryParser.parse("a == 1 sort(a ascending, b Descending) limit(0)")
        XCTAssertEqual(q2.descriptors, [.sort([QuerySortKey("a"), QuerySortKey("b", ascending: false)]), .limit(0)])
        XCTAssertEqual(try QueryParser.parseKeyPath("dog.name"), QueryKeyPath("dog.name"))
        XCTAssertEqual(try QueryParser.parseKeyPath("items.@count"), QueryKeyPath("items", aggregate: .count))
        XCTAssertEqual(try QueryParser.parseKeyPath("d['k']"), QueryKeyPath([.property("d"), .dictionaryKey("k")]))
    }

    // MARK: - Errors

    func testMalformedQueriesNameTheTokenAndOffset() {
        assertFails("name == AND x", offset: 8, token: "AND")
        assertFails("", offset: 0, token: nil)
        assertFails("   ", offset: 0, token: nil)
        assertFails("name ==", offset: 7, token: nil)
        assertFails("name", offset: 4, token: nil)
        assertFails("name 5", offset: 5, token: "5")
        assertFails("age > 5 AND", offset: 11, token: nil)
        assertFails("age > 5 OR OR age < 3", offset: 11, token: "OR")
        assertFails("(age > 5", offset: 8, token: nil)
        assertFails("age > 5)", offset: 7, token: ")")
        assertFails("age > 5 age < 3", offset: 8, token: "age")
        assertFails("== 5", offset: 0, token: "==")
        assertFails("name == 'abc", offset: 8, token: nil)
        assertFails("name == \"abc", offset: 8, token: nil)
        assertFails(#"name == 'a\qb'"#, offset: 10, token: #"\q"#)
        assertFails(#"name == '\u12'"#, offset: 9, token: nil)
        assertFails(#"name == '\ud83d'"#, offset: 9, token: nil)
        assertFails("name # 5", offset: 5, token: "#")
        assertFails("a & b", offset: 2, token: "&")
        assertFails("a | b", offset: 2, token: "|")
        assertFails("a == %s", offset: 5, token: "%s")
        assertFails("name BEGINSWITH[x] 'a'", offset: 16, token: "x")
        assertFails("name ==[c 'a'", offset: 10, token: "'a'")
        assertFails("age BETWEEN {1}", offset: 12, token: nil)
        assertFails("age BETWEEN {1, 2, 3}", offset: 12, token: nil)
        assertFails("age BETWEEN 5", offset: 12, token: "5")
        assertFails("age IN 5", offset: 7, token: "5")
        assertFails("age IN {1, 2", offset: 12, token: nil)
        assertFails("age IN {1 2}", offset: 10, token: "2")
        assertFails("age IN {1, name}", offset: 11, token: "name")
        assertFails("age == 12abc", offset: 7, token: "12abc")
        assertFails("age == 0x", offset: 7, token: "0x")
        assertFails("age == 0xFFFFFFFFFFFFFFFFF", offset: 7, token: "0xFFFFFFFFFFFFFFFFF")
        assertFails("age == 0x8000000000000000", offset: 7, token: "0x8000000000000000")
        assertFails("age == -", offset: 8, token: nil)
        assertFails("age == - 'a'", offset: 9, token: "'a'")
        assertFails("d == 2021-02-30@10:00:00", offset: 5, token: "2021-02-30@10:00:00")
        assertFails("d == 2021-13-01@10:00:00", offset: 5, token: "2021-13-01@10:00:00")
        assertFails("d == T5:-3", offset: 5, token: "T5:-3")
        assertFails("d == T1:1000000000", offset: 5, token: "T1:1000000000")
        assertFails("o == oid(123)", offset: 5, token: "oid(123)")
        assertFails("o == oid(507f1f77bcf86cd79943901g)", offset: 5, token: "oid(507f1f77bcf86cd79943901g)")
        assertFails("o == oid(507f1f77bcf86cd799439011", offset: 5, token: nil)
        assertFails("u == uuid(not-a-uuid)", offset: 5, token: "uuid(not-a-uuid)")
        assertFails("b == B64\"!!\"", offset: 5, token: "B64\"!!\"")
        assertFails("b == B64\"AAE", offset: 5, token: nil)
        assertFails("x == decimal128(abc)", offset: 5, token: "decimal128(abc)")
        assertFails("a. == 1", offset: 3, token: "==")
        assertFails("a..b == 1", offset: 2, token: ".")
        assertFails("a.@foo == 1", offset: 2, token: "@foo")
        assertFails("a.@count.b == 1", offset: 9, token: "b")
        assertFails("@ == 1", offset: 0, token: "@")
        assertFails("dict[1] == 1", kind: .unsupported, offset: 5, token: "[1]")
        assertFails("list[FIRST] == 1", kind: .unsupported, offset: 5, token: "[FIRST]")
        assertFails("dict['a' == 1", offset: 9, token: "==")
        assertFails("a.@type == 'int'", kind: .unsupported, offset: 2, token: "@type")
        assertFails("@links.@count > 1", kind: .unsupported, offset: 7, token: "@links.@count")
        assertFails("@links.Person == 1", offset: 14, token: "==")
        assertFails("ANY 5 == x", offset: 4, token: "5")
        assertFails("ALL {1, 2} == x", kind: .unsupported, offset: 4, token: nil)
        assertFails("x == NONE {1, 2}", kind: .unsupported, offset: 10, token: "NONE")
        assertFails("x < {1, 2}", kind: .unsupported, offset: 4, token: "<")
        assertFails("x == ALL y", kind: .unsupported, offset: 9, token: "ALL")
        assertFails("'a' BEGINSWITH ALL names", kind: .unsupported, offset: 19, token: "ALL")
        assertFails("SUBQUERY(items, $x, price > 5).@count > 0", offset: 20, token: "price")
        assertFails("SUBQUERY(items, $x, $y.price > 5).@count > 0", offset: 20, token: "$y")
        assertFails("SUBQUERY(items, x, $x.price > 5).@count > 0", offset: 16, token: "x")
        assertFails("SUBQUERY(items, $0, $0 > 5).@count > 0", offset: 16, token: "$0")
        assertFails("SUBQUERY(items, $x, $x.price > 5) > 0", offset: 34, token: ">")
        assertFails("SUBQUERY(items, $x, $x.price > 5).@sum > 0", offset: 34, token: "@sum")
        assertFails("SUBQUERY(items.@count, $x, $x.a > 5).@count > 0", offset: 0, token: "items.@count")
        assertFails("$x.price > 5", offset: 0, token: "$x")
        assertFails("TRUEPREDICATE SORT(name UP)", offset: 24, token: "UP")
        assertFails("TRUEPREDICATE SORT()", offset: 19, token: ")")
        assertFails("TRUEPREDICATE DISTINCT(a,)", offset: 25, token: ")")
        assertFails("TRUEPREDICATE LIMIT(-1)", offset: 20, token: "-")
        assertFails("TRUEPREDICATE LIMIT(a)", offset: 20, token: "a")
        assertFails("TRUEPREDICATE LIMIT(5) AND a == 1", offset: 23, token: "AND")
        assertFails("SORT(a ASC)", offset: 4, token: "(")
        assertFails("a == 1 LIMIT 5", offset: 7, token: "LIMIT")
        assertFails("x == $99999999999", offset: 5, token: "$99999999999")
        assertFails("NOT", offset: 3, token: nil)
        assertFails("()", offset: 1, token: ")")
        assertFails("a == ()", offset: 5, token: "(")
        assertFails("a == 1 AND () ", offset: 12, token: ")")
        assertFails("x == nil nil", offset: 9, token: "nil")
        assertFails("x ==[c]", offset: 7, token: nil)
        assertFails("x == 'a' OR", offset: 11, token: nil)
    }

    func testErrorMessageFormat() {
        do {
            _ = try QueryParser.parse("name == AND x")
            XCTFail("parsed")
        } catch let e as QueryError {
            XCTAssertEqual(e.message,
                           "Invalid query: unexpected 'AND' at offset 8 (expected a value or key path after '==') in \"name == AND x\"")
        } catch {
            XCTFail("\(error)")
        }
        // Offsets count Unicode scalars, not bytes.
        assertFails("naïve == ==", offset: 9, token: "==")
        // A long query is shortened around the offset.
        let long = String(repeating: "a == 1 AND ", count: 100) + "b ==="
        do {
            _ = try QueryParser.parse(long)
            XCTFail("parsed")
        } catch let e as QueryError {
            XCTAssertEqual(e.offset, 1104)
            XCTAssertLessThan(e.message.count, 300, e.message)
            XCTAssertTrue(e.message.contains("…"))
        } catch {
            XCTFail("\(error)")
        }
    }

    func testNestingIsBounded() throws {
        let ok = String(repeating: "(", count: 90) + "a == 1" + String(repeating: ")", count: 90)
        XCTAssertEqual(try QueryParser.parse(ok).predicate, .comparison(QueryComparison(.keyPath("a"), .equal, .value(.int(1)))))
        assertFails(String(repeating: "(", count: 5000) + "a == 1", kind: .unsupported, offset: 100, token: "(")
        assertFails(String(repeating: "NOT ", count: 5000) + "a == 1", kind: .unsupported, offset: 400, token: "NOT")
        assertFails(String(repeating: "!", count: 101) + "a == 1", kind: .unsupported, offset: 100, token: "!")
    }

    /// Random strings of RQL-ish tokens never crash the parser: they parse or throw a QueryError.
    func testRandomTokenSoupNeverCrashes() {
        let pieces = ["a", "b.c", "==", "!=", "<", ">=", "AND", "OR", "NOT", "(", ")", "{", "}", ",", "'x'", "\"y\"",
                      "5", "-1.5", "$0", "%@", "%K", "ANY", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "[c]",
                      "@count", ".", "SUBQUERY", "$x", "TRUEPREDICATE", "SORT", "LIMIT", "ASC", "nil", "T1:2",
                      "oid(", "B64\"", "[", "]", "'", "\\", "@links", "0x", "1e", "&&", "||", "!"]
        var rng = SplitMix64(seed: 7)
        var parsed = 0
        for _ in 0..<3000 {
            let n = Int.random(in: 1...8, using: &rng)
            let text = (0..<n).map { _ in pieces.randomElement(using: &rng)! }.joined(separator: Bool.random(using: &rng) ? " " : "")
            do {
                let q = try QueryParser.parse(text)
                parsed += 1
                // What parses renders and parses again.
                XCTAssertNoThrow(try QueryParser.parse(q.description), "\(text) -> \(q.description)")
            } catch let e as QueryError {
                XCTAssertFalse(e.message.isEmpty)
                if let o = e.offset { XCTAssertLessThanOrEqual(o, text.unicodeScalars.count, "\(text): \(e.message)") }
            } catch {
                XCTFail("\(text): \(error)")
            }
        }
        XCTAssertGreaterThan(parsed, 10)
    }
}

