import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Idle, half-open and oversized connections: the server closes them on its own, and
/// goes on serving others. Timeouts are short here (1 s) so that the tests wait little;
/// every wait has a deadline.
final class ConnectionLimitTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.httpIdleTimeout = 1
        configuration.syncBindTimeout = 1
        configuration.syncPingInterval = 1
        configuration.syncCloseTimeout = 1
    }

    func testIdleAndUnfinishedHTTPConnectionsAreClosed() throws {
        let silent = try TestSocket(port: port)
        // readToEnd returns only when the server closes; it throws at the deadline.
        XCTAssertEqual(try silent.readToEnd(deadline: Date().addingTimeInterval(10)), [])
        let slow = try TestSocket(port: port)
        try slow.write(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))  // the head never ends
        _ = try slow.readToEnd(deadline: Date().addingTimeInterval(10))
        XCTAssertEqual(try http.request("GET", "/health").status, 200)
    }

    func testASyncConnectionThatNeverBindsIsClosed() throws {
        let client = try TestSyncClient(port: port, appId: "todo")
        let messages = try client.waitForClose(timeout: 10)
        guard case .error(let error)? = messages.last else { return XCTFail("no error before the close: \(messages)") }
        XCTAssertEqual(error.code, .connectionClosed)
        XCTAssertTrue(error.message.contains("no bind within"), error.message)
        // A client that binds in time stays.
        let (bound, _) = try boundClient()
        try bound.send(.ping(WirePing(timestamp: 7)))
        let pong: UInt64 = try bound.waitFor("pong", timeout: 5) { if case .pong(let p) = $0 { return p.timestamp } else { return nil } }
        XCTAssertEqual(pong, 7)
    }

    func testAHalfOpenSyncConnectionIsClosed() throws {
        let (stalled, _) = try boundClient()
        // The peer reads but never answers the server's WebSocket pings.
        let pings = try stalled.readIgnoringPingsUntilEnd(timeout: 15)
        XCTAssertGreaterThanOrEqual(pings, 1)
        XCTAssertEqual(stalled.closeCode, 1001, "the server closes with 'going away' (ping timeout)")
        // A peer that answers (TestSyncClient.next answers pings) is kept past several intervals.
        let (live, _) = try boundClient()
        let deadline = Date().addingTimeInterval(3.5)
        while Date() < deadline {
            try live.send(.ping(WirePing(timestamp: 1)))
            _ = try live.waitFor("pong", timeout: 5) { if case .pong = $0 { return true } else { return nil } }
        }
        XCTAssertFalse(live.isClosed)
    }

    func testAnOversizedWebSocketFrameIsRefusedFromItsHeader() throws {
        let (client, _) = try boundClient()
        // A masked binary frame announcing 2^40 bytes, followed by a few: the server must
        // refuse it from the header rather than wait for (or allocate) the payload.
        var header: [UInt8] = [0x82, 0x80 | 127]
        for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8(truncatingIfNeeded: (1 << 40) >> shift)) }
        try client.sendRaw(header + [1, 2, 3, 4] + [UInt8](repeating: 0, count: 64))
        _ = try client.readIgnoringPingsUntilEnd(timeout: 10)
        XCTAssertEqual(client.closeCode, 1009, "close code 1009: message too big")
        XCTAssertEqual(try http.request("GET", "/health").status, 200)
    }
}
