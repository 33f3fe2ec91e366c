import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Heartbeats: the history trim of one server waits for files bound to another server
/// over the same store, however long they stay bound, because each server records its
/// bound files as seen within every retention period (``SyncApp/recordBoundFilesSeen(now:)``).
final class HeartbeatTests: TwoServersTestCase {
    /// A short retention period, and a trim after every version.
    override var appConfiguration: ServerAppConfiguration? {
        var config = ServerAppConfiguration.development(appId: "todo")
        config.clientRetentionSeconds = 1
        config.historyTrimIntervalVersions = 1
        return config
    }

    func testTheIntervalIsAQuarterOfTheRetentionPeriodAtMostAMinute() {
        XCTAssertEqual(SyncApp.heartbeatInterval(retentionSeconds: 1), .milliseconds(250))
        XCTAssertEqual(SyncApp.heartbeatInterval(retentionSeconds: 120), .seconds(30))
        XCTAssertEqual(SyncApp.heartbeatInterval(retentionSeconds: 30 * 24 * 3600), .seconds(60))
    }

    func testAFileBoundToOneServerLongerThanTheRetentionPeriodKeepsItsHistoryFromTheOthersTrim() throws {
        let login = try TestHTTP(port: ports[0]).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        let token = try XCTUnwrap(login.body["access_token"] as? String)
        let storage = try servers[1].server.auth.apps.app("todo").storage

        // A file on server A, whose later uploads may be based at version 0 (it uploads
        // made there, and has downloaded nothing since).
        let (onA, quiet) = try subscribedClientAndFile(port: ports[0], token: token, "TRUEPREDICATE")
        let first = try upload(onA, clientVersion: 1, ServerTestCase.taskSchema + [ServerTestCase.task(1, title: "a", status: "open")])
        let uploadedAt = StorageConventions.nowMilliseconds

        // It stays bound, idle, past the retention period: A's heartbeats keep it seen.
        let deadline = Date().addingTimeInterval(15)
        while try lastSeen(quiet, in: storage) < uploadedAt + 1_500 {
            XCTAssertLessThan(Date(), deadline, "server A never recorded its bound file as seen after the retention period")
            guard Date() < deadline else { return }
            Thread.sleep(forTimeInterval: 0.05)
        }

        // Server B's clients go on; B trims after each version, waiting for A's file.
        let onB = try subscribedClient(port: ports[1], token: token, "TRUEPREDICATE")
        var latest = first
        for clientVersion in UInt64(1)...3 {
            latest = try upload(onB, clientVersion: clientVersion, base: latest,
                                [ServerTestCase.task(Int64(10 + clientVersion), title: "b", status: "open")])
        }
        XCTAssertEqual(try storage.read { try $0.historyFloor() }, 0, "B trimmed history A's bound file may still upload against")

        // The quiet file's change made at version 0 still integrates, and reaches B's client.
        let late = try upload(onA, clientVersion: 2, base: 0,
                              [.set(object: ServerTestCase.path(1), property: "status", value: .string("done"))])
        XCTAssertGreaterThan(late, latest)
        var seen: WireDownloadChangeset
        repeat { seen = try nextChangeset(onB) } while seen.serverVersion < late
        XCTAssertEqual(seen.serverVersion, late)
    }

    /// When `file` was last seen, as the history trim reads it.
    private func lastSeen(_ file: UInt64, in storage: any AppStorage) throws -> Int64 {
        let candidates = try storage.withAppWriteLock { try $0.trimCandidates() }
        return try XCTUnwrap(candidates.first { $0.ident == file }).lastSeenAt
    }
}
