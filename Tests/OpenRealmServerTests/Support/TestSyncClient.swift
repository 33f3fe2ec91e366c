import Foundation
import OpenRealmWire

/// A sync client for tests: a raw WebSocket (RFC 6455, client side: masked frames) to
/// the server's sync endpoint, speaking OpenRealmWire frames. Every read has a deadline.
final class TestSyncClient {
    private let socket: TestSocket
    private var decoder = WireFrameDecoder()
    private(set) var isClosed = false
    /// The status code of the server's close frame, once one came.
    private(set) var closeCode: UInt16?

    /// `headers`: more header lines for the upgrade request (`"X-Forwarded-For: 192.0.2.1"`).
    init(port: Int, appId: String, headers: [String] = [], receiveBufferBytes: Int32? = nil) throws {
        socket = try TestSocket(port: port, receiveBufferBytes: receiveBufferBytes)
        let head = "GET /api/client/v2.0/app/\(appId)/realm-sync HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        try socket.write(Array(head.utf8))
        guard let reply = try socket.read(through: Array("\r\n\r\n".utf8), deadline: Date().addingTimeInterval(10)) else {
            throw TestSocket.Failure(description: "the server closed during the WebSocket handshake")
        }
        let text = String(decoding: reply, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 101") else { throw TestSocket.Failure(description: "no upgrade: \(text)") }
    }

    /// Sends one message as one binary WebSocket message.
    func send(_ message: WireMessage) throws {
        try sendFrame(try WireEncoder().encode(message))
    }

    /// Sends raw bytes as one binary WebSocket message.
    func sendFrame(_ payload: [UInt8], opcode: UInt8 = 0x2) throws {
        var frame: [UInt8] = [0x80 | opcode]
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        frame += mask
        for (i, b) in payload.enumerated() { frame.append(b ^ mask[i % 4]) }
        try socket.write(frame)
    }

    /// Writes raw bytes to the socket (a hand-made WebSocket frame header, ...).
    func sendRaw(_ bytes: [UInt8]) throws {
        try socket.write(bytes)
    }

    /// Reads whatever the server sends without answering its pings (a stalled,
    /// half-open peer) until the server ends the TCP connection.
    ///
    /// - Returns: how many pings came; throws when the connection is still open at the
    ///   deadline.
    func readIgnoringPingsUntilEnd(timeout: Double) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var pings = 0
        while let (head, payload) = try readFrame(deadline: deadline) {
            switch head & 0x0F {
            case 0x9: pings += 1
            case 0x8: if payload.count >= 2 { closeCode = UInt16(payload[0]) << 8 | UInt16(payload[1]) }
            default: break
            }
        }
        return pings
    }

    /// One frame from the server: its first header byte (FIN and opcode) and its payload
    /// (the server does not mask); nil, with `isClosed` set, when the connection ended.
    private func readFrame(deadline: Date) throws -> (head: UInt8, payload: [UInt8])? {
        guard let head = try socket.read(2, deadline: deadline) else { isClosed = true; return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let ext = try socket.read(2, deadline: deadline) else { isClosed = true; return nil }
            length = Int(ext[0]) << 8 | Int(ext[1])
        } else if length == 127 {
            guard let ext = try socket.read(8, deadline: deadline) else { isClosed = true; return nil }
            length = ext.reduce(0) { $0 << 8 | Int($1) }
        }
        guard let payload = try socket.read(length, deadline: deadline) else { isClosed = true; return nil }
        return (head[0], payload)
    }

    /// The next protocol message, or nil when the server closed the WebSocket.
    func next(timeout: Double = 10) throws -> WireMessage? {
        let deadline = Date().addingTimeInterval(timeout)
        var message: [UInt8] = []
        while let (head, payload) = try readFrame(deadline: deadline) {
            let fin = head & 0x80 != 0
            switch head & 0x0F {
            case 0x8:
                isClosed = true
                if payload.count >= 2 { closeCode = UInt16(payload[0]) << 8 | UInt16(payload[1]) }
                return nil
            case 0x9:
                try sendFrame(payload, opcode: 0xA)
            case 0xA:
                continue
            default:
                message += payload
                if fin { return try WireFrameDecoder.decode(frame: message) }
            }
        }
        return nil
    }

    /// Reads messages until `match` returns a value (skipping the others), within `timeout`.
    func waitFor<T>(_ what: String, timeout: Double = 10, _ match: (WireMessage) -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var skipped: [WireMessage] = []
        while deadline.timeIntervalSinceNow > 0 {
            let message: WireMessage?
            do {
                message = try next(timeout: deadline.timeIntervalSinceNow)
            } catch {
                throw TestSocket.Failure(description: "\(error) while waiting for \(what); skipped \(skipped)")
            }
            guard let message else {
                throw TestSocket.Failure(description: "the connection closed while waiting for \(what); skipped \(skipped)")
            }
            if let value = match(message) { return value }
            skipped.append(message)
        }
        throw TestSocket.Failure(description: "timed out waiting for \(what); skipped \(skipped)")
    }

    /// Waits until the server closes the connection; returns the messages it sent before.
    func waitForClose(timeout: Double = 10) throws -> [WireMessage] {
        var messages: [WireMessage] = []
        let deadline = Date().addingTimeInterval(timeout)
        while let message = try next(timeout: max(0.01, deadline.timeIntervalSinceNow)) { messages.append(message) }
        return messages
    }
}
