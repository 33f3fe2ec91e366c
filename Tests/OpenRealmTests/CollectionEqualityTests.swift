import Foundation
import OpenRealm
import XCTest

/// Equality of collections and schemas as the Realm Swift SDK defines it: collections
/// are equal when they are the same stored collection (or unmanaged with equal
/// elements); schemas when they describe the same classes.
final class CollectionEqualityTests: XCTestCase {
    private func openRealm() throws -> Realm {
        try Realm(configuration: makeFileConfiguration([KVCPerson.self, KVCDog.self]))
    }

    func testManagedCollectionsAreEqualWhenTheyAreTheSameStoredCollection() throws {
        let realm = try openRealm()
        let person = KVCPerson(value: ["id": 1, "dogs": [["name": "Rex"]], "numbers": [1], "scores": ["a": 1]])
        let other = KVCPerson(value: ["id": 2, "dogs": [["name": "Rex"]], "numbers": [1], "scores": ["a": 1]])
        try realm.write { realm.add([person, other]) }
        let again = try XCTUnwrap(realm.object(ofType: KVCPerson.self, forPrimaryKey: 1))

        XCTAssertEqual(person.dogs, again.dogs, "the same stored list, read through two accessors")
        XCTAssertNotEqual(person.dogs, other.dogs, "equal contents are not the same list")
        XCTAssertNotEqual(person.dogs, List<KVCDog>())
        XCTAssertEqual(person.numbers, again.numbers)
        XCTAssertNotEqual(person.numbers, other.numbers)
        XCTAssertEqual(person.scores, again.scores)
        XCTAssertNotEqual(person.scores, other.scores)
        let dog = person.dogs[0]
        XCTAssertEqual(dog.owners, dog.owners)

        let results = realm.objects(KVCDog.self)
        XCTAssertEqual(results, results)
        XCTAssertEqual(AnyRealmCollection(person.dogs), AnyRealmCollection(again.dogs))
        XCTAssertNotEqual(AnyRealmCollection(person.dogs), AnyRealmCollection(results), "a list is not a Results")

        // Generic code can compare any realm collection.
        func same<C: RealmCollection>(_ a: C, _ b: C) -> Bool { a == b }
        XCTAssertTrue(same(person.dogs, again.dogs))
    }

    func testUnmanagedCollectionsAreEqualWhenTheirElementsAre() {
        let a = List<Int>(), b = List<Int>()
        XCTAssertEqual(a, b, "empty")
        a.append(objectsIn: [1, 2])
        b.append(objectsIn: [1, 2])
        XCTAssertEqual(a, b)
        b.append(3)
        XCTAssertNotEqual(a, b)
        let s = MutableSet<String>(), t = MutableSet<String>()
        s.insert(objectsIn: ["x", "y"])
        t.insert(objectsIn: ["y", "x"])
        XCTAssertEqual(s, t)
        let m = Map<String, Int>(), n = Map<String, Int>()
        m["k"] = 1
        XCTAssertNotEqual(m, n)
        n["k"] = 1
        XCTAssertEqual(m, n)
    }

    func testSchemasAreEqualWhenTheyDescribeTheSameClasses() throws {
        let realm = try openRealm()
        let reopened = try Realm(configuration: realm.configuration)
        XCTAssertEqual(realm.schema, reopened.schema)
        XCTAssertEqual(realm.schema["KVCDog"], reopened.schema["KVCDog"])
        let tasks = try Realm(configuration: makeFileConfiguration([NTask.self]))
        XCTAssertNotEqual(realm.schema, tasks.schema)
        XCTAssertNotEqual(realm.schema["KVCDog"]?.properties.first, realm.schema["KVCPerson"]?.properties.first)
    }
}
