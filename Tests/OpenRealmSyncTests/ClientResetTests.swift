import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Client resets against the real server. Each test makes the same history: client a
/// syncs two tasks, goes offline, creates a task and changes another; meanwhile b adds
/// a task, changes one and deletes the other; then the server trims its whole history,
/// so that a's next bind needs a reset.
final class ClientResetTests: SyncTestCase {
    /// What the reset callbacks saw: task names before, and after.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var _before: [String]?
        private var _after: [String]?
        private var _errors: [SyncError] = []
        var before: [String]? { lock.withLock { _before } }
        var after: [String]? { lock.withLock { _after } }
        var errors: [SyncError] { lock.withLock { _errors } }
        func sawBefore(_ realm: Realm) { let names = Self.names(realm); lock.withLock { _before = names } }
        func sawAfter(_ before: Realm, _ after: Realm) {
            let names = (Self.names(before), Self.names(after))
            lock.withLock { _before = _before ?? names.0; _after = names.1 }
        }
        func sawError(_ error: Error) { if let e = error as? SyncError { lock.withLock { _errors.append(e) } } }
        static func names(_ realm: Realm) -> [String] { realm.objects(Task.self).map(\.taskName).sorted() }
    }

    nonisolated(nonsending) func open(_ user: User, _ mode: ClientResetMode) async throws -> Realm {
        var config = user.flexibleSyncConfiguration(clientResetMode: mode, initialSubscriptions: { subs in
            subs.append(QuerySubscription<Task>(name: "all_tasks"))
        })
        config.objectTypes = [Task.self, Team.self]
        return try await Realm(configuration: config, downloadBeforeOpen: .always)
    }

    func task(_ realm: Realm, _ name: String) -> Task? {
        realm.refresh()
        return realm.objects(Task.self).where { $0.taskName == name }.first
    }

    /// Builds the history above; returns a's and b's realms, a still suspended.
    @MainActor
    func divergeAndTrim(_ mode: ClientResetMode) async throws -> (a: Realm, b: Realm) {
        let a = try await open(try await newUser("a"), mode)
        try a.write {
            a.add(Task(value: ["taskName": "shared", "progressMinutes": 1]))
            a.add(Task(value: ["taskName": "doomed"]))
        }
        let sa = try XCTUnwrap(a.syncSession)
        try await within(120, "a's first upload") { try await sa.wait(for: .upload) }
        sa.suspend()
        try await waitUntil("a to disconnect") { sa.connectionState == .disconnected }
        try a.write {
            a.add(Task(value: ["taskName": "offline"]))
            task(a, "shared")!.progressMinutes = 42
        }

        let b = try await open(try await newUser("b"), .recoverUnsyncedChanges())
        try b.write {
            b.add(Task(value: ["taskName": "server-side"]))
            task(b, "shared")!.assignee = "b"
            b.delete(task(b, "doomed")!)
        }
        let sb = try XCTUnwrap(b.syncSession)
        try await within(120, "b's upload") { try await sb.wait(for: .upload) }
        XCTAssertGreaterThan(try trimWholeHistory(server, appId: appId), 0)
        return (a, b)
    }

    @MainActor
    func testRecoverUnsyncedChangesUploadsThemOnTopOfTheServersState() async throws {
        let seen = Seen()
        let (a, b) = try await divergeAndTrim(.recoverUnsyncedChanges(beforeReset: { seen.sawBefore($0) },
                                                                      afterReset: { seen.sawAfter($0, $1) }))
        a.syncSession!.resume()
        // afterReset runs once the reset and the recovery are committed.
        try await waitUntil("the reset to end", timeout: 120) { seen.after != nil }
        XCTAssertNotNil(task(a, "server-side"))
        XCTAssertNil(task(a, "doomed"), "the object the server deleted is gone")
        XCTAssertNotNil(task(a, "offline"), "the task created offline was recovered")
        XCTAssertEqual(task(a, "shared")?.progressMinutes, 42, "the offline change wins")
        XCTAssertEqual(task(a, "shared")?.assignee, "b", "the server's change to another property stays")

        XCTAssertEqual(seen.before, ["doomed", "offline", "shared"], "beforeReset sees the file before the reset")
        XCTAssertEqual(seen.after, ["offline", "server-side", "shared"], "afterReset sees the recovered state")

        let sa = try XCTUnwrap(a.syncSession)
        try await within(120, "a's recovered upload") { try await sa.wait(for: .upload) }
        XCTAssertFalse(sa.hasUnuploadedChanges)
        XCTAssertEqual(sa.state, .active)
        let sb = try XCTUnwrap(b.syncSession)
        try await within(120, "b's download") { try await sb.wait(for: .download) }
        XCTAssertNotNil(task(b, "offline"), "the recovered task reached the server and b")
        XCTAssertEqual(task(b, "shared")?.progressMinutes, 42)

        // A third client starting from scratch gets the same state.
        let c = try await open(try await newUser("c"), .recoverUnsyncedChanges())
        XCTAssertEqual(Seen.names(c), ["offline", "server-side", "shared"])

        // And a keeps syncing with its new identity.
        try a.write { a.add(Task(value: ["taskName": "after the reset"])) }
        try await within(120, "a's upload after the reset") { try await sa.wait(for: .upload) }
        try await within(120, "b's last download") { try await sb.wait(for: .download) }
        XCTAssertNotNil(task(b, "after the reset"))
    }

    @MainActor
    func testDiscardUnsyncedChangesLosesThem() async throws {
        let seen = Seen()
        let (a, b) = try await divergeAndTrim(.discardUnsyncedChanges(beforeReset: { seen.sawBefore($0) },
                                                                      afterReset: { seen.sawAfter($0, $1) }))
        // Observers see the reset as a commit.
        let changes = LockedBox<(started: Bool, insertions: Int, deletions: Int)>((false, 0, 0))
        let token = a.objects(Task.self).observe(on: DispatchQueue(label: "reset-observer")) { change in
            let current = changes.value
            switch change {
            case .initial: changes.value = (true, current.insertions, current.deletions)
            case .update(_, let deletions, let insertions, _):
                changes.value = (true, current.insertions + insertions.count, current.deletions + deletions.count)
            case .error: break
            }
        }
        defer { token.invalidate() }
        try await waitUntil("the observer to start", timeout: 60) { changes.value.started }
        a.syncSession!.resume()
        try await waitUntil("the reset to end", timeout: 120) { seen.after != nil }
        XCTAssertNotNil(task(a, "server-side"))
        XCTAssertNil(task(a, "offline"), "the task created offline was discarded")
        XCTAssertNil(task(a, "doomed"))
        XCTAssertEqual(task(a, "shared")?.progressMinutes, 1, "the offline change was discarded")
        XCTAssertEqual(task(a, "shared")?.assignee, "b")
        XCTAssertEqual(seen.before, ["doomed", "offline", "shared"])
        XCTAssertEqual(seen.after, ["server-side", "shared"])
        try await waitUntil("the observer to see the reset", timeout: 60) {
            changes.value.insertions >= 1 && changes.value.deletions >= 2
        }

        let sa = try XCTUnwrap(a.syncSession)
        try await within(120, "a's upload wait") { try await sa.wait(for: .upload) }
        XCTAssertFalse(sa.hasUnuploadedChanges, "nothing of the old file is left to upload")
        let sb = try XCTUnwrap(b.syncSession)
        try await within(120, "b's download") { try await sb.wait(for: .download) }
        XCTAssertNil(task(b, "offline"))
        XCTAssertEqual(task(b, "shared")?.progressMinutes, 1)
    }

    @MainActor
    func testRecoverOrDiscardRecovers() async throws {
        let seen = Seen()
        let (a, _) = try await divergeAndTrim(.recoverOrDiscardUnsyncedChanges(afterReset: { seen.sawAfter($0, $1) }))
        a.syncSession!.resume()
        try await waitUntil("the reset to end", timeout: 120) { seen.after != nil }
        XCTAssertNotNil(task(a, "offline"))
        let sa = try XCTUnwrap(a.syncSession)
        try await within(120, "a's recovered upload") { try await sa.wait(for: .upload) }
        let c = try await open(try await newUser("c"), .recoverUnsyncedChanges())
        XCTAssertEqual(Seen.names(c), ["offline", "server-side", "shared"])
    }

    @MainActor
    func testManualModeReportsTheErrorAndLeavesTheFile() async throws {
        let seen = Seen()
        let (a, _) = try await divergeAndTrim(.manual(errorHandler: { error, _ in seen.sawError(error) }))
        let sa = try XCTUnwrap(a.syncSession)
        sa.resume()
        try await waitUntil("the error to be reported", timeout: 120) { !seen.errors.isEmpty }
        XCTAssertEqual(seen.errors.first?.code, .clientResetError)
        XCTAssertEqual(seen.errors.first?.serverCode, .clientResetRequired)
        XCTAssertEqual(sa.state, .inactive)
        XCTAssertEqual(Seen.names(a), ["doomed", "offline", "shared"], "the file was left as it was")
        XCTAssertEqual(task(a, "shared")?.progressMinutes, 42)
        // Waits end with the error that stopped the session instead of hanging.
        do {
            try await within(60, "a wait on the stopped session") { try await sa.wait(for: .download) }
            XCTFail("a wait on a stopped session returned normally")
        } catch let error as SyncError {
            XCTAssertEqual(error.code, .clientResetError)
        }
    }

    /// The SDK's manual recovery: the error's token moves the file aside at once, and the
    /// next open downloads the server's state into a fresh file.
    @MainActor
    func testManualModeTokenMovesTheFileAsideAndTheNextOpenStartsFresh() async throws {
        let seen = Seen()
        let (a, _) = try await divergeAndTrim(.manual(errorHandler: { error, _ in seen.sawError(error) }))
        let configuration = a.configuration
        let path = try XCTUnwrap(configuration.fileURL?.path)
        a.syncSession!.resume()
        try await waitUntil("the error to be reported", timeout: 120) { !seen.errors.isEmpty }
        let error = try XCTUnwrap(seen.errors.first)
        let (backupPath, token) = try XCTUnwrap(error.clientResetInfo())
        XCTAssertNotNil(error.deleteRealmUserInfo())
        XCTAssertFalse(FileManager.default.fileExists(atPath: backupPath), "nothing is moved before the token is used")

        SyncSession.immediatelyHandleError(token, syncManager: app.syncManager)
        XCTAssertTrue(FileManager.default.fileExists(atPath: backupPath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        SyncSession.immediatelyHandleError(token, syncManager: app.syncManager)  // a second use does nothing
        XCTAssertTrue(FileManager.default.fileExists(atPath: backupPath))

        let fresh = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
        XCTAssertEqual(Seen.names(fresh), ["server-side", "shared"], "the server's state, without the unsynced changes")
        XCTAssertEqual(task(fresh, "shared")?.progressMinutes, 1)
        let session = try XCTUnwrap(fresh.syncSession)
        XCTAssertEqual(session.state, .active)
        try fresh.write { fresh.add(Task(value: ["taskName": "after the reset"])) }
        try await within(120, "the fresh file's upload") { try await session.wait(for: .upload) }
        let c = try await open(try await newUser("c"), .recoverUnsyncedChanges())
        XCTAssertEqual(Seen.names(c), ["after the reset", "server-side", "shared"])
    }

    /// Other errors carry no client reset information.
    func testOnlyAClientResetErrorCarriesResetInfo() {
        XCTAssertNil(SyncError(.connectionFailed, "gone").clientResetInfo())
        XCTAssertNil(SyncError(.clientResetError, "made by hand").clientResetInfo())
    }

    /// Without a handler in the mode, the app's error handler gets the error.
    @MainActor
    func testManualModeFallsBackToTheAppsErrorHandler() async throws {
        let seen = Seen()
        app.syncManager.errorHandler = { error, _ in seen.sawError(error) }
        defer { app.syncManager.errorHandler = nil }
        let (a, _) = try await divergeAndTrim(.manual())
        a.syncSession!.resume()
        try await waitUntil("the error to be reported", timeout: 120) { seen.errors.contains { $0.code == .clientResetError } }
    }
}
