import Foundation
import OpenRealm
import XCTest

@globalActor
actor NTestActor {
    nonisolated static let shared = NTestActor()
}

/// Waits, suspending (so the caller's actor keeps running jobs), until `condition`
/// holds; fails after `timeout` seconds.
func pollUntilAsync(_ what: String, timeout: TimeInterval = 5, isolation: isolated (any Actor)? = #isolation,
               file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) async {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() > deadline {
            XCTFail("timed out waiting for \(what)", file: file, line: line)
            return
        }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
}

/// Writes from a thread of its own, with its own realm.
func commitOnNewThread(_ config: Realm.Configuration, _ body: @escaping @Sendable (Realm) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            let realm = try! Realm(configuration: config)
            try! realm.write { body(realm) }
            continuation.resume()
        }
        thread.start()
    }
}

final class ActorRealmTests: XCTestCase {
    func makeConfig() -> Realm.Configuration {
        makeInMemoryConfiguration([NTask.self, NDog.self, NOwner.self])
    }

    /// `Realm.open` isolates the realm to the caller's actor, as the SDK's does.
    @NTestActor
    func testOpenIsolatesTheRealmToTheCallingActor() async throws {
        let config = makeConfig()
        let realm = try await Realm.open(configuration: config)
        try await realm.asyncWrite { realm.add(NTask(value: ["id": 7, "title": "opened"])) }
        XCTAssertEqual(realm.objects(NTask.self).first?.title, "opened")
        await commitOnNewThread(config) { other in other.add(NTask(value: ["id": 8])) }
        await pollUntilAsync("the other thread's write, on the actor") { realm.objects(NTask.self).count == 2 }
    }

