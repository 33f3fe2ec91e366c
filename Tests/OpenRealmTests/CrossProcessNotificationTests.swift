import Foundation
import ORCore
@testable import OpenRealm
import XCTest

/// Commits of another process reach observers; the changeset log is kept for
/// registrations and trimmed past what every consumer needs.
final class CrossProcessNotificationTests: XCTestCase {
    static let childVariable = "OPENREALM_NOTIFY_CHILD_REALM"

    /// Runs in the child process only (the parent starts this test binary again with
    /// the realm's path in the environment): three commits of one task each.
    func testWriterChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else {
            throw XCTSkip("runs only as the child process of testCommitsOfAnotherProcessReachObservers")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [NTask.self]))
        for i in 1...3 {
            try realm.write { realm.add(NTask(value: ["id": 100 + i, "title": "from child"])) }
        }
    }

    func testCommitsOfAnotherProcessReachObservers() throws {
        let config = try makeFileConfiguration([NTask.self])
        let realm = try Realm(configuration: config)
        let log = NChangeLog<Results<NTask>>()
        let token = realm.objects(NTask.self).observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        child.arguments = ["OpenRealmTests.CrossProcessNotificationTests/testWriterChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = config.fileURL!.path
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        pollUntil("the child process", timeout: 60) { !child.isRunning }
        XCTAssertEqual(child.terminationStatus, 0, "the child's writes succeeded")

        pollUntil("the child's three objects") { log.updates.reduce(0) { $0 + $1.insertions.count } == 3 }
        XCTAssertEqual(realm.objects(NTask.self).map(\.id), [101, 102, 103])
        token.invalidate()
    }

    // MARK: Log holds and trimming

    private func firstLogVersion(_ realm: Realm) -> UInt64 {
        realm.refresh()
        return orc_log_first_version(realm.txn)
    }

    private func holders(_ realm: Realm) -> [String] {
        var data: UnsafeRawPointer?
        var size = 0
        guard orc_meta_get(realm.txn, FileNotifier.holdersKey, &data, &size) == ORC_OK, let data else { return [] }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Adds `count` tasks from `first` whose titles make a changeset of several MiB.
    private func bulkAdd(_ realm: Realm, from first: Int, count: Int, alsoTouch: NTask? = nil) throws {
        try realm.write {
            for i in first..<(first + count) {
                realm.add(NTask(value: ["id": i, "title": "a title long enough to make a large changeset, number \(i)"]))
            }
            alsoTouch?.priority += 1
        }
    }

    func testABulkWriteNothingObservesIsNotKeptInTheLog() throws {
        let realm = try Realm(configuration: try makeFileConfiguration([NTask.self]))
        try realm.write { realm.add(NTask(value: ["id": 0])) }
        XCTAssertNotEqual(firstLogVersion(realm), 0, "a small commit is kept")
        try bulkAdd(realm, from: 1, count: 60_000)
        XCTAssertEqual(firstLogVersion(realm), 0, "nobody holds the log: the bulk write emptied it")
        XCTAssertEqual(realm.objects(NTask.self).count, 60_001)
        try realm.write { realm.add(NTask(value: ["id": -1])) }
        XCTAssertEqual(firstLogVersion(realm), realm.snapshotVersion, "kept again from the next small commit")
    }

    func testABulkWriteUnderAnObserverIsKeptAndReportedExactly() throws {
        let realm = try Realm(configuration: try makeFileConfiguration([NTask.self]))
        try realm.write { realm.add(NTask(value: ["id": 0])) }
        let existing = try XCTUnwrap(realm.object(ofType: NTask.self, forPrimaryKey: 0))
        let log = NChangeLog<Results<NTask>>()
        let token = realm.objects(NTask.self).observe { log.record($0) }
        pollUntil("initial") { log.initials == 1 }
        try bulkAdd(realm, from: 1, count: 60_000, alsoTouch: existing)
        pollUntil("the bulk write's notification") { log.updates.count == 1 }
        let update = try XCTUnwrap(log.updates.first)
        XCTAssertEqual(update.insertions, Array(1...60_000))
        XCTAssertEqual(update.modifications, [0], "read from the kept changeset: a comparison of states reports no modification")
        XCTAssertEqual(update.deletions, [])
        XCTAssertNotEqual(firstLogVersion(realm), 0)
        token.invalidate()
    }

    func testTheLogIsTrimmedButKeptForRegistrations() throws {
        let config = makeInMemoryConfiguration([NTask.self])
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(NTask(value: ["id": 0])) }
        // Without registrations the log keeps only its most recent versions.
        for i in 1...100 { try realm.write { realm.add(NTask(value: ["id": i])) } }
        XCTAssertGreaterThan(firstLogVersion(realm), 1, "trimmed")
        XCTAssertLessThanOrEqual(firstLogVersion(realm) + FileNotifier.trimMargin, realm.snapshotVersion + UInt64(FileNotifier.trimEvery))

        // A registration on a thread that does not refresh holds the log at its version.
        let held = NBox<UInt64>(0)
        let observed = NBox<(Int, [Int])?>(nil)
        let registered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let observer = Thread {
            let own = try! Realm(configuration: config)
            let log = NChangeLog<Results<NTask>>()
            let results = own.objects(NTask.self).where { $0.priority > 0 }
            let token = results.observe { log.record($0) }
            own.refresh()
            held.value = own.snapshotVersion
            registered.signal()
            proceed.wait()
            own.refresh()
            observed.value = (log.updates.count, log.updates.first?.insertions ?? [])
            token.invalidate()
        }
        observer.start()
        registered.wait()
        pollUntil("the hold to be recorded") { holders(realm).contains(FileNotifier.consumerName) }
        for i in 1...150 { try realm.write { realm.add(NTask(value: ["id": 1000 + i, "priority": i % 2])) } }
        XCTAssertLessThanOrEqual(firstLogVersion(realm), held.value + 1, "nothing the registration needs was trimmed")
        proceed.signal()
        pollUntil("the observer thread") { observer.isFinished }
        XCTAssertEqual(observed.value?.0, 1, "one coalesced update")
        XCTAssertEqual(observed.value?.1.count, 75, "computed from the log: every odd-priority insertion")
    }

    func testHoldsOfDeadProcessesAreReleased() throws {
        let config = makeInMemoryConfiguration([NTask.self])
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(NTask(value: ["id": 0])) }
        // A process that died (no such pid) held the log at version 1.
        let dead = "openrealm.notify.\(Int32.max - 7).12345"
        try realm.write {
            let txn = realm.writeTxn!
            XCTAssertEqual(orc_log_hold(txn, dead, 1), ORC_OK)
            let list = Array(dead.utf8)
            _ = list.withUnsafeBytes { orc_meta_set(txn, FileNotifier.holdersKey, $0.baseAddress, $0.count) }
        }
        for i in 1...100 { try realm.write { realm.add(NTask(value: ["id": i])) } }
        XCTAssertFalse(holders(realm).contains(dead), "the dead process's hold was released")
        XCTAssertGreaterThan(firstLogVersion(realm), 2, "and the log trimmed past it")
        XCTAssertTrue(ProcessIdentity.isAlive(consumer: FileNotifier.consumerName))
        XCTAssertFalse(ProcessIdentity.isAlive(consumer: dead))
    }

    func testRegistrationsRecoverWhenTheirChangesWereTrimmed() throws {
        let config = makeInMemoryConfiguration([NTask.self])
        let realm = try Realm(configuration: config)
        try realm.write { for i in 0..<3 { realm.add(NTask(value: ["id": i])) } }
        let registered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let observed = NBox<([NChangeLog<Results<NTask>>.Update], [Int])?>(nil)
        let observer = Thread {
            let own = try! Realm(configuration: config)
            let log = NChangeLog<Results<NTask>>()
            let results = own.objects(NTask.self).sorted(byKeyPath: "id", ascending: false)
            let token = results.observe { log.record($0) }
            own.refresh()
            registered.signal()
            proceed.wait()
            own.refresh()
            observed.value = (log.updates, results.map(\.id))
            token.invalidate()
        }
        observer.start()
        registered.wait()
        // Something else (a misbehaving consumer) drops this process's hold and trims
        // the whole log: the observer's changes are gone from it.
        try realm.write {
            realm.delete(realm.object(ofType: NTask.self, forPrimaryKey: 1)!)
            realm.add(NTask(value: ["id": 5]))
        }
        try realm.write {
            let txn = realm.writeTxn!
            XCTAssertEqual(orc_log_release(txn, FileNotifier.consumerName), ORC_OK)
            XCTAssertEqual(orc_log_trim(txn, orc_txn_version(txn), nil), ORC_OK)
        }
        proceed.signal()
        pollUntil("the observer thread") { observer.isFinished }
        let (updates, ids) = try XCTUnwrap(observed.value)
        XCTAssertEqual(ids, [5, 2, 0])
        XCTAssertEqual(updates.count, 1)
        // Old [2, 1, 0] becomes [5, 2, 0]: found by comparing keys instead of the log.
        XCTAssertEqual(updates.first?.deletions, [1])
        XCTAssertEqual(updates.first?.insertions, [0])
    }
}
