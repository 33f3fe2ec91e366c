import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// A connection keeps being read while one of its frames waits for a busy app (its lock
/// held, as by a long integration): WebSocket pongs are seen (pings every second here),
/// protocol pings are answered, and other clients bind.
final class ConnectionResponsivenessTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncBindTimeout = 1
        configuration.syncPingInterval = 1
    }

    func testPingsAreAnsweredWhileAFrameWaitsForTheApp() throws {
        let (client, _) = try boundClient()
        let release = try holdAppLock()
        defer { release() }
        // The query waits for the app's lock.
        try client.send(.query(WireQuery(session: 1, queryVersion: 1,
                                         queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
        try client.send(.ping(WirePing(timestamp: 42)))
        let pong = try client.waitFor("the pong while the query waits", timeout: 10) { message -> WirePong? in
            if case .pong(let p) = message { return p } else { return nil }
        }
        XCTAssertEqual(pong.timestamp, 42)
        // The server pings every second and closes a connection that has not answered by
        // the next ping; the client answers each (inside `next`). Nothing else comes
        // while the app is busy: reading throws at its deadline, the connection open.
        XCTAssertThrowsError(try client.next(timeout: 3.5), "the server answered while its app was busy") { _ in }
        XCTAssertFalse(client.isClosed, "closed with code \(String(describing: client.closeCode))")
        release()
        _ = try client.waitFor("the bootstrap", timeout: 10) { message -> Bool? in
            if case .error(let e) = message { XCTFail("refused: \(e.message)") }
            if case .download(let d) = message, d.bootstrap == .lastBatch { return true } else { return nil }
        }
    }

    /// Another client's bind is answered before an upload waiting for the app is
    /// acknowledged.
    func testABindIsAnsweredBeforeAWaitingUploadIsAcknowledged() throws {
        let (writer, _) = try boundClient()
        try subscribeToAllTasks(writer)                                                                 // 1
        try upload(writer, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let release = try holdAppLock()
        defer { release() }
        let changesets = (2...200).map { v in
            WireUploadChangeset(clientVersion: UInt64(v), lastIntegratedServerVersion: 2,
                                timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + UInt64(v)),
                                instructions: [.listInsert(object: Self.path(1), property: "tags", index: UInt64(v - 2), value: .string("t\(v)"))])
        }
        try writer.send(.upload(WireUpload(session: 1, changesets: changesets)))
        let app = try server.auth.apps.app("todo")
        try waitUntil("the upload is queued") { app.uploads.count == 1 }
        let (reader, ident) = try boundClient()
        XCTAssertEqual(ident.serverVersion, 2, "bound at the committed version, before the upload")
        release()
        // The reader answers the server's pings (every second here) only while it reads:
        // it reads between the writer's waits, so that a slower store's integration of
        // the 199 changesets does not make it look dead.
        let deadline = Date().addingTimeInterval(30)
        var acknowledged = false
        while !acknowledged {
            XCTAssertLessThan(Date(), deadline, "the upload was not acknowledged within 30 s")
            guard Date() < deadline else { break }
            acknowledged = (try? writer.waitFor("the acknowledgement", timeout: 0.25) { message -> Bool? in
                if case .download(let d) = message, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion == 200 { return true }
                if case .error(let e) = message { XCTFail("refused: \(e.message)") }
                return nil
            }) ?? false
            _ = try? reader.next(timeout: 0.05)
        }
        let tags = try subscribeToAllTasks(reader).filter { if case .listInsert = $0 { return true } else { return false } }
        XCTAssertEqual(tags.count, 199)
    }
}
