/// The faults the proxy injects into a connection between a client and the server.
enum FaultKind: String, CaseIterable, Sendable {
    /// The proxy closes both sides at once (FIN): the connection drops.
    case drop
    /// Every chunk in both directions is held back 20–300 ms, for 1–4 s.
    case delay
    /// Nothing is forwarded in either direction for 0.5–3 s (bytes are kept, in order).
    case stall
    /// The next chunk in one direction is cut short, then both sides are closed: the
    /// receiver gets part of a WebSocket frame.
    case truncate
    /// Both sides are closed with SO_LINGER 0, so the peers get a TCP RST.
    case reset
}
