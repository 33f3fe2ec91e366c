import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Truncated, oversized and out-of-order messages: each gets its protocol error, only
/// the offending connection or session ends, and the server and other sessions go on.
final class ProtocolErrorTests: ServerTestCase {
    /// A bystander that keeps syncing through every failure of the others.
    var bystander: TestSyncClient!
    var bystanderVersion: UInt64 = 0

    func assertBystanderGoesOn(file: StaticString = #filePath, line: UInt = #line) throws {
        bystanderVersion += 1
        try upload(bystander, clientVersion: bystanderVersion, [Self.task(Int64(bystanderVersion), title: "b", status: "open")])
        try bystander.send(.ping(WirePing(timestamp: bystanderVersion)))
        let pong: UInt64 = try bystander.waitFor("pong") { if case .pong(let p) = $0 { return p.timestamp } else { return nil } }
        XCTAssertEqual(pong, bystanderVersion, file: file, line: line)
    }

    /// The connection's last message before the server closed it.
    func closingError(_ client: TestSyncClient) throws -> WireErrorMessage? {
        if case .error(let e)? = try client.waitForClose().last { return e }
        return nil
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        (bystander, _) = try boundClient()
        try subscribeToAllTasks(bystander)
        try upload(bystander, clientVersion: 100, Self.taskSchema)
        bystanderVersion = 100
    }

    func testTruncatedFrame() throws {
        let (client, _) = try boundClient()
        var frame = try WireEncoder().encode(.mark(WireMark(session: 1, requestId: 5)))
        frame[8] = 50  // the header announces 50 body bytes; 2 follow
        try client.sendFrame(frame)
        let error = try XCTUnwrap(try closingError(client))
        XCTAssertEqual(error.code, .badMessage)
        XCTAssertEqual(error.session, 0)
        XCTAssertTrue(error.message.contains("truncated"), error.message)
        try assertBystanderGoesOn()
    }

    func testOversizedFrame() throws {
        let (client, _) = try boundClient()
        // A header announcing a 17 MiB body is refused before the body is awaited.
        var header: [UInt8] = [0x4F, 0x52, 0x57, 0x50, 0x01, 0x00, 0x04, 0x00]
        withUnsafeBytes(of: UInt32(17 << 20).littleEndian) { header += $0 }
        try client.sendFrame(header + [0x01, 0x00])
        let error = try XCTUnwrap(try closingError(client))
        XCTAssertEqual(error.code, .limitsExceeded)
        XCTAssertTrue(error.message.contains("header.length"), error.message)
        try assertBystanderGoesOn()
    }

    func testServerBoundMessageTypesAndTextAreRefused() throws {
        let (client, ident) = try boundClient()
        try client.send(.ident(ident))
        XCTAssertEqual(try closingError(client)?.code, .badMessageOrder)

        let (text, _) = try boundClient()
        try text.sendFrame(Array("hello".utf8), opcode: 0x1)
        XCTAssertEqual(try closingError(text)?.code, .badMessage)
        try assertBystanderGoesOn()
    }

    func testMessagesBeforeBindOrAfterUnbindAreUnknownSessions() throws {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.upload(WireUpload(session: 1, changesets: [])))
        XCTAssertEqual(try closingError(client)?.code, .unknownSession)

        let (unbound, _) = try boundClient()
        try unbound.send(.unbind(WireUnbind(session: 1)))
        try unbound.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [])))
        XCTAssertEqual(try closingError(unbound)?.code, .unknownSession)
        try assertBystanderGoesOn()
    }

    func testVersionsOutOfOrderEndOnlyTheirSession() throws {
        let (client, _) = try boundClient()
        try subscribeToAllTasks(client, version: 2)
        // A query version that does not increase.
        try client.send(.query(WireQuery(session: 1, queryVersion: 2, queries: [])))
        let stale = try client.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(stale.code, .badProgress)
        XCTAssertTrue(stale.isFatal)

        // Client versions that do not increase, in a second session of the same connection.
        try client.send(.bind(WireBind(session: 2, appId: "todo", accessToken: try anonymousToken())))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        let stamp = WireHybridTimestamp(milliseconds: 1)
        try client.send(.upload(WireUpload(session: 2, changesets: [
            WireUploadChangeset(clientVersion: 5, lastIntegratedServerVersion: 0, timestamp: stamp, instructions: []),
            WireUploadChangeset(clientVersion: 4, lastIntegratedServerVersion: 0, timestamp: stamp, instructions: []),
        ])))
        let backwards = try client.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(backwards.code, .badProgress)
        XCTAssertEqual(backwards.session, 2)

        // A server version the server never produced.
        try client.send(.bind(WireBind(session: 3, appId: "todo", accessToken: try anonymousToken())))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        try client.send(.upload(WireUpload(session: 3, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 1_000_000, timestamp: stamp, instructions: []),
        ])))
        let future = try client.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(future.code, .badProgress)
        XCTAssertEqual(future.session, 3)

        // The connection itself still works.
        try client.send(.ping(WirePing(timestamp: 3)))
        _ = try client.waitFor("pong") { if case .pong = $0 { return true } else { return nil } }
        try assertBystanderGoesOn()
    }
}
