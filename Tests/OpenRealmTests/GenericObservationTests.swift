import Foundation
import OpenRealm
import XCTest

/// `observe` reached through the shared collection API: generic code over
/// `RealmCollection`, `AnyRealmCollection`, and typed key paths on every collection.
final class GenericObservationTests: XCTestCase {
    func makeRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self]))
    }

    /// Generic code written against `RealmCollection` observes any of them.
    private func observeCount<C: RealmCollection>(_ collection: C, into log: NChangeLog<C>) -> NotificationToken {
        collection.observe { log.record($0) }
    }

    func testGenericCodeObservesResultsListAndLinkingObjects() throws {
        let realm = try makeRealm()
        let owner = try realm.write { () -> NOwner in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            owner.dogs.append(realm.create(NDog.self, value: ["id": 1]))
            return owner
        }
        let results = NChangeLog<Results<NDog>>()
        let list = NChangeLog<List<NDog>>()
        let t1 = observeCount(realm.objects(NDog.self), into: results)
        let t2 = observeCount(owner.dogs, into: list)
        pollUntil("initials") { results.initials == 1 && list.initials == 1 }
        try realm.write { owner.dogs.append(realm.create(NDog.self, value: ["id": 2])) }
        pollUntil("updates") { results.updates.count == 1 && list.updates.count == 1 }
        XCTAssertEqual(results.updates[0].insertions, [1])
        XCTAssertEqual(list.updates[0].insertions, [1])
        withExtendedLifetime([t1, t2]) {}
    }

    func testAnyRealmCollectionDeliversTheWrappedCollectionsChanges() throws {
        let realm = try makeRealm()
        let owner = try realm.write { realm.create(NOwner.self, value: ["id": 1]) }
        let erased = AnyRealmCollection(owner.dogs)
        let log = NChangeLog<AnyRealmCollection<NDog>>()
        let counts = NCounts()
        log.onUpdate = { counts.append($0.count) }
        let token = erased.observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        try realm.write {
            owner.dogs.append(realm.create(NDog.self, value: ["id": 7]))
            owner.dogs.append(realm.create(NDog.self, value: ["id": 8]))
        }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].insertions, [0, 1])
        XCTAssertEqual(counts.values, [2], "the block gets the wrapped list, wrapped again")
        try realm.write { owner.dogs[0].name = "renamed" }
        pollUntil("modification") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].modifications, [0])
        withExtendedLifetime(token) {}
    }

    func testTypedKeyPathsRestrictListSetAndLinkingObjects() throws {
        let realm = try makeRealm()
        let (owner, dog) = try realm.write { () -> (NOwner, NDog) in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            let dog = realm.create(NDog.self, value: ["id": 1])
            owner.dogs.append(dog)
            owner.dogSet.insert(dog)
            return (owner, dog)
        }
        let list = NChangeLog<List<NDog>>()
        let set = NChangeLog<MutableSet<NDog>>()
        let t1 = owner.dogs.observe(keyPaths: [\NDog.name]) { list.record($0) }
        let t2 = owner.dogSet.observe(keyPaths: [\NDog.name]) { set.record($0) }
        pollUntil("initials") { list.initials == 1 && set.initials == 1 }
        try realm.write { dog.age = 3 }              // not a watched property
        try realm.write { dog.name = "Rex" }         // watched
        pollUntil("name change") { list.updates.count >= 1 && set.updates.count >= 1 }
        XCTAssertEqual(list.updates.count, 1, "the age change is not reported")
        XCTAssertEqual(list.updates[0].modifications, [0])
        XCTAssertEqual(set.updates.count, 1)
        XCTAssertEqual(set.updates[0].modifications, [0])
        withExtendedLifetime([t1, t2]) {}
    }

    func testTypedKeyPathsOnAnActor() async throws {
        let config = makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self])
        let realm = try await Realm(configuration: config)
        let owner = try realm.write { () -> NOwner in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            owner.dogs.append(realm.create(NDog.self, value: ["id": 1]))
            return owner
        }
        let notes = NChangeCounter()
        let token = await owner.dogs.observe(keyPaths: [\NDog.name], on: NTestActor.shared) { _, change in
            switch change {
            case .initial: notes.add(["initial"])
            case .update(_, _, _, let modifications): notes.add(modifications.map(String.init))
            case .error(let error): XCTFail("\(error)")
            }
        }
        await pollUntilAsync("initial") { notes.values == [["initial"]] }
        try realm.write { owner.dogs[0].age = 5 }
        try realm.write { owner.dogs[0].name = "Rex" }
        await pollUntilAsync("name change") { notes.values.count == 2 }
        XCTAssertEqual(notes.values, [["initial"], ["0"]])
        token.invalidate()
    }
}
