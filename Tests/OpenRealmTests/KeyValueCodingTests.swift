import Foundation
import OpenRealm
import XCTest

final class KVCPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
    @Persisted var dog: KVCDog?
    @Persisted var dogs: List<KVCDog>
    @Persisted var tags: List<String>
    @Persisted var numbers: MutableSet<Int>
    @Persisted var dogSet: MutableSet<KVCDog>
    @Persisted var scores: Map<String, Int>
    @Persisted var pets: Map<String, KVCDog?>
}

final class KVCDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<KVCPerson>
}

/// Key-value coding as a Realm Swift SDK user writes it: on objects (`value(forKey:)`,
/// `setValue(_:forKey:)`, key paths, `"self"`), on every collection and on maps.
final class KeyValueCodingTests: XCTestCase {
    private func openRealm() throws -> Realm {
        try Realm(configuration: makeFileConfiguration([KVCPerson.self, KVCDog.self]))
    }

    /// A person with three dogs (ages 3, 5, 7), the first also their `dog`.
    private func addPerson(_ realm: Realm) throws -> KVCPerson {
        let person = KVCPerson(value: ["id": 1, "name": "Ann", "age": 40])
        try realm.write {
            for (name, age) in [("Rex", 3), ("Fido", 5), ("Max", 7)] {
                let dog = KVCDog(value: ["name": name, "age": age])
                person.dogs.append(dog)
                person.dogSet.insert(dog)
            }
            person.dog = person.dogs[0]
            person.tags.append(objectsIn: ["a", "b"])
            person.numbers.insert(objectsIn: [1, 2])
            realm.add(person)
        }
        return person
    }

    func testObjectValueForKeyAndSetValueForKey() throws {
        let unmanaged = KVCPerson()
        unmanaged.setValue("Bo", forKey: "name")
        unmanaged.setValue([["name": "Rex", "age": 2]], forKey: "dogs")
        XCTAssertEqual(unmanaged.value(forKey: "name") as? String, "Bo")
        XCTAssertEqual(unmanaged.dogs.first?.name, "Rex")
        XCTAssertNil(unmanaged.value(forKey: "nickname"))
        XCTAssertTrue(unmanaged.value(forKey: "self") as? KVCPerson === unmanaged)
        XCTAssertTrue(KVCDog().value(forKey: "owners") is LinkingObjects<KVCPerson>)

        let realm = try openRealm()
        let person = try addPerson(realm)
        XCTAssertEqual(person.value(forKey: "age") as? Int, 40)
        XCTAssertEqual((person.value(forKey: "dogs") as! List<KVCDog>).count, 3)
        XCTAssertEqual((person.value(forKey: "dog") as! KVCDog).name, "Rex")
        XCTAssertEqual(person.value(forKeyPath: "dog.name") as? String, "Rex")
        XCTAssertEqual(person.value(forKeyPath: "dogs.name") as? [String], ["Rex", "Fido", "Max"])
        let owners = person.dogs[1].value(forKey: "owners") as! LinkingObjects<KVCPerson>
        XCTAssertEqual(owners.first?.name, "Ann")
        try realm.write {
            person.setValue("Annie", forKey: "name")
            person.setValue(nil, forKey: "dog")
            person.setValue("Nick", forKey: "nickname")
        }
        XCTAssertEqual(person.name, "Annie")
        XCTAssertNil(person.dog)
        XCTAssertNil(person.value(forKeyPath: "dog.name"), "nil past a nil link")
        try realm.write {
            person.dog = person.dogs[2]
            person.setValue(8, forKeyPath: "dog.age")
        }
        XCTAssertEqual(person.dogs[2].age, 8)
        let reopened = try Realm(configuration: realm.configuration)
        XCTAssertEqual(reopened.object(ofType: KVCPerson.self, forPrimaryKey: 1)?.value(forKey: "nickname") as? String, "Nick")
    }

    func testObjectUnknownKeysAndWritesOutsideATransactionStop() throws {
        let realm = try openRealm()
        let person = try addPerson(realm)
        assertStops(messageContains: "not key value coding-compliant for the key 'noSuchKey'") {
            _ = person.value(forKey: "noSuchKey")
        }
        assertStops(messageContains: "not key value coding-compliant for the key 'noSuchKey'") {
            try! realm.write { person.setValue(1, forKey: "noSuchKey") }
        }
        assertStops(messageContains: "outside of a write transaction") {
            person.setValue("Zed", forKey: "name")
        }
        assertStops(messageContains: "outside of a write transaction") {
            person.dogs.setValue(1, forKey: "age")
        }
    }

