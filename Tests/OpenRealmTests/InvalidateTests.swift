import Foundation
import RealmSwift
import XCTest

final class InvalidateDog: Object {
    @Persisted var name: String
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<InvalidateOwner>
}

final class InvalidateOwner: Object {
    @Persisted var name: String
    @Persisted var dogs: List<InvalidateDog>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var luckyNumbers: List<Int>
}

/// `Realm.invalidate()` as the Realm Swift SDK's own tests use it (RealmTests
/// `testInvalidate`, RealmCollectionTypeTests `testInvalidate`, ModernObjectAccessorTests
/// `testInvalidationChecking`): what was read before is invalidated for good, and the
/// realm reads anew.
final class InvalidateTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration([InvalidateDog.self, InvalidateOwner.self]))
    }

    private func addOwner(_ realm: Realm) throws -> InvalidateOwner {
        let owner = InvalidateOwner()
        owner.name = "Ann"
        owner.dogs.append(InvalidateDog(value: ["name": "Rex"]))
        owner.tags.insert("a")
        owner.scores["x"] = 1
        owner.luckyNumbers.append(7)
        try realm.write { realm.add(owner) }
        return owner
    }

    func testInvalidate() throws {
        let realm = try makeRealm()
        let object = InvalidateOwner()
        try realm.write { realm.add(object) }
        realm.invalidate()
        XCTAssertEqual(object.isInvalidated, true)

        try realm.write { realm.add(InvalidateOwner()) }
        XCTAssertEqual(realm.objects(InvalidateOwner.self).count, 2)
        XCTAssertEqual(object.isInvalidated, true)
    }

    func testCanRestartReadTransactionAfterInvalidate() throws {
        let realm = try makeRealm()
        _ = try addOwner(realm)
        realm.invalidate()
        XCTAssertEqual(realm.objects(InvalidateOwner.self).first?.name, "Ann")
        XCTAssertEqual(realm.objects(InvalidateOwner.self).first?.dogs.first?.name, "Rex")
    }

    func testInvalidateInvalidatesResults() throws {
        let realm = try makeRealm()
        _ = try addOwner(realm)
        let all = realm.objects(InvalidateOwner.self)
        let filtered = realm.objects(InvalidateOwner.self).filter("name == 'Ann'").sorted(byKeyPath: "name")
        XCTAssertEqual(filtered.first?.name, "Ann")
        XCTAssertFalse(all.isInvalidated)
        XCTAssertFalse(filtered.isInvalidated)

        realm.invalidate()
        XCTAssertTrue(all.isInvalidated)
        XCTAssertTrue(filtered.isInvalidated)
        XCTAssertNotNil(all.realm)
        // Results read anew are valid.
        XCTAssertFalse(realm.objects(InvalidateOwner.self).isInvalidated)
        XCTAssertEqual(realm.objects(InvalidateOwner.self).count, 1)
    }

    func testInvalidateInvalidatesCollections() throws {
        let realm = try makeRealm()
        let owner = try addOwner(realm)
        let dogs = owner.dogs
        let tags = owner.tags
        let scores = owner.scores
        let luckyNumbers = owner.luckyNumbers
        let dog = dogs[0]
        let dogOwners = dog.owners
        XCTAssertEqual(dogOwners.count, 1)
        for collection in [dogs.isInvalidated, tags.isInvalidated, scores.isInvalidated, luckyNumbers.isInvalidated,
                           dogOwners.isInvalidated] {
            XCTAssertFalse(collection)
        }

        realm.invalidate()
        XCTAssertTrue(owner.isInvalidated)
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertTrue(dogs.isInvalidated)
        XCTAssertTrue(tags.isInvalidated)
        XCTAssertTrue(scores.isInvalidated)
        XCTAssertTrue(luckyNumbers.isInvalidated)
        XCTAssertTrue(dogOwners.isInvalidated)
        XCTAssertTrue(AnyRealmCollection(dogs).isInvalidated)
    }

    func testUnmanagedCollectionsAreNeverInvalidated() throws {
        let realm = try makeRealm()
        let owner = InvalidateOwner()
        realm.invalidate()
        XCTAssertFalse(owner.isInvalidated)
        XCTAssertFalse(owner.dogs.isInvalidated)
        XCTAssertFalse(owner.tags.isInvalidated)
        XCTAssertFalse(owner.scores.isInvalidated)
    }

    func testInvalidateDuringWriteRollsBack() throws {
        let realm = try makeRealm()
        realm.beginWrite()
        realm.add(InvalidateOwner())
        realm.invalidate()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(InvalidateOwner.self).count, 0)
    }

    func testInvalidateBeforeReadDoesNotStop() throws {
        let realm = try makeRealm()
        realm.invalidate()
        realm.invalidate()
        XCTAssertEqual(realm.objects(InvalidateOwner.self).count, 0)
    }

    func testFrozenObjectsAndResultsOutliveInvalidate() throws {
        let realm = try makeRealm()
        let owner = try addOwner(realm)
        let frozenOwner = owner.freeze()
        let frozenResults = realm.objects(InvalidateOwner.self).freeze()
        realm.invalidate()
        XCTAssertFalse(frozenOwner.isInvalidated)
        XCTAssertEqual(frozenOwner.name, "Ann")
        XCTAssertFalse(frozenResults.isInvalidated)
        XCTAssertEqual(frozenResults.count, 1)
    }

    func testDeletingAnInvalidatedObjectDeletesNothing() throws {
        let realm = try makeRealm()
        let owner = try addOwner(realm)
        realm.invalidate()
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(realm.objects(InvalidateOwner.self).count, 1)
    }

    func testAddingAnInvalidatedObjectFailsTheWrite() throws {
        let realm = try makeRealm()
        let owner = try addOwner(realm)
        realm.invalidate()
        assertThrowsRealmError(.objectInvalidated, messageContains: ["Adding a deleted or invalidated object"]) {
            try realm.write { realm.add(owner) }
        }
        assertThrowsRealmError(.objectInvalidated, messageContains: ["Object has been deleted or invalidated."]) {
            try realm.write { _ = realm.create(InvalidateOwner.self, value: owner) }
        }
    }

    // MARK: Reads and writes stop, as the SDK's exceptions do

    func testInvalidationChecking() throws {
        let realm = try makeRealm()
        let owner = try addOwner(realm)
        let dogs = owner.dogs
        let dog = dogs[0]
        let dogOwners = dog.owners
        let results = realm.objects(InvalidateOwner.self)
        realm.invalidate()
        assertStops(messageContains: "invalidated") { _ = owner.name }
        assertStops(messageContains: "invalidated") {
            try! realm.write { owner.name = "Bea" }
        }
        assertStops(messageContains: "invalidated") { _ = owner.luckyNumbers.count }
        assertStops(messageContains: "invalidated") {
            try! realm.write { owner.luckyNumbers.removeAll() }
        }
        assertStops(messageContains: "invalidated") { _ = dogs.count }
        assertStops(messageContains: "invalidated") { _ = owner.tags.contains("a") }
        assertStops(messageContains: "invalidated") { _ = owner.scores["x"] }
        assertStops(messageContains: "invalidated") { _ = dogOwners.count }
        assertStops(messageContains: "invalidated") { _ = results.count }
        assertStops(messageContains: "invalidated") { _ = results.first }
        assertStops(messageContains: "invalidated") { _ = results.filter("name == 'Ann'") }
        assertStops(messageContains: "invalidated") { for _ in results {} }
    }

    func testInvalidateWhileIteratingStops() throws {
        let realm = try makeRealm()
        try realm.write {
            for _ in 0..<3 { realm.add(InvalidateOwner()) }
        }
        assertStops(messageContains: "Collection is no longer valid") {
            for _ in realm.objects(InvalidateOwner.self) { realm.invalidate() }
        }
    }
}
