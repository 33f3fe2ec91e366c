import Foundation
@testable import OpenRealm
import XCTest

final class MappedAddress: EmbeddedObject {
    @Persisted var city: String
    override class func propertiesMapping() -> [String: String] { ["city": "custom_city"] }
}

final class MappedPerson: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    @Persisted(indexed: true) var firstName: String
    @Persisted var age: Int
    @Persisted var friend: MappedPerson?
    @Persisted var tags: List<String>
    @Persisted var address: MappedAddress?
    @Persisted var unmapped: Int
    @Persisted(originProperty: "friend") var fans: LinkingObjects<MappedPerson>

    override class func propertiesMapping() -> [String: String] {
        ["pk": "_id", "firstName": "first_name", "age": "custom_age", "friend": "custom_friend",
         "tags": "custom_tags", "address": "custom_address"]
    }

    convenience init(_ firstName: String, age: Int) {
        self.init()
        pk = ObjectId.generate()
        self.firstName = firstName
        self.age = age
    }
}

/// The same stored class seen with the stored names as Swift names: what another
/// client (or a synced peer) that does not rename anything reads from the file.
final class MappedPersonAsStored: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var first_name: String
    @Persisted var custom_age: Int
    @Persisted var custom_friend: MappedPersonAsStored?
    @Persisted var custom_tags: List<String>
    @Persisted var custom_address: MappedAddress?
    @Persisted var unmapped: Int

    override class func _realmObjectName() -> String? { "MappedPerson" }
}

