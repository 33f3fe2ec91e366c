import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// History trimming: the history below the lowest version any client file still needs
/// is deleted; a file gone longer than the retention period does not hold it back and
/// must reset when it comes back.
final class HistoryTrimmingTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        var config = ServerAppConfiguration.development(appId: "todo")
        config.historyTrimIntervalVersions = 1
        config.clientRetentionSeconds = 3600
        return config
    }

    var store: History { get throws { History(storage: try server.auth.apps.app("todo").storage) } }

    /// The app's history as these tests read and trim it, through its storage (either store).
    struct History {
        let storage: any AppStorage
        func historyFloor() throws -> UInt64 { try storage.read { try $0.historyFloor() } }
        func historyEntry(_ version: UInt64) throws -> HistoryEntry? { try storage.read { try $0.historyEntry(version) } }
        func trimHistory(retentionSeconds: Int64, bound: Set<UInt64>, now: Int64) throws -> UInt64 {
            try storage.trimHistory(retentionSeconds: retentionSeconds, bound: bound, now: now)
        }
    }

    func bind(ident: WireIdent, token: String, serverVersion: UInt64) throws -> WireMessage {
        try rebind(ident: ident, token: token, serverVersion: serverVersion).answer
    }

    /// Binds `ident`'s file again on a new connection, as of `serverVersion`.
    func rebind(ident: WireIdent, token: String, serverVersion: UInt64) throws -> (client: TestSyncClient, answer: WireMessage) {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token,
                                       fileIdentity: ident.fileIdentity, lastIntegratedServerVersion: serverVersion)))
        let answer = try client.waitFor("the bind's answer") { m -> WireMessage? in
            switch m { case .ident, .error: return m; default: return nil }
        }
        return (client, answer)
    }

    func testHistoryIsTrimmedBelowWhatClientsNeedAndVanishedClientsReset() throws {
        let token = try anonymousToken()
        let (a, aIdent) = try boundClient(token: token)
        try subscribeToAllTasks(a)                                                      // version 1
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")]) // 2
        XCTAssertEqual(try store.historyFloor(), 0, "a has reported integrating nothing yet")
        try upload(a, clientVersion: 2, serverVersion: 2, [Self.task(2, title: "b", status: "open")])  // 3
        XCTAssertEqual(try store.historyFloor(), 2)
        XCTAssertNil(try store.historyEntry(1))
        XCTAssertNil(try store.historyEntry(2))
        XCTAssertNotNil(try store.historyEntry(3))

        // Another file that uploaded nothing holds the history back at the version it was
        // created at (its changesets are based on that or later) while it is recent.
        let cToken = try anonymousToken()
        let (c, cIdent) = try boundClient(token: cToken)                                // created at 3
        try subscribeToAllTasks(c)                                                      // 4
        try upload(a, clientVersion: 3, serverVersion: 4, [Self.task(3, title: "c", status: "open")])  // 5
        XCTAssertEqual(try store.historyFloor(), 3)
        XCTAssertNotNil(try store.historyEntry(4))
        try c.send(.unbind(WireUnbind(session: 1)))

        // Once it is older than the retention period, it no longer does.
        let aFile: Set<UInt64> = [aIdent.fileIdentity.ident]
        let later = StorageConventions.nowMilliseconds + 7200 * 1000
        XCTAssertEqual(try store.trimHistory(retentionSeconds: 3600, bound: aFile, now: later), 4)
        XCTAssertNil(try store.historyEntry(4))
        XCTAssertNotNil(try store.historyEntry(5))

        // It comes back below the floor: reset. A file at or above it resumes.
        guard case .error(let reset) = try bind(ident: cIdent, token: cToken, serverVersion: 0) else { return XCTFail("c was not refused") }
        XCTAssertEqual(reset.code, .clientResetRequired)
        XCTAssertTrue(reset.message.contains("trimmed"), reset.message)
        guard case .ident = try bind(ident: aIdent, token: token, serverVersion: 5) else { return XCTFail("a was refused") }
    }

    /// A client downloads past changes it has not uploaded yet (they are based on an
    /// older version than it reports at its next bind) while others push many versions
    /// and the history is trimmed: its upload must still be transformed, not refused.
    func testUnuploadedChangesBasedBelowWhatTheClientDownloadedKeepTheirHistory() throws {
        let (a, aIdent) = try boundClient()
        try subscribeToAllTasks(a)                                                      // 1
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")]) // 2
        let bToken = try anonymousToken()
        let (firstB, bIdent) = try boundClient(token: bToken)                           // created at 2
        var b = firstB
        try subscribeToAllTasks(b)                                                      // 3
        // b appends "b" to task 1's tags as of version 3; before it uploads, a appends ten
        // tags (versions 4...13), b downloads them and its connection drops.
        for i in 0..<10 {
            try upload(a, clientVersion: 2 + UInt64(i), serverVersion: 3 + UInt64(i),
                       [.listInsert(object: Self.path(1), property: "tags", index: UInt64(i), value: .string("a\(i)"))])
        }
        try b.send(.unbind(WireUnbind(session: 1)))
        let rebound = try rebind(ident: bIdent, token: bToken, serverVersion: 13)
        guard case .ident = rebound.answer else { return XCTFail("b was refused: \(rebound.answer)") }
        b = rebound.client
        try subscribeToAllTasks(b)                                                      // 14
        try upload(a, clientVersion: 12, serverVersion: 13, [Self.task(2, title: "u", status: "open")]) // 15
        XCTAssertLessThanOrEqual(try store.historyFloor(), 3, "b may still upload changes made at version 3")
        try upload(b, clientVersion: 1, serverVersion: 3,
                   [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("b"))])  // 16


        // b had also made "c" as of version 10 and "d" as of 11. Integrating them carries
        // "b" (integrated at 16, after their bases) forward from version 3, so the history
        // after 3 stays needed although b's later changesets are based higher.
        for i in 0..<3 {
            try upload(a, clientVersion: 13 + UInt64(i), serverVersion: 16 + UInt64(i), [Self.task(3 + Int64(i), title: "v", status: "open")]) // 17...19
        }
        try upload(b, clientVersion: 2, serverVersion: 10,
                   [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("c"))])  // 20
        try upload(a, clientVersion: 16, serverVersion: 20, [Self.task(6, title: "w", status: "open")])     // 21
        XCTAssertLessThanOrEqual(try store.historyFloor(), 3)
        try upload(b, clientVersion: 3, serverVersion: 11,
                   [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("d"))])  // 22

        // The server transformed them against a's appends: every tag is there once.
        let (c, _) = try boundClient()
        let tags = try subscribeToAllTasks(c).compactMap { instruction -> String? in
            guard case .listInsert(let object, "tags", _, .string(let tag)) = instruction, object == Self.path(1) else { return nil }
            return tag
        }
        XCTAssertEqual(tags.sorted(), (["b", "c", "d"] + (0..<10).map { "a\($0)" }).sorted())

        // A session bound longer than the retention period is recorded as seen by each
        // trim, so once it ends its file is waited for a whole period more.
        let start = StorageConventions.nowMilliseconds + 7200 * 1000
        let both: Set<UInt64> = [aIdent.fileIdentity.ident, bIdent.fileIdentity.ident]
        XCTAssertEqual(try store.trimHistory(retentionSeconds: 3600, bound: both, now: start), 3)
        XCTAssertEqual(try store.trimHistory(retentionSeconds: 3600, bound: [aIdent.fileIdentity.ident],
                                             now: start + 3599 * 1000), 3)
        try b.send(.unbind(WireUnbind(session: 1)))
        guard case .ident = try bind(ident: bIdent, token: bToken, serverVersion: 22) else { return XCTFail("b was refused") }
    }

    func testAnUploadMadeBelowTheFloorNeedsAReset() throws {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        try upload(a, clientVersion: 2, serverVersion: 2, [Self.task(2, title: "b", status: "open")])
        XCTAssertEqual(try store.historyFloor(), 2)
        // A list edit made as of version 1 cannot be transformed any more.
        try a.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 3, lastIntegratedServerVersion: 1, timestamp: WireHybridTimestamp(milliseconds: 5),
            instructions: [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("x"))])])))
        let error = try a.waitFor("the reset") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .clientResetRequired)
    }

    func testTheRetentionLimitsAreConfigurable() throws {
        let config = try ServerAppConfiguration.parse(Data(#"{"appId": "a", "limits": {"clientRetentionSeconds": 60, "historyTrimIntervalVersions": 5}}"#.utf8))
        XCTAssertEqual(config.clientRetentionSeconds, 60)
        XCTAssertEqual(config.historyTrimIntervalVersions, 5)
        XCTAssertEqual(ServerAppConfiguration.development(appId: "a").clientRetentionSeconds, 30 * 24 * 3600)
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "limits": {"clientRetentionSeconds": 0}}"#.utf8), source: "app.json")) { error in
            XCTAssertTrue("\(error)".contains("limits.clientRetentionSeconds"), "\(error)")
        }
    }
}
