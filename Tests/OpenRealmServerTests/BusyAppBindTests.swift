import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The bind timeout (1 s here) against an app busy for longer (its lock held, as by a long
/// integration): a flexible bind reads a committed snapshot and does not wait for the
/// app, and a bind that does wait (a partition bind, whose bootstrap is a write) is not
/// taken for an idle connection.
final class BusyAppBindTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncBindTimeout = 1
    }

    /// A flexible bind is answered while the app is busy; its query is answered once the
    /// app is free.
    func testAFlexibleBindIsAnsweredWhileTheAppIsBusy() throws {
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        try upload(setup, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let release = try holdAppLock()
        defer { release() }
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: try anonymousToken())))
        let ident = try client.waitFor("ident while the app is busy", timeout: 10) { message -> WireIdent? in
            if case .error(let e) = message { XCTFail("the bind was refused: \(e.message)") }
            if case .ident(let i) = message { return i } else { return nil }
        }
        XCTAssertEqual(ident.serverVersion, 2, "the ident names the committed version")
        release()
        let bootstrap = try subscribeToAllTasks(client)
        XCTAssertTrue(bootstrap.contains { if case .createObject(_, .int(1), _) = $0 { return true } else { return false } })
    }

    /// A bound connection whose query waits for a busy app past the bind timeout is
    /// not closed, and the query is answered once the app is free.
    func testAConnectionWaitingForABusyAppIsNotTimedOut() throws {
        let token = try anonymousToken(appId: "parts")
        let release = try holdAppLock("parts")
        defer { release() }
        let client = try TestSyncClient(port: port, appId: "parts")
        try client.send(.bind(WireBind(session: 1, appId: "parts", accessToken: token)))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        try client.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [])))
        // Nothing (no `connectionClosed`, no close) comes while the app is busy for more
        // than twice the bind timeout: reading throws at its deadline.
        XCTAssertThrowsError(try client.next(timeout: 2.5), "the server answered while its app was busy") { _ in }
        XCTAssertFalse(client.isClosed, "closed with code \(String(describing: client.closeCode))")
        release()
        _ = try client.waitFor("the bootstrap", timeout: 10) { message -> Bool? in
            if case .error(let e) = message { XCTFail("refused: \(e.message)") }
            if case .download(let d) = message, d.bootstrap == .lastBatch { return true } else { return nil }
        }
    }
}
