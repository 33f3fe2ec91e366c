import Foundation
import XCTest
@testable import OpenRealmQuery

/// The evaluator's tricky cases one by one, on hand-made images (the differential test
/// checks the same against ORCore at random): ORCore's order of numbers (NaN, -0.0,
/// ints beyond 2^53, decimals), case folding and diacritics as text.c has them, strings
/// compared as bytes, nulls, quantifiers over empty collections, aggregates of nothing,
/// and images that cannot answer.
final class QueryEvaluatorTests: XCTestCase {
    struct Image: QueryEvaluable {
        var fields: [String: QueryPropertyValue]
        var key: UInt64?
        var linking: [String: [Image]]?

        init(_ fields: [String: QueryPropertyValue], key: UInt64? = nil, linking: [String: [Image]]? = nil) {
            self.fields = fields
            self.key = key
            self.linking = linking
        }

        func queryProperty(_ name: String) -> QueryPropertyValue? { fields[name] }
        var queryObjectKey: UInt64? { key }
        func queryLinkingObjects(className: String, property: String) -> [any QueryEvaluable]? {
            linking.map { $0["\(className).\(property)"] ?? [] }
        }
    }

    static let schema = QuerySchemaList([
        QuerySchemaClass(name: "P", table: 1, properties: [
            QuerySchemaProperty(name: "i", column: 0, type: .int),
            QuerySchemaProperty(name: "oi", column: 1, type: .int, isOptional: true),
            QuerySchemaProperty(name: "d", column: 2, type: .double),
            QuerySchemaProperty(name: "s", column: 3, type: .string),
            QuerySchemaProperty(name: "bin", column: 4, type: .binary),
            QuerySchemaProperty(name: "dec", column: 5, type: .decimal),
            QuerySchemaProperty(name: "m", column: 6, type: .mixed, isOptional: true),
            QuerySchemaProperty(name: "b", column: 7, type: .bool),
            QuerySchemaProperty(name: "li", column: 8, type: .int, collection: .list),
            QuerySchemaProperty(name: "ld", column: 9, type: .double, collection: .list),
            QuerySchemaProperty(name: "dm", column: 10, type: .mixed, collection: .dictionary, isOptional: true),
            QuerySchemaProperty(name: "dog", column: 11, type: .link, isOptional: true, linkTargetClass: "D"),
            QuerySchemaProperty(name: "dogs", column: 12, type: .link, collection: .list, linkTargetClass: "D"),
        ]),
        QuerySchemaClass(name: "D", table: 2, properties: [
            QuerySchemaProperty(name: "name", column: 0, type: .string),
            QuerySchemaProperty(name: "age", column: 1, type: .int),
            .linkingObjects(name: "owners", originClass: "P", originProperty: "dogs"),
        ]),
    ])

    private func matches(_ rql: String, _ image: Image, _ arguments: [Any] = [], className: String = "P") throws -> Bool {
        let query = try QueryParser.parse(rql, arguments: arguments)
        return try QueryEvaluator(query.predicate, className: className, schema: Self.schema).matches(image)
    }

    private func p(_ fields: [String: QueryPropertyValue]) -> Image { Image(fields) }

    // MARK: - Numbers

    func testNaNEqualsNaNAndSortsBelowEveryNumber() throws {
        let nan = p(["d": .value(.double(.nan))])
        XCTAssertTrue(try matches("d == nan", nan))
        XCTAssertTrue(try matches("d < -infinity", nan))
        XCTAssertFalse(try matches("d > -infinity", nan))
        XCTAssertTrue(try matches("d BETWEEN {nan, 0}", nan))
    }

    func testNegativeZeroEqualsZero() throws {
        XCTAssertTrue(try matches("d == 0", p(["d": .value(.double(-0.0))])))
        XCTAssertTrue(try matches("d == -0.0", p(["d": .value(.double(0))])))
    }

    func testIntsCompareWithDoublesExactlyBeyondTwoToThe53() throws {
        let big = p(["i": .value(.int((1 << 53) + 1))])
        XCTAssertFalse(try matches("i == 9007199254740992.0", big))
        XCTAssertTrue(try matches("i > 9007199254740992.0", big))
        XCTAssertTrue(try matches("i < 9223372036854775808.0", p(["i": .value(.int(.max))])))
        XCTAssertTrue(try matches("i == -9223372036854775808", p(["i": .value(.int(.min))])))
    }

    func testDecimalsCompareWithDoublesThroughTheirShortestDecimal() throws {
        let tenth = p(["dec": .value(.decimal(try Decimal128(string: "0.1")))])
        XCTAssertTrue(try matches("dec == 0.1", tenth))
        XCTAssertTrue(try matches("dec == decimal128(0.100)", tenth))
        XCTAssertFalse(try matches("dec > 0.1", tenth))
    }