/// `propertiesMapping()`: the Swift name is what the API, queries, key-value coding
/// and notifications use; the mapped name is what the file stores (and sync sends).
final class CustomColumnNameTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration([MappedPerson.self, MappedAddress.self]))
    }

    /// Three people: Ann (30, friend of Bob, tags a b, in Oslo), Bob (40), Cid (40).
    private func populate(_ realm: Realm) throws {
        try realm.write {
            let ann = MappedPerson("Ann", age: 30), bob = MappedPerson("Bob", age: 40), cid = MappedPerson("Cid", age: 40)
            ann.friend = bob
            ann.tags.append(objectsIn: ["a", "b"])
            ann.address = MappedAddress(value: ["city": "Oslo"])
            realm.add([ann, bob, cid])
        }
    }

    func testSchemaNamesPropertiesBySwiftNameWithTheirColumnNames() throws {
        let schema = MappedPerson().objectSchema
        XCTAssertEqual(schema["firstName"]?.columnName, "first_name")
        XCTAssertEqual(schema["pk"]?.columnName, "_id")
        XCTAssertEqual(schema["unmapped"]?.columnName, "unmapped", "an unmapped property's column name is its name")
        XCTAssertNil(schema["first_name"])
        XCTAssertEqual(MappedAddress().objectSchema["city"]?.columnName, "custom_city")
        XCTAssertEqual(MappedPerson.primaryKey(), "pk")

        let realm = try makeRealm()
        let stored = try XCTUnwrap(realm.schema["MappedPerson"])
        XCTAssertEqual(stored["age"]?.columnName, "custom_age")
        XCTAssertNil(stored["custom_age"])
    }

    func testTheFileStoresTheMappedNames() throws {
        let config = try makeFileConfiguration([MappedPerson.self, MappedAddress.self])
        do {
            let realm = try Realm(configuration: config)
            try populate(realm)
        }
        var asStored = config
        asStored.objectTypes = [MappedPersonAsStored.self, MappedAddress.self]
        let realm = try Realm(configuration: asStored)
        let ann = try XCTUnwrap(realm.objects(MappedPersonAsStored.self).where { $0.first_name == "Ann" }.first)
        XCTAssertEqual(ann.custom_age, 30)
        XCTAssertEqual(ann.custom_friend?.first_name, "Bob")
        XCTAssertEqual(Array(ann.custom_tags), ["a", "b"])
        XCTAssertEqual(ann.custom_address?.city, "Oslo")
    }

    func testQueriesSortsAndAggregatesUseSwiftNames() throws {
        let realm = try makeRealm()
        try populate(realm)
        let people = realm.objects(MappedPerson.self)
        XCTAssertEqual(people.where { $0.firstName == "Ann" }.count, 1)
        XCTAssertEqual(people.filter("firstName == $0", "Bob").first?.age, 40)
        XCTAssertEqual(people.filter("age > %@", 35).count, 2)
        XCTAssertEqual(people.where { $0.friend.firstName == "Bob" }.first?.firstName, "Ann")
        XCTAssertEqual(people.where { $0.address.city == "Oslo" }.count, 1)
        XCTAssertEqual(people.filter("address.city == 'Oslo'").count, 1)
        XCTAssertEqual(people.where { $0.tags.contains("b") }.count, 1)
        XCTAssertEqual(people.filter("fans.@count > 0").first?.firstName, "Bob")
        XCTAssertEqual(people.where { $0.fans.firstName == "Ann" }.first?.firstName, "Bob")
        XCTAssertEqual(people.sorted(byKeyPath: "firstName", ascending: false).map(\.firstName), ["Cid", "Bob", "Ann"])
        XCTAssertEqual(people.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "firstName", ascending: false)])
            .map(\.firstName), ["Ann", "Cid", "Bob"])
        XCTAssertEqual(people.distinct(by: ["age"]).count, 2)
        XCTAssertEqual(people.max(ofProperty: "age") as Int?, 40)
        XCTAssertEqual(people.sum(ofProperty: "age") as Int, 110)
        XCTAssertEqual(people.index(matching: { $0.firstName == "Cid" }), 2)
        XCTAssertEqual(realm.object(ofType: MappedPerson.self, forPrimaryKey: people[1].pk)?.firstName, "Bob")
    }

    func testKeyValueCodingUsesSwiftNames() throws {
        let realm = try makeRealm()
        try populate(realm)
        let people = realm.objects(MappedPerson.self).sorted(byKeyPath: "firstName")
        let ann = people[0]
        XCTAssertEqual(ann["firstName"] as? String, "Ann")
        XCTAssertEqual(ann.value(forKey: "age") as? Int, 30)
        try realm.write {
            ann["age"] = 31
            people.setValue(7, forKey: "unmapped")
        }
        XCTAssertEqual(ann.age, 31)
        XCTAssertEqual(people.value(forKey: "firstName") as? [String], ["Ann", "Bob", "Cid"])
        XCTAssertEqual(people.map(\.unmapped), [7, 7, 7])
    }

    func testNotificationsNameSwiftProperties() throws {
        let realm = try makeRealm()
        try populate(realm)
        let ann = try XCTUnwrap(realm.objects(MappedPerson.self).where { $0.firstName == "Ann" }.first)
        let log = NObjectLog<MappedPerson>()
        let objectToken = ann.observe(keyPaths: ["age"]) { (change: ObjectChange<MappedPerson>) in log.record(change) }
        let results = realm.objects(MappedPerson.self).sorted(byKeyPath: "firstName")
        let resultsLog = NChangeLog<Results<MappedPerson>>()
        let resultsToken = results.observe(keyPaths: ["firstName"]) { resultsLog.record($0) }
        pollUntil("initial results") { resultsLog.initials == 1 }
        try realm.write { ann.unmapped = 5 }              // observed by neither
        try realm.write { ann.firstName = "Ada" }         // observed by the results only
        try realm.write { ann.age = 33 }                  // observed by the object only
        pollUntil("object change") { log.changes.count == 1 }
        XCTAssertEqual(log.changes.first?.map(\.name), ["age"])
        XCTAssertEqual(log.changes.first?.first?.newValue as? Int, 33)
        pollUntil("results change") { resultsLog.updates.count == 1 }
        XCTAssertEqual(resultsLog.updates[0].modifications, [0], "renaming Ann is a change of the observed firstName")
        XCTAssertEqual(resultsLog.updates.count, 1, "changes of other properties are not observed")
        XCTAssertEqual(log.changes.count, 1)
        withExtendedLifetime((objectToken, resultsToken)) {}
    }

    /// In a migration the old objects go by the file's stored names and the new ones by
    /// the Swift names, as the Realm Swift SDK documents; renames take stored names.
    func testMigrationOldObjectsUseStoredNamesNewObjectsSwiftNames() throws {
        var config = try makeFileConfiguration([MappedPerson.self, MappedAddress.self])
        do { try populate(try Realm(configuration: config)) }
        config.schemaVersion = 2
        var oldNames: [String] = []
        var oldAges: [Int] = []
        var friendsThroughNewObjects: [String] = []
        config.migrationBlock = { migration, _ in
            oldNames = migration.oldSchema["MappedPerson"]?.properties.map(\.name) ?? []
            migration.enumerateObjects(ofType: "MappedPerson") { old, new in
                oldAges.append(old!["custom_age"] as! Int)
                new!["age"] = (old!["custom_age"] as! Int) + 1
                if let friend = new!["friend"] as? MigrationObject { friendsThroughNewObjects.append(friend["firstName"] as! String) }
            }
            migration.create("MappedPerson", value: ["pk": ObjectId.generate(), "firstName": "Dee", "age": 7])
        }
        let realm = try Realm(configuration: config)
        XCTAssertTrue(oldNames.contains("first_name") && oldNames.contains("custom_age"), "\(oldNames)")
        XCTAssertEqual(oldAges.sorted(), [30, 40, 40])
        XCTAssertEqual(friendsThroughNewObjects, ["Bob"])
        XCTAssertEqual(realm.objects(MappedPerson.self).sum(ofProperty: "age") as Int, 120)
        XCTAssertEqual(realm.objects(MappedPerson.self).where { $0.firstName == "Dee" }.first?.age, 7)
    }

    /// Queries that leave the process (Flexible Sync subscriptions) go by stored names,
    /// through links, embedded objects, subqueries and descriptors.
    func testQueriesRenameToStoredNamesForSync() throws {
        _ = ObjectTypeInfo.of(MappedPerson.self)
        func stored(_ text: String) throws -> String {
            QueryRenderer.render(try QueryParser.parse(text, arguments: []).withStoredNames(from: "MappedPerson"))
        }
        XCTAssertEqual(try stored("firstName == 'Ann' AND age > 3"), try QueryRenderer.render(QueryParser.parse("first_name == 'Ann' AND custom_age > 3", arguments: [])))
        XCTAssertEqual(try stored("friend.address.city == 'Oslo'"),
                       try QueryRenderer.render(QueryParser.parse("custom_friend.custom_address.custom_city == 'Oslo'", arguments: [])))
        XCTAssertEqual(try stored("tags.@count > 1 AND unmapped == 0 SORT(age DESC) DISTINCT(firstName)"),
                       try QueryRenderer.render(QueryParser.parse("custom_tags.@count > 1 AND unmapped == 0 SORT(custom_age DESC) DISTINCT(first_name)", arguments: [])))
        XCTAssertEqual(try stored("SUBQUERY(fans, $x, $x.age > 1).@count > 0"),
                       try QueryRenderer.render(QueryParser.parse("SUBQUERY(fans, $x, $x.custom_age > 1).@count > 0", arguments: [])))
        XCTAssertEqual(QueryRenderer.render(Query<MappedPerson>()
            .firstName.starts(with: "A").predicate.withStoredNames(for: MappedPerson.self)),
            try QueryRenderer.render(QueryParser.parse("first_name BEGINSWITH 'A'", arguments: [])))
    }

    /// Two properties stored under one name cannot be stored.
    func testTwoPropertiesMappedToOneNameAreRefused() {
        assertThrowsRealmError(.schemaMismatch, messageContains: ["both stored as 'same'"]) {
            _ = try Realm(configuration: makeInMemoryConfiguration([ClashingMapping.self]))
        }
    }
}

final class ClashingMapping: Object {
    @Persisted var a: Int
    @Persisted var b: Int
    override class func propertiesMapping() -> [String: String] { ["a": "same", "b": "same"] }
}
