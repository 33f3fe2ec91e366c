import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// History trimming: the history below the lowest version any client file still needs
/// is deleted; a file gone longer than the retention period does not hold it back and
/// must reset when it comes back.
final class HistoryTrimmingTests: ServerTestCase {
    override var appConfiguration: AppConfiguration? {
        var config = AppConfiguration(appId: "todo")
        config.historyTrimIntervalVersions = 1
        config.clientRetentionSeconds = 3600
        return config
    }

    var store: AppStore { get throws { try server.auth.apps.app("todo").store } }

    func bind(ident: WireIdent, token: String, serverVersion: UInt64) throws -> WireMessage {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token,
                                       fileIdentity: ident.fileIdentity, lastIntegratedServerVersion: serverVersion)))
        return try client.waitFor("the bind's answer") { m -> WireMessage? in
            switch m { case .ident, .error: return m; default: return nil }
        }
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

        // Another file that reported nothing holds the history back while it is recent.
        let cToken = try anonymousToken()
        let (c, cIdent) = try boundClient(token: cToken)
        try subscribeToAllTasks(c)                                                      // 4
        try upload(a, clientVersion: 3, serverVersion: 4, [Self.task(3, title: "c", status: "open")])  // 5
        XCTAssertEqual(try store.historyFloor(), 2)
        XCTAssertNotNil(try store.historyEntry(3))
        try c.send(.unbind(WireUnbind(session: 1)))

        // Once it is older than the retention period, it no longer does.
        let aFile: Set<UInt64> = [aIdent.fileIdentity.ident]
        let later = AppStore.nowMilliseconds + 7200 * 1000
        XCTAssertEqual(try store.trimHistory(retentionSeconds: 3600, bound: aFile, now: later), 4)
        XCTAssertNil(try store.historyEntry(3))
        XCTAssertNotNil(try store.historyEntry(5))

        // It comes back below the floor: reset. A file at or above it resumes.
        guard case .error(let reset) = try bind(ident: cIdent, token: cToken, serverVersion: 0) else { return XCTFail("c was not refused") }
        XCTAssertEqual(reset.code, .clientResetRequired)
        XCTAssertTrue(reset.message.contains("trimmed"), reset.message)
        guard case .ident = try bind(ident: aIdent, token: token, serverVersion: 5) else { return XCTFail("a was refused") }
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
        let config = try AppConfiguration.parse(Data(#"{"appId": "a", "limits": {"clientRetentionSeconds": 60, "historyTrimIntervalVersions": 5}}"#.utf8))
        XCTAssertEqual(config.clientRetentionSeconds, 60)
        XCTAssertEqual(config.historyTrimIntervalVersions, 5)
        XCTAssertEqual(AppConfiguration(appId: "a").clientRetentionSeconds, 30 * 24 * 3600)
        XCTAssertThrowsError(try AppConfiguration.parse(Data(#"{"appId": "a", "limits": {"clientRetentionSeconds": 0}}"#.utf8), source: "app.json")) { error in
            XCTAssertTrue("\(error)".contains("limits.clientRetentionSeconds"), "\(error)")
        }
    }
}
