import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Waits that must end: many rounds of two clients writing and waiting, with their
/// connections dropped at the moments a wake-up used to be lost (a mark sent and its
/// connection gone before the echo; an upload integrated and its acknowledgement gone),
/// under CPU starvation the test makes itself. Every await has a deadline that fails
/// the test instead of hanging it; nothing asserts how long anything took.
final class SessionStressTests: SyncTestCase {
    func count(_ realm: Realm, named name: String) -> Int {
        realm.refresh()
        return realm.objects(Task.self).where { $0.taskName == name }.count
    }

    /// Waits until `session` has stored a download wait (its mark is out when bound), or
    /// the wait already ended (`done`).
    nonisolated(nonsending) func waitForStoredMark(_ session: SyncSession, done: LockedBox<Bool>) async throws {
        try await waitUntil("the download wait to be stored", timeout: 60) { done.value || session.pendingWaitCounts.marks >= 1 }
    }

    @MainActor
    func testWaitsEndThroughLostConnectionsUnderLoad() async throws {
        let a = try await openAllTasksAndTeams("a").1
        let b = try await openAllTasksAndTeams("b").1
        let sa = try XCTUnwrap(a.syncSession)
        let sb = try XCTUnwrap(b.syncSession)
        let load = CPULoad(threads: 2)
        defer { load.stop() }
        for round in 0..<16 {
            let name = "round \(round)"
            try a.write { a.add(Task(value: ["taskName": name, "progressMinutes": round])) }
            switch round % 4 {
            case 0: sa.simulateConnectionLoss()                // the upload may or may not get out
            case 1: break
            case 2: sb.simulateConnectionLoss()                // b's wait is stored while unbound
            default: sa.suspend(); sa.resume()                 // a pause between write and wait
            }
            try await within(120, "a's upload wait in round \(round)") { try await sa.wait(for: .upload) }

            // b's mark goes out, then its connection drops before the echo can come back.
            let done = LockedBox(false)
            let download = _Concurrency.Task {
                try await sb.wait(for: .download)
                done.value = true
            }
            if round % 2 == 0 {
                // Under load the echo is usually still on its way: the drop loses it.
                try await waitForStoredMark(sb, done: done)
                sb.simulateConnectionLoss()
            }
            try await within(120, "b's download wait in round \(round)") { try await download.value }
            // The mark answers after everything the server had when it arrived: a's task.
            XCTAssertEqual(count(b, named: name), 1, "b lacks the task of round \(round) after its download wait")
        }
        load.stop()
        // Both directions at once, with both connections dropped mid-wait.
        try b.write { b.add(Task(value: ["taskName": "from b"])) }
        try a.write { a.add(Task(value: ["taskName": "from a"])) }
        async let up: Void = within(120, "b's last upload") { try await sb.wait(for: .upload) }
        async let down: Void = within(120, "a's last download") { try await sa.wait(for: .download) }
        sa.simulateConnectionLoss()
        sb.simulateConnectionLoss()
        _ = try await (up, down)
        try await within(120, "a's last upload") { try await sa.wait(for: .upload) }
        try await within(120, "b's last download") { try await sb.wait(for: .download) }
        XCTAssertEqual(count(b, named: "from a"), 1)
    }

    /// A wait on a suspended session lasts until the session is resumed; cancelling the
    /// waiting task ends it at once.
    @MainActor
    func testWaitsOnASuspendedSessionEndOnResumeOrCancellation() async throws {
        let a = try await openAllTasksAndTeams("a").1
        let session = try await suspendSession(of: a)
        try a.write { a.add(Task(value: ["taskName": "offline"])) }

        let cancelled = _Concurrency.Task { try await session.wait(for: .download) }
        try await waitUntil("the download wait to be stored", timeout: 60) { session.pendingWaitCounts.marks == 1 }
        cancelled.cancel()
        do {
            try await within(60, "the cancelled wait") { try await cancelled.value }
            XCTFail("a cancelled wait returned normally")
        } catch is CancellationError {}

        let upload = _Concurrency.Task { try await session.wait(for: .upload) }
        try await waitUntil("the upload wait to be stored", timeout: 60) { session.pendingWaitCounts.uploads == 1 }
        XCTAssertTrue(session.hasUnuploadedChanges, "nothing uploads while suspended")
        session.resume()
        try await within(120, "the upload wait after resume") { try await upload.value }
        XCTAssertFalse(session.hasUnuploadedChanges)
    }

    /// A subscription wait with a timeout ends with `.timedOut` when the server cannot
    /// answer (the session is suspended), instead of hanging.
    @MainActor
    func testASubscriptionWaitWithATimeoutEnds() async throws {
        let a = try await openAllTasksAndTeams("a").1
        let session = try await suspendSession(of: a)
        let configuration = a.configuration
        do {
            try await within(60, "subscribe with a timeout") { @MainActor in
                let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .never)
                _ = try await realm.objects(Team.self).subscribe(name: "teams", waitForSync: .always, timeout: 0.5)
            }
            XCTFail("the subscription wait did not time out")
        } catch let error as SyncError {
            XCTAssertEqual(error.code, .timedOut)
        }
        session.resume()
    }
}
