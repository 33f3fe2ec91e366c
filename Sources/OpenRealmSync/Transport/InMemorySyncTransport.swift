import Foundation
import OpenRealmWire
import Synchronization

/// A ``SyncTransport`` without sockets, for tests, as swift-nio's embedded channel serves
/// its own: the test plays the server. Each connection a session asks for is kept (in
/// order) and stays unopened until the test calls `open()`; the frames the session writes
/// are decoded and kept; the test hands it the server's messages with `deliver`, and ends
/// the connection with `end`.
///
/// ```swift
/// let transport = InMemorySyncTransport()
/// // … a session made with `transport` connects …
/// let connection = try transport.waitForConnection(0)
/// connection.open()
/// let bind = try connection.waitForSent { if case .bind = $0 { true } else { false } }
/// connection.deliver(.ident(WireIdent(…)))
/// ```
package final class InMemorySyncTransport: SyncTransport, @unchecked Sendable {
    private let made = Mutex<[Connection]>([])

    package init() {}

    package func connection(to url: URL, tls: SyncTransportTLS?,
                            onEvent: @escaping @Sendable (SyncTransportEvent) -> Void) -> any SyncTransportConnection {
        let connection = Connection(url: url, onEvent: onEvent)
        made.withLock { $0.append(connection) }
        return connection
    }

    /// The connections made so far, in order.
    package var connections: [Connection] { made.withLock { $0 } }

    /// The `index`th connection made, waiting up to `timeout` seconds for it.
    ///
    /// - Throws: ``Timeout`` when no such connection was made in time.
    package func waitForConnection(_ index: Int, timeout: TimeInterval = 10) throws -> Connection {
        try Self.wait(timeout, "connection \(index)") { made.withLock { $0.count > index ? $0[index] : nil } }
    }

    /// Polls `probe` every millisecond until it returns a value or `timeout` passes.
    static func wait<T>(_ timeout: TimeInterval, _ what: String, _ probe: () -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let value = probe() { return value }
            guard Date() < deadline else { throw Timeout(what: what, seconds: timeout) }
            usleep(1_000)
        }
    }

    /// What a wait that ran out says.
    package struct Timeout: Error, CustomStringConvertible {
        package let what: String
        package let seconds: TimeInterval
        package var description: String { "no \(what) within \(seconds) s" }
    }

    /// One connection: the session's end is the ``SyncTransportConnection``; the test's
    /// end is `open`, `deliver`, `end` and the frames the session sent.
    package final class Connection: SyncTransportConnection, @unchecked Sendable {
        /// The URL the session connected to.
        package let url: URL
        private let onEvent: @Sendable (SyncTransportEvent) -> Void
        private struct State {
            var connectCalled = false
            var open = false
            var ended = false
            var sent: [WireMessage] = []
            var undecodable = 0
            var decoder = WireFrameDecoder()
        }
        private let state = Mutex(State())

        init(url: URL, onEvent: @escaping @Sendable (SyncTransportEvent) -> Void) {
            self.url = url
            self.onEvent = onEvent
        }

        // The session's end.

        package func connect() { state.withLock { $0.connectCalled = true } }

        package func send(_ frame: [UInt8]) -> Bool {
            state.withLock { s in
                guard s.open, !s.ended else { return false }
                if let messages = try? s.decoder.feed(frame) { s.sent += messages } else { s.undecodable += 1 }
                return true
            }
        }

        package func close() { end(nil) }

        // The test's end.

        /// Whether the session called `connect()`.
        package var connectCalled: Bool { state.withLock { $0.connectCalled } }
        /// Whether the connection ended (closed by either side).
        package var isEnded: Bool { state.withLock { $0.ended } }
        /// The messages the session sent, in order.
        package var sent: [WireMessage] { state.withLock { $0.sent } }
        /// How many frames the session sent that did not decode.
        package var undecodableFrames: Int { state.withLock { $0.undecodable } }

        /// Completes the opening: the session is told, and writes its `bind`.
        package func open() {
            let first = state.withLock { s -> Bool in
                guard !s.open, !s.ended else { return false }
                s.open = true
                return true
            }
            if first { onEvent(.opened) }
        }

        /// Hands the session one message from the server.
        package func deliver(_ message: WireMessage) {
            guard let frame = try? WireEncoder().encode(message) else { return }
            deliverFrame(frame)
        }

        /// Hands the session one frame as it is (also one that does not decode).
        package func deliverFrame(_ frame: [UInt8]) {
            guard state.withLock({ $0.open && !$0.ended }) else { return }
            onEvent(.message(frame))
        }

        /// Ends the connection from the server's side (or any end the transport reports).
        package func end(_ reason: String?, as event: SyncTransportEvent? = nil) {
            let first = state.withLock { s -> Bool in
                defer { s.ended = true }
                return !s.ended
            }
            if first { onEvent(event ?? .closed(reason)) }
        }

        /// The first message the session sent (after `skipping` earlier matches) that
        /// `matches`, waiting up to `timeout` seconds for it.
        package func waitForSent(skipping: Int = 0, timeout: TimeInterval = 10,
                                 _ matches: @escaping (WireMessage) -> Bool) throws -> WireMessage {
            try InMemorySyncTransport.wait(timeout, "matching message from the session") {
                let found = sent.filter(matches)
                return found.count > skipping ? found[skipping] : nil
            }
        }

        /// Waits up to `timeout` seconds until the connection ended.
        package func waitUntilEnded(timeout: TimeInterval = 10) throws {
            _ = try InMemorySyncTransport.wait(timeout, "end of the connection") { isEnded ? true : nil }
        }
    }
}