    @MainActor
    func testMainActorRealmWritesAndIsNotified() async throws {
        let config = makeConfig()
        let realm = try await Realm(configuration: config, actor: MainActor.shared)
        let log = NChangeLog<Results<NTask>>()
        let tasks = realm.objects(NTask.self)
        let token = tasks.observe { log.record($0) }
        await pollUntilAsync("initial") { log.initials == 1 }
        let title = try await realm.asyncWrite { () -> String in
            realm.add(NTask(value: ["id": 1, "title": "mine"]))
            return "mine"
        }
        XCTAssertEqual(title, "mine")
        XCTAssertEqual(log.updates.count, 1, "the actor's own write is delivered before asyncWrite returns")
        await commitOnNewThread(config) { other in other.add(NTask(value: ["id": 2])) }
        await pollUntilAsync("other thread's write") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].insertions, [1])
        XCTAssertEqual(tasks.count, 2, "the realm advanced on its actor")
        token.invalidate()
    }

    func testCustomGlobalActorRealm() async throws {
        try await Self.customActorBody(makeConfig())
    }

    @NTestActor
    private static func customActorBody(_ config: Realm.Configuration) async throws {
        let realm = try await Realm(configuration: config, actor: NTestActor.shared)
        let log = NChangeLog<Results<NTask>>()
        let open = realm.objects(NTask.self).where { $0.done == false }
        let token = open.observe { change in
            NTestActor.shared.assertIsolated("delivered on the realm's actor")
            log.record(change)
        }
        await pollUntilAsync("initial") { log.initials == 1 }
        try await realm.asyncWrite {
            realm.add(NTask(value: ["id": 1]))
            realm.add(NTask(value: ["id": 2, "done": true]))
        }
        await commitOnNewThread(config) { other in
            other.object(ofType: NTask.self, forPrimaryKey: 2)!.done = false
        }
        await pollUntilAsync("update from the other thread") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].insertions, [1])
        XCTAssertEqual(open.map(\.id), [1, 2])
        // A block that throws rolls the write back.
        do {
            try await realm.asyncWrite {
                realm.add(NTask(value: ["id": 3]))
                throw RealmError(.fail, "rolled back")
            }
            XCTFail("asyncWrite should rethrow")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.message, "rolled back")
        }
        XCTAssertNil(realm.object(ofType: NTask.self, forPrimaryKey: 3))
        token.invalidate()
    }

    @MainActor
    func testObserveOnAnActorFromAMainThreadRealm() async throws {
        let realm = try await Realm(configuration: makeConfig())
        let log = NChangeLog<Results<NTask>>()
        let token = await realm.objects(NTask.self).observe(on: NTestActor.shared) { _, change in
            log.record(change)
        }
        await pollUntilAsync("initial") { log.initials == 1 }
        try realm.write { realm.add(NTask(value: ["id": 1])) }
        await pollUntilAsync("update on the actor") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].insertions, [0])
        let object = realm.object(ofType: NTask.self, forPrimaryKey: 1)!
        let changes = NObjectLog<NTask>()
        let objectToken = await object.observe(on: NTestActor.shared) { (_, change: ObjectChange<NTask>) in changes.record(change) }
        try realm.write { object.title = "new" }
        await pollUntilAsync("object change on the actor") { changes.changes.count == 1 }
        XCTAssertEqual(changes.changes[0].first?.name, "title")
        token.invalidate()
        objectToken.invalidate()
    }

    @MainActor
    func testAsyncWriteOnTheWrongActorThrows() async throws {
        let realm = try await Realm(configuration: makeConfig(), actor: MainActor.shared)
        nonisolated(unsafe) let shared = realm
        let message = await Self.wrongActorWrite(shared)
        XCTAssertTrue(message?.contains("another actor") ?? false, message ?? "no error")
    }

    @NTestActor
    private static func wrongActorWrite(_ realm: Realm) async -> String? {
        do {
            try await realm.asyncWrite { }
            return nil
        } catch {
            return (error as? Realm.Error)?.message
        }
    }

    /// As the SDK's `testAsyncRefreshOnQueueConfinedRealm`: a realm confined to a queue
    /// has no actor, so the async forms of refresh and write stop the program.
    @MainActor
    func testAsyncRefreshAndAsyncWriteStopOnAQueueConfinedRealm() async throws {
        let config = try makeFileConfiguration([NTask.self])
        let queue = DispatchQueue(label: "queue-confined realm")
        nonisolated(unsafe) let realm = try queue.sync { try Realm(configuration: config, queue: queue) }
        await assertStopsAsync(messageContains: "asyncRefresh() can only be called on main thread or actor-isolated Realms") {
            _ = await realm.asyncRefresh()
        }
        await assertStopsAsync(messageContains: "asyncWrite() can only be called on main thread or actor-isolated Realms") {
            _ = try? await realm.asyncWrite { realm.add(NTask(value: ["id": 1])) }
        }
    }

    /// A realm of a plain thread, and a frozen realm, have no actor either.
    @MainActor
    func testAsyncRefreshAndAsyncWriteStopOnThreadConfinedAndFrozenRealms() async throws {
        let config = try makeFileConfiguration([NTask.self])
        nonisolated(unsafe) var opened: Realm?
        let done = DispatchSemaphore(value: 0)
        Thread {
            opened = try! Realm(configuration: config)
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        nonisolated(unsafe) let threadRealm = try XCTUnwrap(opened)
        await assertStopsAsync(messageContains: "asyncWrite() can only be called on main thread or actor-isolated Realms") {
            _ = try? await threadRealm.asyncWrite { }
        }
        await assertStopsAsync(messageContains: "asyncRefresh() can only be called on main thread or actor-isolated Realms") {
            _ = await threadRealm.asyncRefresh()
        }
        let frozen = try await Realm(configuration: config).freeze()
        await assertStopsAsync(messageContains: "asyncRefresh() can only be called on main thread or actor-isolated Realms") {
            _ = await frozen.asyncRefresh()
        }
    }

    /// The main thread's realm refreshes from the main actor: the supported case stays.
    @MainActor
    func testAsyncRefreshOnTheMainThreadsRealmMovesToTheLatestVersion() async throws {
        let config = try makeFileConfiguration([NTask.self])
        let realm = try await Realm(configuration: config)
        realm.autorefresh = false
        let tasks = realm.objects(NTask.self)
        XCTAssertEqual(tasks.count, 0)
        await commitOnNewThread(config) { other in other.add(NTask(value: ["id": 1])) }
        let refreshed = await realm.asyncRefresh()
        XCTAssertTrue(refreshed)
        XCTAssertEqual(tasks.count, 1)
        let again = await realm.asyncRefresh()
        XCTAssertFalse(again, "nothing new since")
    }

    @MainActor
    func testWriteAsyncOnTheMainThreadRunsLaterInOrder() async throws {
        let realm = try await Realm(configuration: makeConfig())
        let order = NCounts()
        realm.writeAsync({ realm.add(NTask(value: ["id": 1])) }, onComplete: { error in
            XCTAssertNil(error)
            order.append(1)
        })
        let second = realm.writeAsync({ realm.add(NTask(value: ["id": 2])) }, onComplete: { _ in order.append(2) })
        let third = realm.writeAsync({ realm.add(NTask(value: ["id": 3])) }, onComplete: { _ in order.append(3) })
        try realm.cancelAsyncWrite(third)
        XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
        XCTAssertEqual(order.values, [], "nothing ran yet")
        await pollUntilAsync("async writes") { order.values.count == 2 }
        XCTAssertEqual(order.values, [1, 2])
        XCTAssertEqual(realm.objects(NTask.self).map(\.id), [1, 2])
        XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
        XCTAssertGreaterThan(second, 0)
        XCTAssertThrowsError(try realm.cancelAsyncWrite(999))
    }

    @MainActor
    func testBeginAsyncWriteRunsInTurnAndCommitAsyncWriteReportsLater() async throws {
        let realm = try await Realm(configuration: makeConfig())
        let order = NCounts()
        realm.writeAsync({ realm.add(NTask(value: ["id": 1])) }, onComplete: { _ in order.append(1) })
        realm.beginAsyncWrite {
            XCTAssertTrue(realm.isInWriteTransaction)
            XCTAssertEqual(realm.objects(NTask.self).count, 1, "after the write queued before it")
            realm.add(NTask(value: ["id": 2]))
            realm.commitAsyncWrite { error in
                XCTAssertNil(error)
                order.append(2)
            }
            XCTAssertFalse(realm.isInWriteTransaction, "committed before commitAsyncWrite returns")
        }
        realm.writeAsync({ realm.add(NTask(value: ["id": 3])) }, onComplete: { _ in order.append(3) })
        XCTAssertEqual(order.values, [], "nothing ran yet")
        await pollUntilAsync("async writes") { order.values.count == 3 }
        XCTAssertEqual(Set(order.values), [1, 2, 3])
        XCTAssertEqual(realm.objects(NTask.self).map(\.id), [1, 2, 3], "written in the order queued")
    }

    @MainActor
    func testABeginAsyncWriteBlockMayCancelAndACommitFailureIsReported() async throws {
        let realm = try await Realm(configuration: makeConfig())
        let done = NCounts()
        realm.beginAsyncWrite {
            realm.add(NTask(value: ["id": 1]))
            realm.cancelWrite()
            done.append(1)
        }
        await pollUntilAsync("cancelled write") { done.values == [1] }
        XCTAssertEqual(realm.objects(NTask.self).count, 0)
        try realm.write { realm.add(NTask(value: ["id": 5])) }
        realm.beginAsyncWrite {
            // A second object with the same primary key: the commit fails and rolls back.
            realm.create(NTask.self, value: ["id": 6])
            realm.add(NTask(value: ["id": 5]))
            realm.commitAsyncWrite { error in
                XCTAssertEqual((error as? Realm.Error)?.code, .primaryKeyExists, "\(String(describing: error))")
                done.append(2)
            }
        }
        await pollUntilAsync("failed commit reported") { done.values == [1, 2] }
        XCTAssertEqual(realm.objects(NTask.self).map(\.id), [5], "nothing of the failed write is kept")
    }

    func testOnAThreadWithoutASchedulerBeginAsyncWriteRunsAtOnce() throws {
        let config = makeConfig()
        nonisolated(unsafe) var completed: [Bool] = []
        nonisolated(unsafe) var ids: [Int] = []
        let finished = DispatchSemaphore(value: 0)
        // A plain thread's realm has no scheduler: the write and its completion run in the call.
        let thread = Thread {
            let realm = try! Realm(configuration: config)
            realm.beginAsyncWrite {
                realm.add(NTask(value: ["id": 7]))
                realm.commitAsyncWrite { error in completed.append(error == nil) }
            }
            ids = realm.objects(NTask.self).map(\.id)
            finished.signal()
        }
        thread.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(completed, [true])
        XCTAssertEqual(ids, [7])
    }

    @MainActor
    func testFreezeThawAndThreadSafeReferenceAcrossActors() async throws {
        let config = makeConfig()
        let realm = try await Realm(configuration: config, actor: MainActor.shared)
        try await realm.asyncWrite { realm.add(NTask(value: ["id": 1, "title": "a"])) }
        nonisolated(unsafe) let frozen = realm.objects(NTask.self).freeze()
        let reference = ThreadSafeReference(to: realm.object(ofType: NTask.self, forPrimaryKey: 1)!)
        let title = await Task.detached { () -> String? in
            XCTAssertEqual(frozen.count, 1)
            let other = try! Realm(configuration: config)
            return other.resolve(reference)?.title
        }.value
        XCTAssertEqual(title, "a")
    }
}
