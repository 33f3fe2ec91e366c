import Foundation
import XCTest
@testable import OpenRealmServer

/// A server without TLS answers a TLS handshake at once with a plain-text 400 that says
/// so, and closes; before, the ClientHello waited for a request head until the
/// first-request deadline (60 s), and so did the client.
final class TLSOnPlainPortTests: ServerTestCase {
    func testATLSHandshakeGetsAPlainTextAnswerAndTheConnectionCloses() throws {
        let socket = try TestSocket(port: port)
        // The start of a ClientHello record: handshake (22), TLS 1.0 record version, a length.
        try socket.write([0x16, 0x03, 0x01, 0x00, 0xf4, 0x01, 0x00, 0x00, 0xf0, 0x03, 0x03])
        let answer = String(decoding: try socket.readToEnd(deadline: Date().addingTimeInterval(10)), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), answer)
        XCTAssertTrue(answer.contains("not TLS"), answer)
    }

    func testPlainHTTPIsServedAsBefore() throws {
        let socket = try TestSocket(port: port)
        try socket.write(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let answer = String(decoding: try socket.readToEnd(deadline: Date().addingTimeInterval(10)), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertTrue(answer.contains("\"ok\""), answer)
    }
}