    func testCollectionsValueForKey() throws {
        let realm = try openRealm()
        let person = try addPerson(realm)
        let dogs = realm.objects(KVCDog.self).sorted(byKeyPath: "age")
        XCTAssertEqual(dogs.value(forKey: "name") as? [String], ["Rex", "Fido", "Max"])
        XCTAssertEqual(dogs.value(forKey: "self") as? [KVCDog], Array(dogs))
        XCTAssertEqual(person.dogs.value(forKey: "age") as? [Int], [3, 5, 7], "List gives [AnyObject]")
        XCTAssertEqual(person.dogs.value(forKey: "name") as Any? as? [String], ["Rex", "Fido", "Max"])
        XCTAssertEqual(person.tags.value(forKey: "self") as? [String], ["a", "b"])
        XCTAssertEqual(Set(person.numbers.value(forKey: "self").map { $0 as! Int }), [1, 2])
        XCTAssertEqual(AnyRealmCollection(person.dogSet).value(forKey: "name") as? Set<String>, ["Rex", "Fido", "Max"],
                       "a set's values are a Set")
        XCTAssertEqual(person.dogs[0].owners.value(forKey: "name") as? [String], ["Ann"])
        XCTAssertEqual(AnyRealmCollection(person.dogs).value(forKey: "age") as? [Int], [3, 5, 7])
        // Nil values are NSNull, as in the SDK's arrays.
        let people = realm.objects(KVCPerson.self)
        XCTAssertTrue((people.value(forKey: "nickname") as? [Any])?.first is NSNull)
        // An empty collection answers an empty array whatever the key.
        XCTAssertEqual((realm.objects(KVCPerson.self).where { $0.age > 100 }.value(forKey: "anything") as? [Any])?.count, 0)
        XCTAssertEqual(KVCPerson().tags.value(forKey: "not self").count, 0)
        // Dotted paths apply to each element.
        XCTAssertEqual(people.value(forKeyPath: "dog.name") as? [String], ["Rex"])
        XCTAssertEqual(person.dogs.value(forKeyPath: "owners.name").count, 3)
    }

    func testCollectionOperatorsInKeyPaths() throws {
        let realm = try openRealm()
        let person = try addPerson(realm)
        let dogs = realm.objects(KVCDog.self)
        XCTAssertEqual((dogs.value(forKeyPath: "@count") as? NSNumber)?.intValue, 3)
        XCTAssertEqual((dogs.value(forKeyPath: "@max.age") as? NSNumber)?.int64Value, 7)
        XCTAssertEqual((dogs.value(forKeyPath: "@min.age") as? NSNumber)?.int64Value, 3)
        XCTAssertEqual((dogs.value(forKeyPath: "@sum.age") as? NSNumber)?.int64Value, 15)
        XCTAssertEqual((dogs.value(forKeyPath: "@avg.age") as? NSNumber)?.doubleValue, 5.0)
        XCTAssertEqual(dogs.sorted(byKeyPath: "age").value(forKeyPath: "@unionOfObjects.name") as? [String], ["Rex", "Fido", "Max"])
        XCTAssertEqual((person.dogs.value(forKeyPath: "@count") as Any? as? NSNumber)?.intValue, 3)
        XCTAssertNil(dogs.where { $0.age > 100 }.value(forKeyPath: "@max.age"), "no maximum of nothing")
        assertStops(messageContains: "Unsupported KVC collection operator found in key path '@median.age'") {
            _ = dogs.value(forKeyPath: "@median.age")
        }
    }

    func testCollectionsSetValueForKey() throws {
        let realm = try openRealm()
        let person = try addPerson(realm)
        try realm.write {
            realm.objects(KVCDog.self).setValue("Dog", forKey: "name")
            person.dogs.setValue(1, forKey: "age")
            person.tags.setValue("z", forKey: "self")
            person.numbers.setValue(9, forKey: "self")
        }
        XCTAssertEqual(realm.objects(KVCDog.self).map(\.name), ["Dog", "Dog", "Dog"])
        XCTAssertEqual(realm.objects(KVCDog.self).map(\.age), [1, 1, 1])
        XCTAssertEqual(Array(person.tags), ["z", "z"])
        XCTAssertEqual(Array(person.numbers), [9])
        // Unmanaged lists set without a transaction.
        let unmanaged = KVCPerson()
        unmanaged.dogs.append(objectsIn: [KVCDog(), KVCDog()])
        unmanaged.dogs.setValue(4, forKey: "age")
        XCTAssertEqual(unmanaged.dogs.map(\.age), [4, 4])
        // Unknown keys stop, on values as on objects.
        assertStops(messageContains: "not key value coding-compliant for the key 'not self'") {
            _ = person.tags.value(forKey: "not self")
        }
        assertStops(messageContains: "not key value coding-compliant for the key 'noSuchKey'") {
            try! realm.write { realm.objects(KVCDog.self).setValue(1, forKey: "noSuchKey") }
        }
        assertStops(messageContains: "outside of a write transaction") {
            realm.objects(KVCDog.self).setValue("Cat", forKey: "name")
        }
    }

    func testMapKeyValueCoding() throws {
        let realm = try openRealm()
        let person = try addPerson(realm)
        XCTAssertNil(person.scores.value(forKey: "math"))
        try realm.write {
            person.scores.setValue(90, forKey: "math")
            person.scores.setValue(70, forKey: "art")
            person.pets.setValue(person.dogs[1], forKey: "best")
        }
        XCTAssertEqual(person.scores.value(forKey: "math") as? Int, 90)
        XCTAssertEqual(person.pets.value(forKeyPath: "best.name") as? String, "Fido")
        XCTAssertEqual((person.scores.value(forKeyPath: "@max.self") as? NSNumber)?.intValue, 90)
        try realm.write { person.scores.setValue(nil, forKey: "math") }
        XCTAssertNil(person.scores.value(forKey: "math"))
        XCTAssertEqual(Array(person.scores.keys), ["art"])
        assertStops(messageContains: "outside of a write transaction") {
            person.scores.setValue(1, forKey: "music")
        }
    }
}
