import Foundation
import RealmSwift
import XCTest

final class SharedSchemaPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var nickname: String?
    @Persisted var address: SharedSchemaAddress?
    @Persisted var tags: List<String>
}

final class SharedSchemaAddress: EmbeddedObject {
    @Persisted var city: String
}

/// `Object.sharedSchema()` as the SDK's tests use it: the class's schema without a realm,
/// equal to what an instance and an open realm report.
final class SharedSchemaTests: XCTestCase {
    func testSharedSchemaDescribesTheClassWithoutARealm() throws {
        let schema = try XCTUnwrap(SharedSchemaPerson.sharedSchema())
        XCTAssertEqual(schema.className, "SharedSchemaPerson")
        XCTAssertEqual(schema.properties.map(\.name), ["id", "name", "nickname", "address", "tags"])
        XCTAssertEqual(schema.primaryKeyProperty?.name, "id")
        XCTAssertEqual(schema["nickname"]?.isOptional, true)
        XCTAssertEqual(schema["tags"]?.isArray, true)
        XCTAssertEqual(schema["address"]?.objectClassName, "SharedSchemaAddress")
        XCTAssertEqual(try XCTUnwrap(SharedSchemaAddress.sharedSchema()).isEmbedded, true)
    }

    func testSharedSchemaEqualsTheInstanceAndRealmSchemas() throws {
        let person = SharedSchemaPerson()
        XCTAssertEqual(type(of: person).sharedSchema(), SharedSchemaPerson.sharedSchema())
        XCTAssertEqual(person.objectSchema, SharedSchemaPerson.sharedSchema())
        var config = Realm.Configuration(inMemoryIdentifier: "shared-schema-\(UUID())")
        config.objectTypes = [SharedSchemaPerson.self, SharedSchemaAddress.self]
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.schema["SharedSchemaPerson"], SharedSchemaPerson.sharedSchema())
        XCTAssertNotEqual(SharedSchemaAddress.sharedSchema(), SharedSchemaPerson.sharedSchema())
    }

    func testSharedSchemaBuildsValuesInPropertyOrder() throws {
        // The SDK's creation tests build an array of values from the schema's order.
        let values: [String: Any] = ["id": 7, "name": "Ann", "nickname": "A", "address": ["city": "Oslo"], "tags": ["x"]]
        let array = try XCTUnwrap(SharedSchemaPerson.sharedSchema()).properties.map { values[$0.name] as Any }
        let person = SharedSchemaPerson(value: array)
        XCTAssertEqual(person.id, 7)
        XCTAssertEqual(person.name, "Ann")
        XCTAssertEqual(person.address?.city, "Oslo")
        XCTAssertEqual(Array(person.tags), ["x"])
    }

    func testRootsHaveNoSharedSchema() {
        XCTAssertNil(Object.sharedSchema())
        XCTAssertNil(EmbeddedObject.sharedSchema())
        XCTAssertNil(AsymmetricObject.sharedSchema())
        XCTAssertNil(DynamicObject.sharedSchema())
    }
}
