import OpenRealmWire

/// A message already encoded as a frame, whose bytes several connections share (a
/// fanned-out download: ``ChangesetFanOut``). The transport writes ``frame`` as it is;
/// ``message`` is kept for counters and for tests that read what was sent.
///
/// `frame` is an array value: every connection handed the same `EncodedMessage` reads
/// the same storage, nothing is copied until the transport copies it into its buffer.
public struct EncodedMessage: Sendable {
    /// The message the frame encodes.
    public let message: WireMessage
    /// The frame: header and (possibly compressed) body, as ``WireEncoder`` makes it.
    public let frame: [UInt8]
    /// The protocol version written into the frame. A transport whose connection speaks
    /// another version encodes ``message`` itself instead.
    public let version: UInt16
    /// When the changeset it carries was committed: the transport records the time from
    /// then to the frame's write (`openrealm_fanout_delay_seconds`).
    let committedAt: ContinuousClock.Instant?

    /// `message` encoded by `encoder`.
    ///
    /// - Throws: ``WireError`` as ``WireEncoder/encode(_:)``.
    init(_ message: WireMessage, encoder: WireEncoder, committedAt: ContinuousClock.Instant? = nil) throws(WireError) {
        self.message = message
        self.frame = try encoder.encode(message)
        self.version = encoder.version
        self.committedAt = committedAt
    }
}
