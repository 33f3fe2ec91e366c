import Foundation
import OpenRealm
import XCTest

final class LinkingPerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dogs: List<LinkingDog>
    @Persisted var favoriteDog: LinkingDog?
    @Persisted var walkedDogs: MutableSet<LinkingDog>
    @Persisted var dogsByNickname: Map<String, LinkingDog?>
}

final class LinkingDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<LinkingPerson>
    @Persisted(originProperty: "favoriteDog") var fans: LinkingObjects<LinkingPerson>
    @Persisted(originProperty: "walkedDogs") var walkers: LinkingObjects<LinkingPerson>
    @Persisted(originProperty: "dogsByNickname") var nicknamers: LinkingObjects<LinkingPerson>
}

/// A class linking to itself: the origin and the target are the same class.
final class LinkingNode: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var next: LinkingNode?
    @Persisted(originProperty: "next") var previous: LinkingObjects<LinkingNode>
}

final class LinkingObjectsTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration([LinkingPerson.self, LinkingDog.self, LinkingNode.self]))
    }

    override func tearDown() {
        realm = nil
    }

    func testUnmanagedLinkingObjectsAreEmpty() {
        let dog = LinkingDog(value: ["name": "Rex"])
        let person = LinkingPerson(value: ["name": "Ann"])
        person.dogs.append(dog)
        XCTAssertEqual(dog.owners.count, 0, "unmanaged objects have no backlinks")
        XCTAssertTrue(dog.owners.isEmpty)
        XCTAssertNil(dog.owners.realm)
        XCTAssertEqual(dog.owners.propertyName, "dogs")
    }

    func testBacklinksFollowListChanges() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        let ann = LinkingPerson(value: ["name": "Ann"])
        let bob = LinkingPerson(value: ["name": "Bob"])
        ann.dogs.append(rex)
        try realm.write {
            realm.add(ann)
            realm.add(bob)
        }
        XCTAssertEqual(rex.owners.realm, realm)
        XCTAssertEqual(rex.owners.count, 1)
        XCTAssertEqual(rex.owners.first, ann)
        XCTAssertEqual(rex.owners[0].name, "Ann")

        try realm.write { bob.dogs.append(rex) }
        XCTAssertEqual(Set(rex.owners.map(\.name)), ["Ann", "Bob"])
        XCTAssertNotNil(rex.owners.index(of: bob))
        XCTAssertNil(rex.owners.index(of: LinkingPerson(value: ["name": "Unmanaged"])))

        try realm.write { ann.dogs.removeAll() }
        XCTAssertEqual(rex.owners.map(\.name), ["Bob"])

        try realm.write { realm.delete(bob) }
        XCTAssertTrue(rex.owners.isEmpty, "deleting the origin object removes its backlink")
    }

    func testBacklinksAreLiveInsideAWrite() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        try realm.write { realm.add(rex) }
        let owners = rex.owners
        XCTAssertEqual(owners.count, 0)
        try realm.write {
            let ann = realm.create(LinkingPerson.self, value: ["name": "Ann"])
            ann.dogs.append(rex)
            XCTAssertEqual(owners.count, 1, "a held LinkingObjects sees writes of the current transaction")
            ann.dogs.removeAll()
            XCTAssertEqual(owners.count, 0)
            ann.dogs.append(rex)
        }
        XCTAssertEqual(owners.count, 1)
    }

    func testBacklinksOfSingleLinks() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        let ann = LinkingPerson(value: ["name": "Ann"])
        let bob = LinkingPerson(value: ["name": "Bob"])
        ann.favoriteDog = rex
        bob.favoriteDog = rex
        try realm.write { realm.add([ann, bob]) }
        XCTAssertEqual(Set(rex.fans.map(\.name)), ["Ann", "Bob"])
        XCTAssertTrue(rex.owners.isEmpty, "each LinkingObjects follows only its own property")

        try realm.write { ann.favoriteDog = LinkingDog(value: ["name": "Max"]) }
        XCTAssertEqual(rex.fans.map(\.name), ["Bob"])
        XCTAssertEqual(ann.favoriteDog?.fans.map(\.name), ["Ann"])

        try realm.write { bob.favoriteDog = nil }
        XCTAssertTrue(rex.fans.isEmpty)
    }

    func testBacklinksOfSetsAndMaps() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        let ann = LinkingPerson(value: ["name": "Ann"])
        ann.walkedDogs.insert(rex)
        ann.dogsByNickname["rexy"] = rex
        try realm.write { realm.add(ann) }
        XCTAssertEqual(rex.walkers.map(\.name), ["Ann"])
        XCTAssertEqual(rex.nicknamers.map(\.name), ["Ann"])

        try realm.write {
            ann.walkedDogs.remove(rex)
            ann.dogsByNickname["rexy"] = nil
        }
        XCTAssertTrue(rex.walkers.isEmpty)
        XCTAssertTrue(rex.nicknamers.isEmpty)
    }

    func testBacklinksWithinOneClass() throws {
        let first = LinkingNode(value: ["id": 1])
        let second = LinkingNode(value: ["id": 2])
        let third = LinkingNode(value: ["id": 3])
        first.next = second
        second.next = third
        third.next = third
        try realm.write { realm.add(first) }
        XCTAssertTrue(first.previous.isEmpty)
        XCTAssertEqual(second.previous.map(\.id), [1])
        XCTAssertEqual(Set(third.previous.map(\.id)), [2, 3])
    }

    func testBacklinksByNameAndInTheSchema() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        let ann = LinkingPerson(value: ["name": "Ann", "dogs": [rex]])
        try realm.write { realm.add(ann) }
        let byName = rex["owners"] as? LinkingObjects<LinkingPerson>
        XCTAssertEqual(byName?.map(\.name), ["Ann"])

        let property = rex.objectSchema["owners"]
        XCTAssertEqual(property?.type, .linkingObjects)
        XCTAssertEqual(property?.objectClassName, "LinkingPerson")
        XCTAssertEqual(property?.linkOriginPropertyName, "dogs")
        XCTAssertNil(realm.schema["LinkingDog"]?["owners"], "linking objects are computed, not stored")
    }

    func testSettingALinkingObjectsPropertyByNameFailsTheWrite() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        try realm.write { realm.add(rex) }
        assertThrowsRealmError(.invalidArgument, messageContains: ["owners"]) {
            try self.realm.write { rex["owners"] = [] }
        }
    }

    func testLinkingObjectsOfADeletedObject() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        let ann = LinkingPerson(value: ["name": "Ann", "dogs": [rex]])
        try realm.write { realm.add(ann) }
        let owners = rex.owners
        XCTAssertFalse(owners.isInvalidated)
        try realm.write { realm.delete(rex) }
        XCTAssertTrue(owners.isInvalidated)
        XCTAssertTrue(ann.dogs.isEmpty)
    }

    func testIteratingBacklinksGivesLiveObjects() throws {
        let rex = LinkingDog(value: ["name": "Rex"])
        let people = (0..<10).map { LinkingPerson(value: ["name": "p\($0)", "dogs": [rex]]) }
        try realm.write { realm.add(people) }
        XCTAssertEqual(rex.owners.count, 10)
        XCTAssertEqual(Set(rex.owners.map(\.name)), Set((0..<10).map { "p\($0)" }))
        try realm.write {
            for owner in rex.owners { owner.favoriteDog = rex }
        }
        XCTAssertEqual(rex.fans.count, 10)
        XCTAssertTrue(rex.owners.description.contains("LinkingObjects<LinkingPerson>"))
    }
}
