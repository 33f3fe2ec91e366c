import Foundation
import OpenRealm
import XCTest

final class NDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

final class NOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dog: NDog?
    @Persisted var dogs: List<NDog>
    @Persisted var tags: List<String>
    @Persisted var dogSet: MutableSet<NDog>
    @Persisted var numbers: MutableSet<Int>
    @Persisted var scores: Map<String, Int>
    @Persisted var dogMap: Map<String, NDog?>
}

final class NTask: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var priority = 0
    @Persisted var done = false
}

/// Collects collection notifications and lets a test wait for a condition on them.
final class NChangeLog<C>: @unchecked Sendable {
    struct Update {
        let deletions: [Int]
        let insertions: [Int]
        let modifications: [Int]
    }
    private let lock = NSLock()
    private var _initials = 0
    private var _updates: [Update] = []
    private var _threads: [Bool] = []
    var onUpdate: ((C) -> Void)?

    var initials: Int { lock.withLock { _initials } }
    var updates: [Update] { lock.withLock { _updates } }

    func record(_ change: RealmCollectionChange<C>) {
        switch change {
        case .initial:
            lock.withLock { _initials += 1 }
        case .update(let collection, let deletions, let insertions, let modifications):
            onUpdate?(collection)
            lock.withLock { _updates.append(Update(deletions: deletions, insertions: insertions, modifications: modifications)) }
        case .error(let error):
            XCTFail("unexpected error \(error)")
        }
    }
}

extension XCTestCase {
    /// Waits until `condition` holds, running the main run loop (main-queue deliveries)
    /// meanwhile; fails after `timeout` seconds.
    func pollUntil(_ what: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line,
                   _ condition: () -> Bool) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline {
                XCTFail("timed out waiting for \(what)", file: file, line: line)
                return
            }
            if Thread.isMainThread {
                RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.002))
            } else {
                usleep(1000)
            }
        }
    }

    /// Runs `body` on a new thread and waits for it to finish.
    func runOnNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = expectation(description: "other thread")
        let thread = Thread {
            body()
            done.fulfill()
        }
        thread.start()
        wait(for: [done], timeout: 30)
    }
}

