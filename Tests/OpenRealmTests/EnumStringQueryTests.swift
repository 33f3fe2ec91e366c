import Foundation
import RealmSwift
import XCTest

enum EnumQueryStatus: String, PersistableEnum {
    case draft = "draft"
    case draftPattern = "dr*"
    case published = "Published"
    case anyOneLetter = "?ublished"
    case lowerPublished = "published"
}

final class EnumQueryDoc: Object {
    @Persisted var title: String
    @Persisted var status: EnumQueryStatus
    @Persisted var optionalStatus: EnumQueryStatus?
}

/// The string operators on enums stored as strings, as the SDK's typed queries have them
/// (`Query where T: _HasPersistedType, T.PersistedType: _QueryString`).
final class EnumStringQueryTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        var config = Realm.Configuration(inMemoryIdentifier: "enum-string-query-\(UUID())")
        config.objectTypes = [EnumQueryDoc.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            realm.add(EnumQueryDoc(value: ["title": "a", "status": EnumQueryStatus.draft, "optionalStatus": EnumQueryStatus.published]))
            realm.add(EnumQueryDoc(value: ["title": "b", "status": EnumQueryStatus.published]))
            realm.add(EnumQueryDoc(value: ["title": "c", "status": EnumQueryStatus.lowerPublished, "optionalStatus": EnumQueryStatus.draft]))
        }
        return realm
    }

    private func titles(_ results: Results<EnumQueryDoc>) -> [String] {
        results.map(\.title).sorted()
    }

    func testLikeUsesTheRawValueAsPattern() throws {
        let docs = try makeRealm().objects(EnumQueryDoc.self)
        XCTAssertEqual(titles(docs.where { $0.status.like(.draftPattern) }), ["a"])
        XCTAssertEqual(titles(docs.where { $0.status.like(.anyOneLetter) }), ["b", "c"])
        XCTAssertEqual(titles(docs.where { $0.status.like(.published) }), ["b"])
        XCTAssertEqual(titles(docs.where { $0.status.like(.published, caseInsensitive: true) }), ["b", "c"])
        XCTAssertEqual(titles(docs.where { !$0.status.like(.draftPattern) }), ["b", "c"])
    }

    func testStringOperatorsCompareRawValues() throws {
        let docs = try makeRealm().objects(EnumQueryDoc.self)
        XCTAssertEqual(titles(docs.where { $0.status.contains(.lowerPublished) }), ["c"])
        XCTAssertEqual(titles(docs.where { $0.status.contains(.lowerPublished, options: .caseInsensitive) }), ["b", "c"])
        XCTAssertEqual(titles(docs.where { $0.status.starts(with: .draft) }), ["a"])
        XCTAssertEqual(titles(docs.where { $0.status.ends(with: .lowerPublished, options: [.caseInsensitive]) }), ["b", "c"])
        XCTAssertEqual(titles(docs.where { $0.status.equals(.published, options: .caseInsensitive) }), ["b", "c"])
        XCTAssertEqual(titles(docs.where { $0.status.notEquals(.published, options: .caseInsensitive) }), ["a"])
    }

    func testOptionalEnumStringOperators() throws {
        let docs = try makeRealm().objects(EnumQueryDoc.self)
        XCTAssertEqual(titles(docs.where { $0.optionalStatus.like(.draftPattern) }), ["c"])
        XCTAssertEqual(titles(docs.where { $0.optionalStatus.like(.lowerPublished, caseInsensitive: true) }), ["a"])
        XCTAssertEqual(titles(docs.where { $0.optionalStatus.contains(.lowerPublished, options: .caseInsensitive) }), ["a"])
        XCTAssertEqual(titles(docs.where { $0.optionalStatus.starts(with: .draft) }), ["c"])
        XCTAssertEqual(titles(docs.where { $0.optionalStatus.ends(with: .published) }), ["a"])
    }

    func testTypedQueryRendersAsTheRQLOnTheRawValue() throws {
        let docs = try makeRealm().objects(EnumQueryDoc.self)
        XCTAssertEqual(titles(docs.where { $0.status.like(.draftPattern) }), titles(docs.filter("status LIKE 'dr*'")))
        XCTAssertEqual(titles(docs.where { $0.status.like(.published, caseInsensitive: true) }),
                       titles(docs.filter("status LIKE[c] %@", "Published")))
    }
}