    func testMixedComparesNumbersByValueAndOtherKindsNever() throws {
        let one = p(["m": .value(.double(1))])
        XCTAssertTrue(try matches("m == 1", one))
        XCTAssertFalse(try matches("m == '1'", one))
        XCTAssertFalse(try matches("m > 'a'", one))
        XCTAssertFalse(try matches("m < 'a'", one))
        XCTAssertTrue(try matches("m != 'a'", one))
    }

    // MARK: - Strings

    func testStringsCompareAsBytesNotAsCanonicallyEquivalentCharacters() throws {
        let composed = p(["s": .value(.string("é"))])
        XCTAssertFalse(try matches("s == 'e\u{301}'", composed)) // Swift's == would say they are equal
        XCTAssertTrue(try matches("s ==[d] 'e\u{301}'", composed))
        XCTAssertTrue(try matches("s > 'e\u{301}'", composed)) // C3 A9 after 65 CC 81
    }

    func testCaseFoldingIsORCoresSimpleFolding() throws {
        XCTAssertTrue(try matches("s ==[c] 'ǆ'", p(["s": .value(.string("ǅ"))])))
        XCTAssertTrue(try matches("s ==[c] 'σ'", p(["s": .value(.string("ς"))])))
        XCTAssertTrue(try matches("s ==[c] 'ΆΒ'", p(["s": .value(.string("άβ"))])))
        XCTAssertTrue(try matches("s ==[c] 'μ'", p(["s": .value(.string("µ"))]))) // the micro sign
        XCTAssertFalse(try matches("s ==[c] 'STRASSE'", p(["s": .value(.string("straße"))]))) // no multi-character folds
        XCTAssertFalse(try matches("s ==[c] 'i'", p(["s": .value(.string("İ"))])))
        XCTAssertFalse(try matches("s ==[c] 'ω'", p(["s": .value(.string("\u{2126}"))]))) // the ohm sign is outside the tables
    }

    func testDiacriticsAreRemovedAsORCoreRemovesThem() throws {
        XCTAssertTrue(try matches("s ==[d] 'Lodz'", p(["s": .value(.string("Łódź"))])))
        XCTAssertTrue(try matches("s ==[cd] 'е'", p(["s": .value(.string("Ё"))])))
        XCTAssertTrue(try matches("s BEGINSWITH[d] 'ang'", p(["s": .value(.string("ångström"))])))
        XCTAssertFalse(try matches("s BEGINSWITH 'ang'", p(["s": .value(.string("ångström"))])))
        XCTAssertTrue(try matches("s CONTAINS[cd] 'E'", p(["s": .value(.string("e\u{301}"))])))
    }

    func testLikeMatchesCodePoints() throws {
        XCTAssertTrue(try matches("s LIKE '??'", p(["s": .value(.string("日本"))])))
        XCTAssertTrue(try matches("s LIKE 'a*c*'", p(["s": .value(.string("abcabd"))])))
        XCTAssertFalse(try matches("s LIKE 'a*c'", p(["s": .value(.string("abcabd"))])))
        XCTAssertTrue(try matches("s LIKE[c] 'A?C'", p(["s": .value(.string("abc"))])))
        XCTAssertTrue(try matches("s LIKE ''", p(["s": .value(.string(""))])))
        XCTAssertTrue(try matches("s CONTAINS ''", p(["s": .value(.string(""))])))
    }

    func testAStringConstantMeetsABinaryAsItsBytes() throws {
        let abc = p(["bin": .value(.binary(Data("abc".utf8)))])
        XCTAssertTrue(try matches("bin == 'abc'", abc))
        XCTAssertTrue(try matches("bin BEGINSWITH 'ab'", abc))
        XCTAssertTrue(try matches("bin.@count == 3", abc))
        XCTAssertTrue(try matches("s.@count == 2", p(["s": .value(.string("é"))]))) // bytes, not characters
    }

    // MARK: - Nulls, quantifiers, aggregates

    func testNullEqualsOnlyNullAndOrdersWithNothing() throws {
        let none = p(["oi": .value(.null), "dog": .object(nil)])
        XCTAssertTrue(try matches("oi == nil", none))
        XCTAssertTrue(try matches("oi != 1", none))
        XCTAssertFalse(try matches("oi < 1", none))
        XCTAssertFalse(try matches("oi >= 1", none))
        XCTAssertTrue(try matches("dog.name == nil", none))
        XCTAssertTrue(try matches("dog == nil", none))
    }

