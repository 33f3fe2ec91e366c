import Foundation
import OpenRealm
import XCTest

final class DynamicDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var owner: DynamicOwner?
}

final class DynamicOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var fullName: String
    @Persisted var dogs: List<DynamicDog>
    @Persisted var favorites: MutableSet<DynamicDog>
    @Persisted var byNick: Map<String, DynamicDog?>
    override class func propertiesMapping() -> [String: String] { ["fullName": "full_name"] }
}

/// The dynamic API as an SDK user writes it: `dynamicObjects`, `dynamicObject(ofType:forPrimaryKey:)`,
/// `dynamicCreate`, and `DynamicObject`'s subscripts and member lookup.
final class DynamicAPITests: XCTestCase {
    private func makeRealm() throws -> Realm {
        let realm = try Realm(configuration: makeInMemoryConfiguration([DynamicDog.self, DynamicOwner.self]))
        try realm.write {
            let owner = realm.create(DynamicOwner.self, value: ["id": 1, "fullName": "Ann"])
            realm.create(DynamicDog.self, value: ["name": "Rex", "age": 3, "owner": owner])
            realm.create(DynamicDog.self, value: ["name": "Fido", "age": 7])
            realm.create(DynamicDog.self, value: ["name": "Spot", "age": 1])
        }
        return realm
    }

    func testDynamicObjectsAreResultsOfTheNamedClass() throws {
        let realm = try makeRealm()
        let dogs = realm.dynamicObjects("DynamicDog")
        XCTAssertEqual(dogs.count, 3)
        XCTAssertEqual(Set(dogs.map { $0["name"] as! String }), ["Rex", "Fido", "Spot"])
        let old = dogs.filter("age > %@", 2).sorted(byKeyPath: "age", ascending: false)
        XCTAssertEqual(old.map { $0.name as! String }, ["Fido", "Rex"])
        XCTAssertEqual(dogs.sum(ofProperty: "age") as Int, 11)
        XCTAssertEqual(old.first?.age as? Int, 7)
        // Links read as dynamic objects too.
        let rex = try XCTUnwrap(dogs.filter("name == 'Rex'").first)
        let owner = try XCTUnwrap(rex.owner as? DynamicObject)
        XCTAssertEqual(owner.fullName as? String, "Ann")
        XCTAssertEqual(dogs.index(of: rex), dogs.firstIndex { $0.name as? String == "Rex" })
    }

    func testDynamicObjectsAreLive() throws {
        let realm = try makeRealm()
        let puppies = realm.dynamicObjects("DynamicDog").filter("age < 2")
        XCTAssertEqual(puppies.count, 1)
        try realm.write { realm.create(DynamicDog.self, value: ["name": "Bit", "age": 0]) }
        XCTAssertEqual(puppies.count, 2)
        let frozen = puppies.freeze()
        try realm.write { realm.delete(realm.objects(DynamicDog.self).filter("age < 2")) }
        XCTAssertEqual(puppies.count, 0)
        XCTAssertEqual(frozen.count, 2)
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(Set(frozen.map { $0["name"] as! String }), ["Spot", "Bit"])
    }

    func testDynamicObjectByPrimaryKey() throws {
        let realm = try makeRealm()
        let fido = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicDog", forPrimaryKey: "Fido"))
        XCTAssertEqual(fido["age"] as? Int, 7)
        XCTAssertNil(realm.dynamicObject(ofType: "DynamicDog", forPrimaryKey: "Nobody"))
        XCTAssertEqual(realm.dynamicObject(ofType: "DynamicOwner", forPrimaryKey: 1)?["fullName"] as? String, "Ann")
        XCTAssertFalse(fido.isInvalidated)
        try realm.write { realm.delete(fido) }
        XCTAssertTrue(fido.isInvalidated)
        XCTAssertNil(realm.dynamicObject(ofType: "DynamicDog", forPrimaryKey: "Fido"))
    }

    func testWritesThroughSubscriptsAndMembers() throws {
        let realm = try makeRealm()
        let rex = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicDog", forPrimaryKey: "Rex"))
        try realm.write {
            rex["age"] = 4
            rex.owner = nil
        }
        let typed = try XCTUnwrap(realm.object(ofType: DynamicDog.self, forPrimaryKey: "Rex"))
        XCTAssertEqual(typed.age, 4)
        XCTAssertNil(typed.owner)
        try realm.write { rex.setValue(5, forUndefinedKey: "age") }
        XCTAssertEqual(rex.value(forUndefinedKey: "age") as? Int, 5)
        XCTAssertEqual(typed.age, 5)
    }

    func testDynamicCreateFromADictionaryAnArrayAndWithUpdate() throws {
        let realm = try makeRealm()
        try realm.write {
            let made = realm.dynamicCreate("DynamicDog", value: ["name": "Max", "age": 2])
            XCTAssertEqual(made.name as? String, "Max")
            realm.dynamicCreate("DynamicDog", value: ["Ace", 9])
            realm.dynamicCreate("DynamicDog", value: ["name": "Rex", "age": 10], update: .modified)
            realm.dynamicCreate("DynamicOwner", value: ["id": 2, "fullName": "Bob"])
        }
        XCTAssertEqual(realm.objects(DynamicDog.self).count, 5)
        XCTAssertEqual(realm.object(ofType: DynamicDog.self, forPrimaryKey: "Ace")?.age, 9)
        XCTAssertEqual(realm.object(ofType: DynamicDog.self, forPrimaryKey: "Rex")?.age, 10)
        XCTAssertEqual(realm.object(ofType: DynamicDog.self, forPrimaryKey: "Rex")?.owner?.fullName, "Ann",
                       "an update sets only the values given")
        XCTAssertEqual(realm.object(ofType: DynamicOwner.self, forPrimaryKey: 2)?.fullName, "Bob")
    }