final class NotificationTests: XCTestCase {
    func makeRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self]))
    }

    func testResultsInitialThenUpdateOnMainThread() throws {
        let realm = try makeRealm()
        let log = NChangeLog<Results<NTask>>()
        let token = realm.objects(NTask.self).observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        try realm.write { realm.add(NTask(value: ["id": 1, "title": "a"])) }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].insertions, [0])
        XCTAssertEqual(log.updates[0].deletions, [])
        try realm.write { realm.objects(NTask.self).first!.title = "b" }
        pollUntil("modification") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].modifications, [0])
        token.invalidate()
        try realm.write { realm.add(NTask(value: ["id": 2])) }
        // A realm's own commit is delivered to its thread's registrations before
        // `write` returns: anything still due would have arrived by now.
        XCTAssertEqual(log.updates.count, 2, "nothing after invalidate")
    }

    /// As the SDK's token: `invalidate()` answers whether it stopped the registration,
    /// and a call whose result is ignored still compiles (`tokens.forEach { $0.invalidate() }`).
    func testInvalidateAnswersWhetherTheTokenWasStillValid() throws {
        let realm = try Realm(configuration: try makeFileConfiguration([NDog.self, NOwner.self, NTask.self]))
        let log = NChangeLog<Results<NTask>>()
        let token = realm.objects(NTask.self).observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        XCTAssertTrue(token.invalidate())
        XCTAssertFalse(token.invalidate(), "already invalidated")
        try realm.write { realm.add(NTask(value: ["id": 1])) }
        XCTAssertEqual(log.updates.count, 0, "nothing after invalidate")
        let tokens = [realm.observe { _, _ in }, realm.objects(NDog.self).observe { _ in }]
        tokens.forEach { $0.invalidate() }
        XCTAssertEqual(tokens.map { $0.invalidate() }, [false, false])
        XCTAssertFalse(NotificationToken().invalidate(), "a token that registered nothing")
    }

    func testCommitOfAnotherThreadReachesMainThreadObserver() throws {
        let config = makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self])
        let realm = try Realm(configuration: config)
        let log = NChangeLog<Results<NTask>>()
        let tasks = realm.objects(NTask.self).where { $0.priority > 1 }
        let token = tasks.observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        runOnNewThread {
            let other = try! Realm(configuration: config)
            try! other.write {
                other.add(NTask(value: ["id": 1, "priority": 5]))
                other.add(NTask(value: ["id": 2, "priority": 0]))
            }
        }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(log.updates.first?.insertions, [0])
        XCTAssertEqual(tasks.count, 1, "the main-thread realm autorefreshed")
        withExtendedLifetime(token) {}
    }

    func testSortedResultsReportMovesAsDeletionPlusInsertion() throws {
        let realm = try makeRealm()
        try realm.write {
            for i in 0..<5 { realm.add(NTask(value: ["id": i, "priority": i * 10, "title": "t\(i)"])) }
        }
        let sorted = realm.objects(NTask.self).sorted(byKeyPath: "priority")
        let log = NChangeLog<Results<NTask>>()
        let token = sorted.observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        // id 0 (priority 0, position 0) moves to the end; id 3 changes in place.
        try realm.write {
            realm.object(ofType: NTask.self, forPrimaryKey: 0)!.priority = 100
            realm.object(ofType: NTask.self, forPrimaryKey: 3)!.title = "changed"
        }
        pollUntil("update") { log.updates.count == 1 }
        let update = log.updates[0]
        XCTAssertEqual(update.deletions, [0])
        XCTAssertEqual(update.insertions, [4])
        XCTAssertEqual(update.modifications, [3], "old index of id 3")
        XCTAssertEqual(sorted.map(\.id), [1, 2, 3, 4, 0])
        withExtendedLifetime(token) {}
    }

    func testDeletionsAndInsertionsTogether() throws {
        let realm = try makeRealm()
        try realm.write { for i in 0..<6 { realm.add(NTask(value: ["id": i, "done": i % 2 == 0])) } }
        let open = realm.objects(NTask.self).where { $0.done == false }   // ids 1, 3, 5
        let log = NChangeLog<Results<NTask>>()
        let token = open.observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        try realm.write {
            realm.delete(realm.object(ofType: NTask.self, forPrimaryKey: 3)!)
            realm.object(ofType: NTask.self, forPrimaryKey: 2)!.done = false   // enters
            realm.object(ofType: NTask.self, forPrimaryKey: 5)!.done = true    // leaves
            realm.add(NTask(value: ["id": 10]))
        }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].deletions, [1, 2])
        XCTAssertEqual(open.map(\.id), [1, 2, 10])
        XCTAssertEqual(log.updates[0].insertions, [1, 2])
        XCTAssertEqual(log.updates[0].modifications, [])
        withExtendedLifetime(token) {}
    }

    func testObserveOnQueueDeliversThereWithItsOwnResults() throws {
        let config = makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self])
        let realm = try Realm(configuration: config)
        let queue = DispatchQueue(label: "notification-test")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let log = NChangeLog<Results<NTask>>()
        let counts = NCounts()
        log.onUpdate = { results in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), true, "delivered on the queue")
            counts.append(results.count)
        }
        let token = realm.objects(NTask.self).observe(on: queue) { change in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), true, "delivered on the queue")
            log.record(change)
        }
        pollUntil("initial") { log.initials == 1 }
        try realm.write { realm.add(NTask(value: ["id": 1])) }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(counts.values, [1])
        token.invalidate()
    }

    func testBackgroundThreadDeliversWhenItRefreshesOrWrites() throws {
        let config = makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self])
        let keepOpen = try Realm(configuration: config)
        runOnNewThread {
            let realm = try! Realm(configuration: config)
            let log = NChangeLog<Results<NTask>>()
            let token = realm.objects(NTask.self).observe { log.record($0) }
            XCTAssertEqual(log.initials, 0, "nothing is delivered before the thread refreshes")
            realm.refresh()
            XCTAssertEqual(log.initials, 1)
            // Another thread commits: delivered at this thread's next refresh.
            let writer = Thread {
                let other = try! Realm(configuration: config)
                try! other.write { other.add(NTask(value: ["id": 1])) }
            }
            writer.start()
            let deadline = Date(timeIntervalSinceNow: 5)
            while realm.objects(NTask.self).isEmpty && Date() < deadline {
                usleep(1000)
                realm.refresh()
            }
            XCTAssertEqual(log.updates.count, 1)
            XCTAssertEqual(log.updates.first?.insertions, [0])
            // Its own commit is delivered before write returns.
            try! realm.write { realm.add(NTask(value: ["id": 2])) }
            XCTAssertEqual(log.updates.count, 2)
            XCTAssertEqual(log.updates.last?.insertions, [1])
            token.invalidate()
        }
        withExtendedLifetime(keepOpen) {}
    }

    func testWriteWithoutNotifyingSkipsThatToken() throws {
        let realm = try makeRealm()
        let skipped = NChangeLog<Results<NTask>>()
        let notified = NChangeLog<Results<NTask>>()
        let results = realm.objects(NTask.self)
        let skippedToken = results.observe { skipped.record($0) }
        let notifiedToken = results.observe { notified.record($0) }
        pollUntil("initials") { skipped.initials == 1 && notified.initials == 1 }
        try realm.write(withoutNotifying: [skippedToken]) { realm.add(NTask(value: ["id": 1])) }
        try realm.write { realm.add(NTask(value: ["id": 2])) }
        pollUntil("updates") { notified.updates.count == 2 && skipped.updates.count == 1 }
        XCTAssertEqual(skipped.updates[0].insertions, [1], "the first write was skipped, and its object is not reported again")
        withExtendedLifetime([skippedToken, notifiedToken]) {}
    }

    func testReleasingTheTokenStopsDelivery() throws {
        let realm = try makeRealm()
        let log = NChangeLog<Results<NTask>>()
        var token: NotificationToken? = realm.objects(NTask.self).observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        XCTAssertNotNil(token)
        token = nil
        try realm.write { realm.add(NTask(value: ["id": 1])) }
        // A realm's own commit is delivered to its thread's registrations before
        // `write` returns: anything still due would have arrived by now.
        XCTAssertEqual(log.updates.count, 0)
    }

    func testKeyPathsRestrictModifications() throws {
        let realm = try makeRealm()
        try realm.write { realm.add(NTask(value: ["id": 1, "title": "a"])) }
        let results = realm.objects(NTask.self)
        let byName = NChangeLog<Results<NTask>>()
        let byKeyPath = NChangeLog<Results<NTask>>()
        let t1 = results.observe(keyPaths: ["title"]) { byName.record($0) }
        let t2 = results.observe(keyPaths: [\NTask.priority]) { byKeyPath.record($0) }
        pollUntil("initials") { byName.initials == 1 && byKeyPath.initials == 1 }
        try realm.write { results[0].priority = 3 }
        pollUntil("priority change") { byKeyPath.updates.count == 1 }
        XCTAssertEqual(byKeyPath.updates[0].modifications, [0])
        try realm.write { results[0].title = "b" }
        pollUntil("title change") { byName.updates.count == 1 }
        XCTAssertEqual(byName.updates[0].modifications, [0])
        XCTAssertEqual(byKeyPath.updates.count, 1, "a title change is not a priority change")
        // Insertions are reported whatever the key paths.
        try realm.write { realm.add(NTask(value: ["id": 2])) }
        pollUntil("insertions") { byName.updates.count == 2 && byKeyPath.updates.count == 2 }
        withExtendedLifetime([t1, t2]) {}
    }

    func testModificationsThroughLinks() throws {
        let realm = try makeRealm()
        try realm.write {
            let dog = realm.create(NDog.self, value: ["id": 1, "name": "Rex"])
            realm.create(NOwner.self, value: ["id": 1, "name": "Ann", "dog": dog])
            realm.create(NOwner.self, value: ["id": 2, "name": "Bob"])
        }
        let owners = realm.objects(NOwner.self)
        let deep = NChangeLog<Results<NOwner>>()
        let shallow = NChangeLog<Results<NOwner>>()
        let viaPath = NChangeLog<Results<NOwner>>()
        let t1 = owners.observe { deep.record($0) }
        let t2 = owners.observe(keyPaths: ["name"]) { shallow.record($0) }
        let t3 = owners.observe(keyPaths: ["dog.name"]) { viaPath.record($0) }
        pollUntil("initials") { deep.initials == 1 && shallow.initials == 1 && viaPath.initials == 1 }
        try realm.write { realm.object(ofType: NDog.self, forPrimaryKey: 1)!.name = "Max" }
        pollUntil("deep update") { deep.updates.count == 1 && viaPath.updates.count == 1 }
        XCTAssertEqual(deep.updates[0].modifications, [0])
        XCTAssertEqual(viaPath.updates[0].modifications, [0])
        try realm.write { realm.object(ofType: NDog.self, forPrimaryKey: 1)!.age = 4 }
        pollUntil("age change") { deep.updates.count == 2 }
        // A realm's own commit is delivered to its thread's registrations before
        // `write` returns: anything still due would have arrived by now.
        XCTAssertEqual(shallow.updates.count, 0, "key path 'name' ignores the dog")
        XCTAssertEqual(viaPath.updates.count, 1, "key path 'dog.name' ignores the dog's age")
        withExtendedLifetime([t1, t2, t3]) {}
    }

    func testListNotifications() throws {
        let realm = try makeRealm()
        let owner = try realm.write { () -> NOwner in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            for i in 0..<4 { owner.dogs.append(realm.create(NDog.self, value: ["id": i, "name": "d\(i)"])) }
            owner.tags.append(objectsIn: ["a", "b", "c"])
            return owner
        }
        let dogs = NChangeLog<List<NDog>>()
        let tags = NChangeLog<List<String>>()
        let t1 = owner.dogs.observe { dogs.record($0) }
        let t2 = owner.tags.observe { tags.record($0) }
        pollUntil("initials") { dogs.initials == 1 && tags.initials == 1 }

        try realm.write { owner.dogs.move(from: 0, to: 3) }
        pollUntil("move") { dogs.updates.count == 1 }
        XCTAssertEqual(dogs.updates[0].deletions, [0])
        XCTAssertEqual(dogs.updates[0].insertions, [3])

        try realm.write {
            owner.dogs.remove(at: 1)
            owner.dogs.insert(realm.create(NDog.self, value: ["id": 9]), at: 0)
            owner.dogs[2].name = "renamed"     // an element object changes
        }
        pollUntil("mixed") { dogs.updates.count == 2 }
        // Old list: [1, 2, 3, 0]. Removing position 1 (dog 2), inserting dog 9 at 0.
        XCTAssertEqual(dogs.updates[1].deletions, [1])
        XCTAssertEqual(dogs.updates[1].insertions, [0])
        XCTAssertEqual(owner.dogs.map(\.id), [9, 1, 3, 0])
        XCTAssertEqual(dogs.updates[1].modifications, [2], "dog 3, old position 2")

        try realm.write { owner.tags[1] = "B"; owner.tags.append("d") }
        pollUntil("tags") { tags.updates.count == 1 }
        XCTAssertEqual(tags.updates[0].modifications, [1])
        XCTAssertEqual(tags.updates[0].insertions, [3])

        try realm.write { realm.delete(owner) }
        pollUntil("owner deleted") { tags.updates.count == 2 }
        XCTAssertEqual(tags.updates[1].deletions, [0, 1, 2, 3])
        withExtendedLifetime([t1, t2]) {}
    }

    func testSetMapAndLinkingObjectsNotifications() throws {
        let realm = try makeRealm()
        let owner = try realm.write { () -> NOwner in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            owner.numbers.insert(objectsIn: [10, 30])
            owner.scores["a"] = 1
            owner.scores["c"] = 3
            let dog = realm.create(NDog.self, value: ["id": 1])
            owner.dogSet.insert(dog)
            owner.dogMap["rex"] = dog
            return owner
        }
        let dog = realm.object(ofType: NDog.self, forPrimaryKey: 1)!
        let numbers = NChangeLog<MutableSet<Int>>()
        let dogSet = NChangeLog<MutableSet<NDog>>()
        let t1 = owner.numbers.observe { numbers.record($0) }
        let t2 = owner.dogSet.observe { dogSet.record($0) }
        let mapLock = NSLock()
        var mapChanges: [(deletions: [String], insertions: [String], modifications: [String])] = []
        var mapInitial = false
        let t3 = owner.scores.observe { change in
            mapLock.withLock {
                switch change {
                case .initial: mapInitial = true
                case .update(_, let d, let i, let m): mapChanges.append((d, i, m))
                case .error(let error): XCTFail("\(error)")
                }
            }
        }
        let objectMapChanges = NChangeCounter()
        let t4 = owner.dogMap.observe { change in
            if case .update(_, _, _, let modifications) = change { objectMapChanges.add(modifications) }
        }
        pollUntil("initials") { numbers.initials == 1 && dogSet.initials == 1 && mapLock.withLock { mapInitial } }

        try realm.write {
            owner.numbers.insert(20)
            owner.numbers.remove(30)
            owner.scores["b"] = 2
            owner.scores["a"] = 10
            owner.scores.removeObject(for: "c")
        }
        pollUntil("set and map") { numbers.updates.count == 1 && mapLock.withLock { mapChanges.count == 1 } }
        XCTAssertEqual(numbers.updates[0].deletions, [1], "30 was at position 1 of [10, 30]")
        XCTAssertEqual(numbers.updates[0].insertions, [1], "20 is at position 1 of [10, 20]")
        mapLock.withLock {
            XCTAssertEqual(mapChanges[0].deletions, ["c"])
            XCTAssertEqual(mapChanges[0].insertions, ["b"])
            XCTAssertEqual(mapChanges[0].modifications, ["a"])
        }

        try realm.write { dog.name = "Rex" }
        pollUntil("object set and map") { dogSet.updates.count == 1 && objectMapChanges.values == [["rex"]] }
        XCTAssertEqual(dogSet.updates[0].modifications, [0])
        withExtendedLifetime([t1, t2, t3, t4]) {}
    }

    func testLinkingObjectsNotifications() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([NPerson.self, NPet.self]))
        let pet = try realm.write { realm.create(NPet.self, value: ["name": "Rex"]) }
        let log = NChangeLog<LinkingObjects<NPerson>>()
        let token = pet.owners.observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        try realm.write { realm.create(NPerson.self, value: ["name": "Ann", "pets": [pet]]) }
        pollUntil("insertion") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].insertions, [0])
        try realm.write { pet.owners[0].name = "Anne" }
        pollUntil("modification") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].modifications, [0])
        try realm.write { pet.owners[0].pets.removeAll() }
        pollUntil("deletion") { log.updates.count == 3 }
        XCTAssertEqual(log.updates[2].deletions, [0])
        withExtendedLifetime(token) {}
    }

    func testResultsOfAListObservedOnAQueue() throws {
        let realm = try makeRealm()
        let owner = try realm.write { () -> NOwner in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            for i in 0..<3 { owner.dogs.append(realm.create(NDog.self, value: ["id": i, "age": i])) }
            return owner
        }
        let old = owner.dogs.where { $0.age >= 1 }
        let log = NChangeLog<Results<NDog>>()
        let token = old.observe(on: DispatchQueue(label: "list-results")) { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        try realm.write { owner.dogs.append(realm.create(NDog.self, value: ["id": 7, "age": 7])) }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].insertions, [2])
        token.invalidate()
    }

    func testRealmObserverDidChangeAndRefreshRequired() throws {
        let config = makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self])
        let realm = try Realm(configuration: config)
        let notes = NNotificationNotes()
        let token = realm.observe { notification, observed in
            XCTAssertTrue(observed == realm)
            notes.add(notification)
        }
        try realm.write { realm.add(NTask(value: ["id": 1])) }
        XCTAssertEqual(notes.values, [.didChange], "a local commit is reported at once")
        runOnNewThread {
            let other = try! Realm(configuration: config)
            try! other.write { other.add(NTask(value: ["id": 2])) }
        }
        pollUntil("autorefresh") { notes.values.count == 2 }
        XCTAssertEqual(notes.values.last, .didChange)
        XCTAssertEqual(realm.objects(NTask.self).count, 2)

        realm.autorefresh = false
        runOnNewThread {
            let other = try! Realm(configuration: config)
            try! other.write { other.add(NTask(value: ["id": 3])) }
        }
        pollUntil("refresh required") { notes.values.count == 3 }
        XCTAssertEqual(notes.values.last, .refreshRequired)
        XCTAssertEqual(realm.objects(NTask.self).count, 2, "no autorefresh")
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(notes.values.last, .didChange)
        XCTAssertEqual(realm.objects(NTask.self).count, 3)
        withExtendedLifetime(token) {}
    }

    @MainActor
    func testCollectionsObservedOnAQueueAndOnAnActor() async throws {
        let config = makeInMemoryConfiguration([NDog.self, NOwner.self, NTask.self])
        let realm = try await Realm(configuration: config)
        let owner = try realm.write { () -> NOwner in
            let owner = realm.create(NOwner.self, value: ["id": 1])
            owner.dogs.append(realm.create(NDog.self, value: ["id": 1]))
            owner.scores["x"] = 1
            return owner
        }
        let queue = DispatchQueue(label: "list-observer")
        let list = NChangeLog<List<NDog>>()
        let listToken = owner.dogs.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            list.record(change)
        }
        let mapKeys = NChangeCounter()
        let mapToken = await owner.scores.observe(on: NTestActor.shared) { _, change in
            switch change {
            case .initial: mapKeys.add(["initial"])
            case .update(let map, _, let insertions, _):
                XCTAssertEqual(map.count, 2)
                mapKeys.add(insertions)
            case .error(let error): XCTFail("\(error)")
            }
        }
        await pollUntilAsync("initials") { list.initials == 1 && mapKeys.values == [["initial"]] }
        try realm.write {
            owner.dogs.append(realm.create(NDog.self, value: ["id": 2]))
            owner.scores["y"] = 2
        }
        await pollUntilAsync("list and map updates") { list.updates.count == 1 && mapKeys.values == [["initial"], ["y"]] }
        XCTAssertEqual(list.updates[0].insertions, [1])
        listToken.invalidate()
        mapToken.invalidate()
    }

    func testEmbeddedObjectObservation() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([NContact.self, NAddress.self]))
        let contact = try realm.write { realm.create(NContact.self, value: ["id": 1, "address": ["street": "Main"]]) }
        let address = contact.address!
        let log = NObjectLog<NAddress>()
        let token = address.observe { (change: ObjectChange<NAddress>) in log.record(change) }
        try realm.write { address.street = "High" }
        XCTAssertEqual(log.changes.first?.map(\.name), ["street"])
        try realm.write { contact.address = nil }
        XCTAssertEqual(log.deleted, 1, "the embedded object went with its parent's link")
        withExtendedLifetime(token) {}
    }

    func testObservingInsideAWriteOrAFrozenRealmIsRefusedAndThreadMisuseThrows() throws {
        let realm = try makeRealm()
        realm.beginWrite()
        let error = NBox<Error?>(nil)
        nonisolated(unsafe) let shared = realm
        let thread = Thread {
            do { try shared.commitWrite() } catch let caught { error.value = caught }
        }
        thread.start()
        pollUntil("other thread") { thread.isFinished }
        XCTAssertEqual((error.value as? Realm.Error)?.code, .wrongTransactionState)
        XCTAssertTrue(realm.isInWriteTransaction, "the write is still open on its own thread")
        realm.add(NTask(value: ["id": 1]))
        try realm.commitWrite()
        XCTAssertEqual(realm.objects(NTask.self).count, 1)

        let beginError = NBox<Error?>(nil)
        let beginner = Thread {
            do { try shared.write {} } catch let caught { beginError.value = caught }
        }
        beginner.start()
        pollUntil("begin on other thread") { beginner.isFinished }
        XCTAssertEqual((beginError.value as? Realm.Error)?.code, .wrongTransactionState)
        XCTAssertTrue((beginError.value as? Realm.Error)?.message.contains("incorrect thread") ?? false)
    }
}

final class NPerson: Object {
    @Persisted var name = ""
    @Persisted var pets: List<NPet>
}

final class NPet: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<NPerson>
}

final class NCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Int] = []
    func append(_ value: Int) { lock.withLock { _values.append(value) } }
    var values: [Int] { lock.withLock { _values } }
}

final class NChangeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [[String]] = []
    func add(_ value: [String]) { lock.withLock { _values.append(value) } }
    var values: [[String]] { lock.withLock { _values } }
}

final class NNotificationNotes: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Realm.Notification] = []
    func add(_ value: Realm.Notification) { lock.withLock { _values.append(value) } }
    var values: [Realm.Notification] { lock.withLock { _values } }
}

final class NBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