    func testQuantifiersOverEmptyAndFullLists() throws {
        let empty = p(["li": .values([])]), some = p(["li": .values([.int(1), .int(5)])])
        XCTAssertTrue(try matches("ALL li > 3", empty))
        XCTAssertTrue(try matches("NONE li > 3", empty))
        XCTAssertFalse(try matches("ANY li > 3", empty))
        XCTAssertFalse(try matches("ALL li > 3", some))
        XCTAssertTrue(try matches("li > 3", some))
        XCTAssertTrue(try matches("3 IN li", p(["li": .values([.int(3)])])))
        XCTAssertTrue(try matches("li IN {7, 5}", some))
    }

    func testAggregatesOfNothingAndOverflowingSums() throws {
        let empty = p(["li": .values([]), "ld": .values([])])
        XCTAssertTrue(try matches("ld.@sum == 0", empty))
        XCTAssertTrue(try matches("li.@avg == nil", empty))
        XCTAssertTrue(try matches("li.@max == nil", empty))
        XCTAssertTrue(try matches("li.@count == 0", empty))
        let over = p(["li": .values([.int(.max), .int(.max)])])
        XCTAssertTrue(try matches("li.@sum > 9223372036854775807", over)) // continued in Double
        XCTAssertTrue(try matches("li.@avg == 9.2233720368547758e18", over)) // 2^63, a double
    }

    func testDictionaryKeysMatchByBytes() throws {
        let d = p(["dm": .dictionary([(key: "é", value: .int(1))])])
        XCTAssertTrue(try matches("dm['é'] == 1", d))
        XCTAssertTrue(try matches("dm['e\u{301}'] == nil", d))
        XCTAssertTrue(try matches("dm.@keys == 'é'", d))
        XCTAssertTrue(try matches("dm.@count == 1", d))
    }

    // MARK: - Links

    func testLinksBacklinksAndSubqueries() throws {
        let rex = Image(["name": .value(.string("Rex")), "age": .value(.int(3))], key: 7)
        let fido = Image(["name": .value(.string("Fido")), "age": .value(.int(9))], key: 8)
        let owner = p(["dog": .object(rex), "dogs": .objects([rex, fido])])
        XCTAssertTrue(try matches("dog.name == 'Rex'", owner))
        XCTAssertTrue(try matches("ANY dogs.age > 5", owner))
        XCTAssertFalse(try matches("ALL dogs.age > 5", owner))
        XCTAssertTrue(try matches("dogs.age.@sum == 12", owner))
        XCTAssertTrue(try matches("SUBQUERY(dogs, $x, $x.age > 2 AND $x.name BEGINSWITH 'F').@count == 1", owner))
        XCTAssertTrue(try matches("dog == $0", owner, [QueryValue.link(table: 2, key: 7)]))
        XCTAssertTrue(try matches("dogs == $0", owner, [QueryValue.link(table: 2, key: 8)]))

        var linked = rex
        linked.linking = ["P.dogs": [Image(["i": .value(.int(4))])]]
        XCTAssertTrue(try matches("owners.i == 4", linked, className: "D"))
        XCTAssertTrue(try matches("@links.P.dogs.@count == 1", linked, className: "D"))
    }

    // MARK: - Refusals

    func testRefusesWhatTheCompilerRefuses() throws {
        XCTAssertThrowsError(try matches("b < true", p([:]))) { XCTAssertEqual(($0 as? QueryError)?.kind, .typeMismatch) }
        XCTAssertThrowsError(try matches("nope == 1", p([:]))) { XCTAssertEqual(($0 as? QueryError)?.kind, .unknownProperty) }
        XCTAssertThrowsError(try QueryEvaluator(try QueryParser.parse("i == $0").predicate, className: "P", schema: Self.schema)) {
            XCTAssertEqual(($0 as? QueryError)?.kind, .badArgument)
        }
    }

    func testAnImageThatCannotAnswerIsAnErrorNotAnAnswer() throws {
        XCTAssertThrowsError(try matches("i == 1", p([:]))) {
            XCTAssertEqual("\($0)", "The image of a 'P' object has no property 'i'")
        }
        XCTAssertThrowsError(try matches("i == 1", p(["i": .values([.int(1)])]))) {
            XCTAssertEqual("\($0)", "The image of a 'P' object gives 'i' as a collection of values, but the schema says a single value")
        }
        let keyless = p(["dog": .object(Image(["name": .value(.string("Rex"))]))])
        XCTAssertThrowsError(try matches("dog == $0", keyless, [QueryValue.link(table: 2, key: 7)])) { XCTAssertTrue($0 is QueryEvaluationError) }
        XCTAssertTrue(try matches("dog != nil", keyless)) // nil needs no key
        XCTAssertThrowsError(try matches("owners.@count == 0", Image(["name": .value(.string("Rex"))]), className: "D")) {
            XCTAssertTrue($0 is QueryEvaluationError)
        }
    }
}
