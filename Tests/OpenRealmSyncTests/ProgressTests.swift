import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Progress notifications in bytes of changesets: a bootstrap large enough for several
/// batches, uploads, and tokens that stop notifications.
final class ProgressTests: SyncTestCase {
    /// The progress values a block received, in order.
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var _values: [SyncSession.Progress] = []
        var values: [SyncSession.Progress] { lock.withLock { _values } }
        func add(_ p: SyncSession.Progress) { lock.withLock { _values.append(p) } }
    }

    nonisolated(nonsending) func openSubscribed(_ user: User) async throws -> Realm {
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Task>(name: "all_tasks"))
        })
        config.objectTypes = [Task.self, Team.self]
        return try await Realm(configuration: config, downloadBeforeOpen: .always)
    }

    func assertNonDecreasing(_ values: [SyncSession.Progress], file: StaticString = #filePath, line: UInt = #line) {
        for (earlier, later) in zip(values, values.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.transferredBytes, later.transferredBytes, "transferred bytes went down", file: file, line: line)
        }
    }

    @MainActor
    func testABootstrapReportsIncreasingDownloadProgressEndingComplete() async throws {
        // About 2.5 MB of tasks: more than two bootstrap batches of 1 MiB.
        let a = try await openSubscribed(try await newUser("a"))
        let padding = String(repeating: "x", count: 1000)
        try a.write {
            for i in 0..<2500 { a.add(Task(value: ["taskName": "task \(i) \(padding)", "progressMinutes": i])) }
        }
        let sa = try XCTUnwrap(a.syncSession)
        try await within(300, "a's upload") { try await sa.wait(for: .upload) }

        // b subscribes after registering for download progress.
        let user = try await newUser("b")
        var config = user.flexibleSyncConfiguration()
        config.objectTypes = [Task.self, Team.self]
        let b = try await Realm(configuration: config, downloadBeforeOpen: .never)
        let sb = try XCTUnwrap(b.syncSession)
        let received = Received()
        let token = sb.addProgressNotification(for: .download, mode: .reportIndefinitely) { received.add($0) }
        defer { token?.invalidate() }
        let subscriptions = b.subscriptions
        try await subscriptions.update { subscriptions.append(QuerySubscription<Task>(name: "all")) }
        b.refresh()
        XCTAssertEqual(b.objects(Task.self).count, 2500)
        try await waitUntil("the complete notification", timeout: 60) {
            received.values.last.map { $0.isTransferComplete && $0.transferredBytes > 2_500_000 } ?? false
        }
        let values = received.values
        assertNonDecreasing(values)
        let partial = values.filter { $0.progressEstimate > 0 && $0.progressEstimate < 1 }
        XCTAssertGreaterThanOrEqual(partial.count, 2, "each batch but the last reports part of the bootstrap: \(values)")
        XCTAssertEqual(partial.map(\.progressEstimate), partial.map(\.progressEstimate).sorted(), "the estimate grows")
        // The bootstrap's total is known from its first batch: it does not move.
        XCTAssertEqual(Set(partial.map(\.transferrableBytes)).count, 1, "\(partial)")
        XCTAssertEqual(partial.first?.transferrableBytes, values.last?.transferredBytes)
        XCTAssertEqual(values.last?.fractionTransferred, 1)
    }

    @MainActor
    func testOutstandingUploadReportsProgressEndingCompleteAndStops() async throws {
        let a = try await openSubscribed(try await newUser("a"))
        let sa = try await suspendSession(of: a)
        try a.write {
            for i in 0..<200 { a.add(Task(value: ["taskName": "upload \(i)", "progressMinutes": i])) }
        }
        let received = Received()
        let token = sa.addProgressNotification(for: .upload, mode: .forCurrentlyOutstandingWork) { received.add($0) }
        defer { token?.invalidate() }
        try await waitUntil("the first notification") { !received.values.isEmpty }
        let first = try XCTUnwrap(received.values.first)
        // Transferred bytes count from the session's start (its earlier uploads); the
        // batch's bytes are what remains.
        XCTAssertGreaterThan(first.transferrableBytes - first.transferredBytes, 200 * 20, "the batch's bytes are outstanding")
        XCTAssertFalse(first.isTransferComplete)

        sa.resume()
        try await within(120, "a's upload") { try await sa.wait(for: .upload) }
        try await waitUntil("the complete notification") { received.values.last?.isTransferComplete == true }
        let done = received.values
        assertNonDecreasing(done)
        XCTAssertEqual(done.last?.transferrableBytes, first.transferrableBytes, "the total stays the outstanding work")
        XCTAssertEqual(done.last?.progressEstimate, 1)

        // Complete: the block was removed, later uploads do not call it.
        try a.write { a.add(Task(value: ["taskName": "later"])) }
        try await within(120, "a's second upload") { try await sa.wait(for: .upload) }
        try await within(60, "a's download") { try await sa.wait(for: .download) }
        XCTAssertEqual(received.values.count, done.count)
    }

    @MainActor
    func testIndefiniteUploadProgressFollowsEachUploadUntilInvalidated() async throws {
        let a = try await openSubscribed(try await newUser("a"))
        let sa = try XCTUnwrap(a.syncSession)
        let received = Received()
        let token = try XCTUnwrap(sa.addProgressNotification(for: .upload, mode: .reportIndefinitely) { received.add($0) })
        try await waitUntil("the first notification") { !received.values.isEmpty }
        for round in 0..<3 {
            try a.write { for i in 0..<50 { a.add(Task(value: ["taskName": "round \(round) task \(i)"])) } }
            try await within(120, "upload \(round)") { try await sa.wait(for: .upload) }
            try await waitUntil("round \(round) to be reported complete") {
                received.values.last.map { $0.isTransferComplete && $0.transferredBytes > 0 } ?? false
            }
        }
        let values = received.values
        assertNonDecreasing(values)
        XCTAssertGreaterThanOrEqual(Set(values.map(\.transferredBytes)).count, 3, "each upload adds bytes: \(values)")

        token.invalidate()
        try a.write { a.add(Task(value: ["taskName": "after invalidate"])) }
        try await within(120, "the upload after invalidate") { try await sa.wait(for: .upload) }
        try await within(60, "a's download") { try await sa.wait(for: .download) }
        XCTAssertEqual(received.values.count, values.count, "an invalidated token gets no more notifications")
    }

    /// With nothing outstanding, an outstanding-work block is called once, complete.
    @MainActor
    func testOutstandingWorkWithNothingOutstandingIsCompleteAtOnce() async throws {
        let a = try await openSubscribed(try await newUser("a"))
        let sa = try XCTUnwrap(a.syncSession)
        let received = Received()
        let token = sa.addProgressNotification(for: .download, mode: .forCurrentlyOutstandingWork) { received.add($0) }
        defer { token?.invalidate() }
        try await waitUntil("the notification") { !received.values.isEmpty }
        try await within(60, "a's download") { try await sa.wait(for: .download) }
        XCTAssertEqual(received.values.count, 1)
        XCTAssertEqual(received.values.first?.isTransferComplete, true)
    }
}
