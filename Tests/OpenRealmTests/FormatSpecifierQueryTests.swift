import Foundation
import RealmSwift
import XCTest
@testable import OpenRealmQuery

final class FormatSpecifierItem: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var small: Int8
    @Persisted var big: Int64
    @Persisted var ratio: Double
}

/// Query strings written for `NSPredicate` pass numbers with `%d`, `%i`, `%lld`, `%f` ...:
/// the SDK's `filter(_:_:)` accepts them, and each takes the next positional argument.
final class FormatSpecifierQueryTests: XCTestCase {
    private func makeItems() throws -> Results<FormatSpecifierItem> {
        var config = Realm.Configuration(inMemoryIdentifier: "format-specifiers-\(UUID())")
        config.objectTypes = [FormatSpecifierItem.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<4 {
                realm.add(FormatSpecifierItem(value: ["name": "n\(i)", "age": i, "small": Int8(i), "big": Int64(i) << 40,
                                                      "ratio": Double(i) + 0.5]))
            }
        }
        return realm.objects(FormatSpecifierItem.self)
    }

    private func names(_ results: Results<FormatSpecifierItem>) -> [String] { results.map(\.name).sorted() }

    func testIntegerSpecifiers() throws {
        let items = try makeItems()
        XCTAssertEqual(names(items.filter("age = %d", 2)), ["n2"])
        XCTAssertEqual(names(items.filter("small = %d", Int8(1))), ["n1"])
        XCTAssertEqual(names(items.filter("age > %i", 1)), ["n2", "n3"])
        XCTAssertEqual(names(items.filter("big = %lld", Int64(3) << 40)), ["n3"])
        XCTAssertEqual(names(items.filter("big < %ld", Int64(1) << 41)), ["n0", "n1"])
        XCTAssertEqual(names(items.filter("age <= %u", UInt(0))), ["n0"])
        XCTAssertEqual(names(items.filter("small >= %hd", Int16(3))), ["n3"])
        XCTAssertEqual(names(items.filter("age = %qd", 1)), ["n1"])
    }

    func testFloatingSpecifiers() throws {
        let items = try makeItems()
        XCTAssertEqual(names(items.filter("ratio = %f", 1.5)), ["n1"])
        XCTAssertEqual(names(items.filter("ratio > %lf", 2.0)), ["n2", "n3"])
        XCTAssertEqual(names(items.filter("ratio < %g", 1.0)), ["n0"])
        XCTAssertEqual(names(items.filter("ratio BETWEEN {%e, %f}", 1.0, 3.0)), ["n1", "n2"])
    }

    func testSpecifiersMixWithObjectAndKeyPathArguments() throws {
        let items = try makeItems()
        XCTAssertEqual(names(items.filter("%K = %d AND name != %@", "age", 3, "n2")), ["n3"])
        XCTAssertEqual(names(items.filter("name = %@ OR age = %d", "n0", 1)), ["n0", "n1"])
        XCTAssertEqual(names(items.filter("age IN {%d, %d}", 0, 3)), ["n0", "n3"])
        XCTAssertEqual(names(items.filter("age =%d", 1)), ["n1"])
    }

    func testSpecifiersParseAsPositionalArguments() throws {
        XCTAssertEqual(QueryRenderer.render(try QueryParser.parse("age = %lld AND ratio > %f")),
                       QueryRenderer.render(try QueryParser.parse("age = %@ AND ratio > %@")))
    }

    func testUnknownSpecifierIsASyntaxErrorNamingIt() {
        for text in ["age = %s", "age = %x", "age = %lz", "age = %dx"] {
            XCTAssertThrowsError(try QueryParser.parse(text), text) { error in
                let message = (error as? QueryError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains("%d"), message)
                XCTAssertTrue(message.contains("offset 6"), message)
            }
        }
    }
}
