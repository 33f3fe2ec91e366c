import Foundation
import OpenRealmWire

/// A WebSocket client to the sync endpoint over a ``RawConnection``, written by hand so
/// that `abuse` controls every byte and every read: its clients may send frames no
/// encoder would make, bind hundreds of sessions, or never read at all. Every wait has a
/// deadline. The server's `Sec-WebSocket-Accept` is not checked (only the 101).
///
/// Used from one thread at a time.
final class RawWebSocket {
    /// Why the socket ended or could not open.
    enum Failure: Error, CustomStringConvertible {
        /// The upgrade was answered with another status than 101 (or none).
        case refused(String)
        /// The server sent a close frame or closed the connection.
        case closed
        /// A frame from the server did not decode.
        case undecodable(String)

        var description: String {
            switch self {
            case .refused(let answer): return "the WebSocket upgrade was refused: \(answer)"
            case .closed: return "the server closed the connection"
            case .undecodable(let why): return "a frame from the server did not decode: \(why)"
            }
        }
    }

    let connection: RawConnection
    private var buffer: [UInt8] = []
    private var decoder = WireFrameDecoder()
    private var pending: [WireMessage] = []
    private var fragments: [UInt8] = []

    /// Connects to `port` and upgrades `path`, all within `timeout` seconds
    /// (`receiveBuffer`: see ``RawConnection/init(port:timeout:receiveBuffer:)``).
    ///
    /// - Throws: ``Failure/refused(_:)`` for another answer than 101, or a
    ///   ``RawConnection/Failure``.
    init(port: Int, path: String, timeout: TimeInterval, receiveBuffer: Int? = nil) throws {
        let deadline = Date().addingTimeInterval(timeout)
        connection = try RawConnection(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try connection.send(Array(head.utf8), deadline: deadline, what: "the upgrade request")
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let range = Self.firstIndex(of: end, in: buffer) {
                let answer = String(decoding: buffer[..<range], as: UTF8.self)
                buffer.removeFirst(range + end.count)
                guard answer.hasPrefix("HTTP/1.1 101") else {
                    throw Failure.refused(String(answer.split(separator: "\r\n").first ?? ""))
                }
                return
            }
            guard let bytes = try connection.receive(deadline: deadline, what: "the upgrade answer") else {
                throw Failure.refused("the connection closed before an answer")
            }
            buffer += bytes
        }
    }

    /// Sends one sync frame as a binary WebSocket message (masked, as a client must).
    func send(_ frame: [UInt8], deadline: Date) throws {
        try connection.send(Self.webSocketFrame(opcode: 0x2, payload: frame), deadline: deadline, what: "sending a frame")
    }

    /// Encodes and sends `message`.
    func send(_ message: WireMessage, deadline: Date) throws {
        try send(try WireEncoder().encode(message), deadline: deadline)
    }

    /// The next sync message from the server, waiting until `deadline`. WebSocket pings
    /// are answered on the way.
    ///
    /// - Throws: ``Failure/closed`` when the server closed the connection,
    ///   ``RawConnection/Failure/timedOut(_:)`` when nothing came in time.
    func receive(deadline: Date) throws -> WireMessage {
        while pending.isEmpty {
            if let (opcode, payload) = try nextWebSocketFrame(deadline: deadline) {
                switch opcode {
                case 0x2:
                    do {
                        pending += try decoder.feed(payload)
                    } catch {
                        throw Failure.undecodable("\(error)")
                    }
                case 0x8:
                    throw Failure.closed
                case 0x9:
                    try? connection.send(Self.webSocketFrame(opcode: 0xA, payload: payload), deadline: deadline, what: "a pong")
                default:
                    break
                }
            }
        }
        return pending.removeFirst()
    }

    /// Reads messages until `match` returns a value, or throws as ``receive(deadline:)``.
    @discardableResult
    func waitFor<T>(deadline: Date, _ match: (WireMessage) throws -> T?) throws -> T {
        while true {
            if let value = try match(try receive(deadline: deadline)) { return value }
        }
    }

    /// Closes the connection without a close handshake.
    func close() { connection.close() }

    /// One whole WebSocket message (continuations joined): its opcode and payload; nil
    /// when a fragment arrived but the message is not complete yet.
    private func nextWebSocketFrame(deadline: Date) throws -> (UInt8, [UInt8])? {
        while true {
            if let (fin, opcode, payload, used) = Self.parseFrame(buffer) {
                buffer.removeFirst(used)
                if opcode >= 0x8 { return (opcode, payload) }   // control frames are never fragmented
                fragments += payload
                guard fin else { return nil }
                defer { fragments = [] }
                return (opcode == 0 ? 0x2 : opcode, fragments)
            }
            guard let bytes = try connection.receive(deadline: deadline, what: "reading a frame") else { throw Failure.closed }
            buffer += bytes
        }
    }

    /// A frame at the start of `bytes` (server frames are not masked): fin, opcode,
    /// payload and the bytes it took; nil when it is not complete.
    private static func parseFrame(_ bytes: [UInt8]) -> (Bool, UInt8, [UInt8], Int)? {
        guard bytes.count >= 2 else { return nil }
        let fin = bytes[0] & 0x80 != 0
        let opcode = bytes[0] & 0x0F
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }
            offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        return (fin, opcode, Array(bytes[offset..<offset + length]), offset + length)
    }

    /// A masked client frame of `payload`.
    static func webSocketFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame.reserveCapacity(frame.count + payload.count)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
        return frame
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
