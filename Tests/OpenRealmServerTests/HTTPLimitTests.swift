import Foundation
import XCTest
@testable import OpenRealmServer

/// HTTP heads and bodies over their limits, malformed requests and trickled bodies: each
/// gets an answer or is cut off, and the connection is closed, so none holds a
/// descriptor. The body deadline is short here (1 s); the idle timeout stays long, to
/// show that it is not what closes them. Every wait has a deadline.
final class HTTPLimitTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.httpIdleTimeout = 60
        configuration.httpBodyTimeout = 1
        configuration.httpMaxHeadBytes = 16 << 10
        configuration.httpMaxBodyBytes = 256 << 10
    }

    /// Sends `bytes` on a new connection and reads until the server closes it (throws
    /// when it is still open after 10 s).
    private func exchange(_ bytes: [UInt8]) throws -> String {
        let socket = try TestSocket(port: port)
        try socket.write(bytes)
        return String(decoding: try socket.readToEnd(deadline: Date().addingTimeInterval(10)), as: UTF8.self)
    }

    private func head(_ method: String, _ path: String, _ fields: [String]) -> [UInt8] {
        Array(("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    func testAnOversizedHeadGets431AndTheConnectionCloses() throws {
        // Over the 16 KiB limit, and over the 80 KiB that went unanswered and stayed open.
        for size in [20 << 10, 100 << 10] {
            let reply = try exchange(head("GET", "/health", ["X-Padding: " + String(repeating: "a", count: size)]))
            XCTAssertTrue(reply.hasPrefix("HTTP/1.1 431 "), "\(size): \(reply.prefix(200))")
            XCTAssertTrue(reply.contains("\"error_code\":\"RequestHeaderFieldsTooLarge\""), reply)
        }
        // A request line too long is the same.
        let reply = try exchange(head("GET", "/" + String(repeating: "p", count: 20 << 10), []))
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 431 "), String(reply.prefix(200)))
        // A head within the limit is served.
        XCTAssertEqual(try http.get("/health").status, 200)
    }

    func testAMalformedRequestClosesTheConnection() throws {
        let reply = try exchange(Array("THIS IS NOT HTTP\r\n\r\n".utf8))
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 400 "), String(reply.prefix(200)))
        // Garbage after a good request on a kept-alive connection closes it too.
        let socket = try TestSocket(port: port)
        try socket.write(head("GET", "/health", []))
        XCTAssertNotNil(try socket.read(through: Array("{\"status\":\"ok\"}".utf8), deadline: Date().addingTimeInterval(10)))
        try socket.write(Array("GET / HTTP/1.1\r\nBad Header Line\r\n\r\n".utf8))
        let text = String(decoding: try socket.readToEnd(deadline: Date().addingTimeInterval(10)), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 "), String(text.prefix(200)))
    }

    func testABodyOverTheLimitGets413AndTheConnectionCloses() throws {
        let declared = try exchange(head("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login",
                                         ["Content-Type: application/json", "Content-Length: \(1 << 20)"]))
        XCTAssertTrue(declared.hasPrefix("HTTP/1.1 413 "), String(declared.prefix(200)))
        XCTAssertTrue(declared.contains("over the limit of 262144"), declared)
        // A chunked body that grows past the limit: the connection is closed while it is sent.
        let socket = try TestSocket(port: port)
        try socket.write(head("POST", "/health", ["Transfer-Encoding: chunked"]))
        let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x61, count: 0x10000) + Array("\r\n".utf8)
        var sent = 0
        do {
            while sent < 1_600 {
                try socket.write(chunk)
                sent += 1
            }
        } catch {
            // The server closed the connection under the writes: what this test wants.
        }
        _ = try? socket.readToEnd(deadline: Date().addingTimeInterval(10))
        XCTAssertLessThan(sent, 1_600, "the server read a 100 MiB body")
    }

    func testATrickledBodyIsCutOffAfterTheDeadline() throws {
        let socket = try TestSocket(port: port)
        try socket.write(head("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login",
                              ["Content-Type: application/json", "Content-Length: 1000"]))
        let started = Date()
        var sent = 0
        var closed = false
        // One byte every 0.2 s (the read's deadline paces it) until the server closes.
        while !closed && Date().timeIntervalSince(started) < 10 {
            do {
                try socket.write([0x20])
                sent += 1
            } catch {
                closed = true
                break
            }
            do {
                if try socket.read(1, deadline: Date().addingTimeInterval(0.2)) == nil { closed = true }
            } catch let failure as TestSocket.Failure where failure.description.contains("timed out") {
                continue
            }
        }
        XCTAssertTrue(closed, "the trickled body was still being read after 10 s")
        XCTAssertLessThan(sent, 1000)
        XCTAssertEqual(try http.get("/health").status, 200)
    }
}
