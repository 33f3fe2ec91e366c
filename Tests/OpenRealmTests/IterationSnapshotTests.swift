import Foundation
import RealmSwift
import XCTest

final class SnapshotDog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<SnapshotOwner>
    @Persisted(originProperty: "dogSet") var setOwners: LinkingObjects<SnapshotOwner>
}

final class SnapshotOwner: Object {
    @Persisted var name: String
    @Persisted var dogs: List<SnapshotDog>
    @Persisted var dogSet: MutableSet<SnapshotDog>
    @Persisted var numbers: List<Int>
    @Persisted var numberSet: MutableSet<Int>
}

/// Changing a collection while a loop walks it, as the Realm Swift SDK's tests do
/// (RealmCollectionTypeTests / ListTests / MutableSetTests
/// `testFastEnumerationWithMutation`): the loop walks what the collection held when it
/// began, so every element is visited once.
final class IterationSnapshotTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration([SnapshotDog.self, SnapshotOwner.self]))
    }

    override func tearDown() {
        realm = nil
        super.tearDown()
    }

    /// An owner with `count` dogs in its list and set, each named by its position.
    private func makeOwner(dogs count: Int) throws -> SnapshotOwner {
        let owner = SnapshotOwner()
        for i in 0..<count {
            let dog = SnapshotDog(value: ["name": "d\(i)", "age": i])
            owner.dogs.append(dog)
            owner.dogSet.insert(dog)
        }
        try realm.write { realm.add(owner) }
        return owner
    }

    /// Deletes each object of `objects` while iterating them, in one write; returns how
    /// many the loop visited.
    private func deleteWhileIterating<S: Sequence>(_ objects: S) throws -> Int where S.Element: Object {
        var visited = 0
        try realm.write {
            for object in objects {
                realm.delete(object)
                visited += 1
            }
        }
        return visited
    }

    func testDeletingResultsWhileIteratingThemInAWrite() throws {
        _ = try makeOwner(dogs: 20)
        XCTAssertEqual(try deleteWhileIterating(realm.objects(SnapshotDog.self).filter("age >= 0").sorted(byKeyPath: "age")), 20)
        XCTAssertEqual(realm.objects(SnapshotDog.self).count, 0)
    }

    func testDeletingAWholeClassWhileIteratingItInAWrite() throws {
        _ = try makeOwner(dogs: 20)
        try realm.write {
            for dog in realm.objects(SnapshotDog.self) { realm.delete(dog) }
        }
        XCTAssertEqual(realm.objects(SnapshotDog.self).count, 0)
    }

    func testAWriteForEachElementOfResults() throws {
        _ = try makeOwner(dogs: 10)
        var visited = 0
        for dog in realm.objects(SnapshotDog.self).where({ $0.age < 100 }) {
            try realm.write { realm.delete(dog) }
            visited += 1
        }
        XCTAssertEqual(visited, 10)
        XCTAssertEqual(realm.objects(SnapshotDog.self).count, 0)
    }

    func testChangingWhatTheQueryMatchesWhileIterating() throws {
        _ = try makeOwner(dogs: 10)
        let young = realm.objects(SnapshotDog.self).where { $0.age < 100 }
        try realm.write {
            for dog in young { dog.age += 100 }
        }
        XCTAssertEqual(young.count, 0)
        XCTAssertEqual(realm.objects(SnapshotDog.self).filter("age >= 100").count, 10)
    }

    func testDeletingTheObjectsOfAListWhileIteratingIt() throws {
        let owner = try makeOwner(dogs: 20)
        var names: [String] = []
        try realm.write {
            for dog in owner.dogs {
                names.append(dog.name)
                realm.delete(dog)
            }
        }
        XCTAssertEqual(names, (0..<20).map { "d\($0)" })
        XCTAssertEqual(owner.dogs.count, 0)
        XCTAssertEqual(realm.objects(SnapshotDog.self).count, 0)
    }

    func testDeletingTheObjectsOfASetWhileIteratingIt() throws {
        let owner = try makeOwner(dogs: 20)
        XCTAssertEqual(try deleteWhileIterating(owner.dogSet), 20)
        XCTAssertEqual(owner.dogSet.count, 0)
    }

    func testDeletingLinkingObjectsWhileIteratingThem() throws {
        let dog = SnapshotDog(value: ["name": "shared"])
        try realm.write {
            for i in 0..<10 {
                let owner = SnapshotOwner(value: ["name": "o\(i)"])
                owner.dogs.append(dog)
                realm.add(owner)
            }
        }
        XCTAssertEqual(dog.owners.count, 10)
        XCTAssertEqual(try deleteWhileIterating(dog.owners), 10)
        XCTAssertEqual(dog.owners.count, 0)
        XCTAssertEqual(realm.objects(SnapshotOwner.self).count, 0)
    }

    func testDeletingThroughAnyRealmCollectionWhileIterating() throws {
        let owner = try makeOwner(dogs: 12)
        let collection = AnyRealmCollection(owner.dogs)
        try realm.write {
            for dog in collection { realm.delete(dog) }
        }
        XCTAssertEqual(collection.count, 0)
        XCTAssertEqual(realm.objects(SnapshotDog.self).count, 0)
    }

    func testAppendingToAManagedListWhileIteratingIt() throws {
        let owner = try makeOwner(dogs: 0)
        let first = SnapshotDog(value: ["name": "1"])
        let second = SnapshotDog(value: ["name": "2"])
        var names = ""
        try realm.write {
            for _ in 0..<10 { owner.dogs.append(objectsIn: [first, second]) }
            for dog in owner.dogs {
                names += dog.name
                owner.dogs.append(objectsIn: [first])
            }
        }
        XCTAssertEqual(names, "12121212121212121212")
        XCTAssertEqual(owner.dogs.count, 40)
    }

    func testAppendingToAnUnmanagedListWhileIteratingIt() {
        let owner = SnapshotOwner()
        let first = SnapshotDog(value: ["name": "1"])
        let second = SnapshotDog(value: ["name": "2"])
        for _ in 0..<10 { owner.dogs.append(objectsIn: [first, second]) }
        var names = ""
        for dog in owner.dogs {
            names += dog.name
            owner.dogs.append(objectsIn: [first])
        }
        XCTAssertEqual(names, "12121212121212121212")
        XCTAssertEqual(owner.dogs.count, 40)
    }

    func testChangingListsAndSetsOfValuesWhileIteratingThem() throws {
        let owner = SnapshotOwner()
        owner.numbers.append(objectsIn: 0..<10)
        owner.numberSet.insert(objectsIn: 0..<10)
        try realm.write { realm.add(owner) }
        var seen: [Int] = []
        try realm.write {
            for number in owner.numbers {
                seen.append(number)
                owner.numbers.remove(at: 0)
            }
            for number in owner.numberSet {
                seen.append(number)
                owner.numberSet.remove(number + 1)
            }
        }
        XCTAssertEqual(seen, Array(0..<10) + Array(0..<10))
        XCTAssertEqual(owner.numbers.count, 0)
        XCTAssertEqual(Array(owner.numberSet), [0])
    }

    func testAnObjectDeletedBeforeTheLoopReachesItComesOutInvalidated() throws {
        let owner = try makeOwner(dogs: 3)
        var invalidated: [Bool] = []
        try realm.write {
            for dog in owner.dogs {
                invalidated.append(dog.isInvalidated)
                if let last = realm.objects(SnapshotDog.self).filter("name == 'd2'").first { realm.delete(last) }
            }
        }
        XCTAssertEqual(invalidated, [false, false, true])
    }
}