    func testDynamicCreateOfAnExistingKeyFailsTheWrite() throws {
        let realm = try makeRealm()
        XCTAssertThrowsError(try realm.write {
            realm.dynamicCreate("DynamicDog", value: ["name": "Rex", "age": 1])
        })
        XCTAssertEqual(realm.object(ofType: DynamicDog.self, forPrimaryKey: "Rex")?.age, 3)
    }

    /// A mapped class's dynamic objects go by the Swift names, and their schema is the class's.
    func testMappedPropertiesGoBySwiftNames() throws {
        let realm = try makeRealm()
        let owner = try XCTUnwrap(realm.dynamicObjects("DynamicOwner").first)
        XCTAssertEqual(owner.fullName as? String, "Ann")
        XCTAssertEqual(realm.dynamicObjects("DynamicOwner").filter("fullName == 'Ann'").count, 1)
        let schema = owner.objectSchema
        XCTAssertEqual(schema.className, "DynamicOwner")
        XCTAssertEqual(schema.properties.map(\.name).sorted(), ["byNick", "dogs", "favorites", "fullName", "id"])
        XCTAssertEqual(schema["fullName"]?.columnName, "full_name")
    }

    func testObservingDynamicResults() throws {
        let realm = try makeRealm()
        let dogs = realm.dynamicObjects("DynamicDog").filter("age >= 3")
        var changes: [RealmCollectionChange<Results<DynamicObject>>] = []
        let token = dogs.observe { changes.append($0) }
        defer { token.invalidate() }
        pollUntil("the initial notification") { changes.count == 1 }
        try realm.write { realm.create(DynamicDog.self, value: ["name": "Old", "age": 12]) }
        pollUntil("the update") { changes.count == 2 }
        guard case .update(let results, _, let insertions, _) = changes.last else { return XCTFail("\(changes)") }
        XCTAssertEqual(insertions.count, 1)
        XCTAssertEqual(results.count, 3)
    }

    func testThreadSafeReferenceAndFreezeOfADynamicObject() throws {
        let realm = try makeRealm()
        let rex = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicDog", forPrimaryKey: "Rex"))
        let frozen = rex.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(frozen.age as? Int, 3)
        XCTAssertEqual(frozen.thaw()?.age as? Int, 3)
        let reference = ThreadSafeReference(to: rex)
        let resolved = try XCTUnwrap(realm.resolve(reference))
        XCTAssertEqual(resolved.name as? String, "Rex")
        XCTAssertEqual(resolved, rex)
    }

    func testDynamicCollectionsOfAModelObjectAndOfADynamicObject() throws {
        let realm = try makeRealm()
        let owner = try XCTUnwrap(realm.object(ofType: DynamicOwner.self, forPrimaryKey: 1))
        try realm.write {
            owner.dogs.append(objectsIn: realm.objects(DynamicDog.self).sorted(byKeyPath: "age"))
            owner.favorites.insert(realm.object(ofType: DynamicDog.self, forPrimaryKey: "Rex")!)
            owner.byNick["old"] = realm.object(ofType: DynamicDog.self, forPrimaryKey: "Fido")
        }
        let dogs = owner.dynamicList("dogs")
        XCTAssertEqual(dogs.count, 3)
        XCTAssertEqual(dogs.map { $0.name as! String }, ["Spot", "Rex", "Fido"])
        XCTAssertEqual(dogs[1]["age"] as? Int, 3)
        XCTAssertEqual(owner.dynamicMutableSet("favorites").map { $0.name as! String }, ["Rex"])
        let nicks: Map<String, DynamicObject?> = owner.dynamicMap("byNick")
        XCTAssertEqual(nicks.count, 1)
        XCTAssertEqual(nicks["old"]??.name as? String, "Fido")

        // The same through a dynamic object, and writes through the dynamic list.
        let dynamicOwner = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicOwner", forPrimaryKey: 1))
        let list = dynamicOwner.dynamicList("dogs")
        try realm.write {
            list.remove(at: 0)
            list.append(try XCTUnwrap(realm.dynamicObject(ofType: "DynamicDog", forPrimaryKey: "Spot")))
        }
        XCTAssertEqual(owner.dogs.map(\.name), ["Rex", "Fido", "Spot"])
        var visited: [String] = []
        for dog in list { visited.append(dog.name as! String) }
        XCTAssertEqual(visited, ["Rex", "Fido", "Spot"])
    }

    func testAnUnknownClassStops() throws {
        let realm = try makeRealm()
        assertStops(messageContains: "not managed by the Realm") { _ = realm.dynamicObjects("NoSuchClass") }
    }
}
