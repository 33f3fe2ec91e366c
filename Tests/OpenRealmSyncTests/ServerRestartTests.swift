import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// The server stops mid-session and comes back on the same port and data: sessions
/// reconnect by themselves and what was written meanwhile converges.
final class ServerRestartTests: SyncTestCase {
    @MainActor
    func testClientsReconnectAfterAServerRestart() async throws {
        let a = try await openAllTasksAndTeams("a").1
        let b = try await openAllTasksAndTeams("b").1
        try a.write { a.add(Task(value: ["taskName": "Before the restart"])) }
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive the first task") { b.refresh(); return b.objects(Task.self).count == 1 }

        stopServer()
        try await waitUntil("both sessions to notice") {
            a.syncSession!.connectionState != .connected && b.syncSession!.connectionState != .connected
        }
        try a.write { a.add(Task(value: ["taskName": "Written by a while the server was down"])) }
        try b.write { b.add(Task(value: ["taskName": "Written by b while the server was down"])) }
        XCTAssertTrue(a.syncSession!.hasUnuploadedChanges)

        try startServer()
        // Skip the backoff the failed attempts built up; the sessions would get there alone.
        a.syncSession!.reconnect()
        b.syncSession!.reconnect()
        try await waitUntil("both realms to converge", timeout: 70) {
            a.refresh()
            b.refresh()
            return a.objects(Task.self).count == 3 && b.objects(Task.self).count == 3
        }
        XCTAssertEqual(Set(a.objects(Task.self).map(\.taskName)), Set(b.objects(Task.self).map(\.taskName)))
        XCTAssertEqual(a.syncSession!.connectionState, .connected)
    }
}
