import Foundation
import RealmSwift
import XCTest

enum EnumKeyColor: String, PersistableEnum { case red, green, blue }
enum EnumKeySize: Int, PersistableEnum { case small = 1, medium, large }

final class EnumKeyedPaint: Object {
    @Persisted(primaryKey: true) var color: EnumKeyColor
    @Persisted(indexed: true) var size: EnumKeySize
    @Persisted(indexed: true) var optionalSize: EnumKeySize?
    @Persisted var liters: Int
}

final class OptionalEnumKeyedPaint: Object {
    @Persisted(primaryKey: true) var size: EnumKeySize?
    @Persisted var liters: Int
}

/// `PersistableEnum` properties as primary keys and indexed, as the SDK allows: the schema
/// says so, and objects are found and updated by the enum.
final class PersistableEnumKeyTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        var config = Realm.Configuration(inMemoryIdentifier: "enum-keys-\(UUID())")
        config.objectTypes = [EnumKeyedPaint.self, OptionalEnumKeyedPaint.self]
        return try Realm(configuration: config)
    }

    func testSchemaMarksEnumPrimaryKeyAndIndexes() throws {
        let realm = try makeRealm()
        let schema = try XCTUnwrap(realm.schema["EnumKeyedPaint"])
        XCTAssertEqual(schema.primaryKeyProperty?.name, "color")
        XCTAssertEqual(schema["color"]?.type, .string)
        XCTAssertEqual(schema["size"]?.isIndexed, true)
        XCTAssertEqual(schema["optionalSize"]?.isIndexed, true)
        XCTAssertEqual(schema["liters"]?.isIndexed, false)
        XCTAssertEqual(EnumKeyedPaint.primaryKey(), "color")
        XCTAssertEqual(Set(EnumKeyedPaint.indexedProperties()), ["size", "optionalSize"])
        XCTAssertEqual(realm.schema["OptionalEnumKeyedPaint"]?.primaryKeyProperty?.name, "size")
    }

    func testObjectsAreFoundAndUpdatedByEnumKey() throws {
        let realm = try makeRealm()
        try realm.write {
            realm.add(EnumKeyedPaint(value: ["color": EnumKeyColor.red, "size": EnumKeySize.small, "liters": 1]))
            realm.add(EnumKeyedPaint(value: ["color": EnumKeyColor.blue, "size": EnumKeySize.large, "liters": 2]))
        }
        XCTAssertEqual(realm.object(ofType: EnumKeyedPaint.self, forPrimaryKey: EnumKeyColor.blue)?.liters, 2)
        XCTAssertEqual(realm.object(ofType: EnumKeyedPaint.self, forPrimaryKey: "red")?.liters, 1)
        XCTAssertNil(realm.object(ofType: EnumKeyedPaint.self, forPrimaryKey: EnumKeyColor.green))
        try realm.write {
            realm.add(EnumKeyedPaint(value: ["color": EnumKeyColor.red, "size": EnumKeySize.medium, "liters": 5]), update: .modified)
        }
        XCTAssertEqual(realm.objects(EnumKeyedPaint.self).count, 2)
        XCTAssertEqual(realm.object(ofType: EnumKeyedPaint.self, forPrimaryKey: EnumKeyColor.red)?.size, .medium)
        XCTAssertEqual(realm.objects(EnumKeyedPaint.self).where { $0.size == .large }.map(\.color), [.blue])
    }

    func testDuplicateEnumKeyIsRefused() throws {
        let realm = try makeRealm()
        try realm.write { realm.add(EnumKeyedPaint(value: ["color": EnumKeyColor.green, "liters": 1])) }
        XCTAssertThrowsError(try realm.write { realm.add(EnumKeyedPaint(value: ["color": EnumKeyColor.green, "liters": 2])) })
        XCTAssertEqual(realm.objects(EnumKeyedPaint.self).count, 1)
    }

    func testOptionalEnumPrimaryKeyTakesNil() throws {
        let realm = try makeRealm()
        try realm.write {
            realm.add(OptionalEnumKeyedPaint(value: ["liters": 3]))
            realm.add(OptionalEnumKeyedPaint(value: ["size": EnumKeySize.large, "liters": 4]))
        }
        XCTAssertEqual(realm.object(ofType: OptionalEnumKeyedPaint.self, forPrimaryKey: EnumKeySize?.none)?.liters, 3)
        XCTAssertEqual(realm.object(ofType: OptionalEnumKeyedPaint.self, forPrimaryKey: EnumKeySize.large)?.liters, 4)
    }
}
