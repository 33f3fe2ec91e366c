import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Reconnecting when the server goes away in the ways a crash leaves it: connections
/// accepted and never answered, restarts, nudges with `reconnect()`.
final class ReconnectTests: SyncTestCase {
    /// A server that accepts the TCP connection and never answers the WebSocket upgrade
    /// (hung, or killed between accept and answer) must not hold the session: it drops
    /// the connection after `socketOpenTimeout` and tries again, and syncs once a real
    /// server is back. Before the fix only the 60 s handshake deadline ended the wait.
    @MainActor
    func testAConnectionThatNeverUpgradesIsDroppedAndRetried() async throws {
        let realm = try await openAllTasksAndTeams("a").1
        let session = realm.syncSession!
        try realm.write { realm.add(Task(value: ["taskName": "before"])) }
        try await session.wait(for: .upload)

        stopServer()
        try await waitUntil("the session to notice the stop") { session.connectionState != .connected }
        let silent = try SilentListener(port: port)
        defer { silent.close() }
        session.reconnect()
        try await waitUntil("a first connection to the silent listener") { silent.acceptedCount >= 1 }
        // The first connection never upgrades: a second attempt must follow well before
        // the 60 s handshake deadline.
        try await waitUntil("a second attempt after the unanswered upgrade", timeout: 40) { silent.acceptedCount >= 2 }
        XCTAssertNotEqual(session.connectionState, .connected)

        silent.close()
        try startServer()
        try realm.write { realm.add(Task(value: ["taskName": "after"])) }
        session.reconnect()
        try await waitUntil("the write made while the server hung to upload", timeout: 60) {
            session.connectionState == .connected && !session.hasUnuploadedChanges
        }
    }

    /// `reconnect()` called over and over (as an app retrying, or the chaos runs'
    /// nudges) while the access token is being refreshed still connects. Each call used
    /// to start a new fetch and drop the answer of the one in flight; the refreshed
    /// token was stored all the same, so the next fetch was quick and this passed then
    /// too. Now a fetch in flight is waited for (at most `tokenTimeout`).
    @MainActor
    func testRepeatedReconnectCallsDoNotAbandonTheTokenRefreshInFlight() async throws {
        let realm = try await openAllTasksAndTeams("n").1
        let session = realm.syncSession!
        let user = session.parentUser()!
        // An access token that expired long ago: the next connect must refresh it over HTTP.
        let payload = Data(#"{"exp":1}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        try user.appState.updateEntry(user.id) { $0.accessToken = "eyJhbGciOiJIUzI1NiJ9.\(payload).expired" }
        session.suspend()
        try await waitUntil("the session to disconnect") { session.connectionState == .disconnected }

        let nudging = LockedBox(true)
        Thread.detachNewThread {
            while nudging.value {
                session.reconnect()
                usleep(200)
            }
        }
        defer { nudging.value = false }
        session.resume()
        try await waitUntil("the session to connect while being nudged", timeout: 30) { session.connectionState == .connected }
        nudging.value = false
        try realm.write { realm.add(Task(value: ["taskName": "after the refresh"])) }
        try await waitUntil("the write to upload", timeout: 30) { !session.hasUnuploadedChanges }
        XCTAssertNotEqual(user.accessToken?.hasSuffix(".expired"), true)
    }

    /// `logLevel` `.detail` shows each connection's life through the app's logger.
    @MainActor
    func testTheDetailLogShowsTheConnection() async throws {
        let lines = LockedBox<[String]>([])
        app.syncManager.logLevel = .detail
        app.syncManager.logger = { level, message in lines.value.append("\(level) \(message)") }
        defer { app.syncManager.logger = nil; app.syncManager.logLevel = .info }
        let realm = try await openAllTasksAndTeams("l").1
        try await waitUntil("the bound line") { lines.value.contains { $0.hasPrefix("detail ") && $0.contains("bound: session") } }
        realm.syncSession!.simulateConnectionLoss()
        try await waitUntil("the lost line") { lines.value.contains { $0.contains("connection lost: the connection was dropped on purpose") } }
        XCTAssertEqual(SyncLogLevel(name: "DEBUG"), .debug)
        XCTAssertNil(SyncLogLevel(name: "verbose"))
    }
}
