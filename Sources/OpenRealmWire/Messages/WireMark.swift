/// A mark: the client sends one with a new request id; the server sends it back, with
/// the same id, once it has integrated every upload that came before the mark and sent
/// every download up to the server version current when the mark arrived.
///
/// `SyncSession.wait(for: .download)` sends a mark and waits for its echo.
public struct WireMark: Sendable, Hashable {
    /// The session.
    public var session: UInt64
    /// The request id, chosen by the client, increasing within a session.
    public var requestId: UInt64

    /// A mark message.
    public init(session: UInt64, requestId: UInt64) {
        self.session = session
        self.requestId = requestId
    }
}

/// Client → server: the client ends a session. The server sends nothing more for it,
/// and the number is not used again on the connection. Messages of the session already
/// in flight are discarded by the client.
public struct WireUnbind: Sendable, Hashable {
    /// The session.
    public var session: UInt64

    /// An unbind message.
    public init(session: UInt64) {
        self.session = session
    }
}

/// Either way: a keep-alive probe. The receiver answers at once with a ``WirePong``
/// carrying the same timestamp.
public struct WirePing: Sendable, Hashable {
    /// An opaque value the sender gets back (typically its monotonic clock in milliseconds).
    public var timestamp: UInt64
    /// The sender's last measured round-trip time in milliseconds (0 when none), for
    /// the receiver's logs.
    public var roundTripTime: UInt64

    /// A ping message.
    public init(timestamp: UInt64, roundTripTime: UInt64 = 0) {
        self.timestamp = timestamp
        self.roundTripTime = roundTripTime
    }
}

/// Either way: the answer to a ``WirePing``.
public struct WirePong: Sendable, Hashable {
    /// The ping's timestamp.
    public var timestamp: UInt64

    /// A pong message.
    public init(timestamp: UInt64) {
        self.timestamp = timestamp
    }
}
