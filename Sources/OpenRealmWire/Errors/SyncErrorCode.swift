/// The error codes of the sync protocol, carried by the `error` message
/// (``WireErrorMessage``) and by decoding failures (``WireError``).
///
/// Codes 100–199 are protocol errors: something is wrong with the connection or a
/// message as such. Codes 200–299 are session errors: the messages were well formed but
/// the server refuses what they ask. The raw values are part of the protocol and never
/// change meaning; new codes get new numbers.
public enum SyncErrorCode: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    // MARK: Protocol errors (100–199)

    /// The sender closes the connection normally. Not a failure: no retry is needed
    /// unless the client still has work to do.
    case connectionClosed = 100
    /// A connection-level failure with no more specific code (an I/O failure, a server
    /// bug); the message says what happened. The client may reconnect with backoff.
    case otherError = 101
    /// A frame carried a message type the receiver does not know. Fatal for the connection.
    case unknownMessage = 102
    /// A message could not be decoded: bad magic, reserved flag bits set, a truncated or
    /// malformed field, invalid UTF-8, a value out of its domain. The message names the
    /// field and its byte offset. Fatal for the connection.
    case badMessage = 103
    /// The frame's protocol version is not one the receiver speaks. The error carries the
    /// versions the receiver does speak (``WireErrorMessage/supportedVersions``).
    case unsupportedVersion = 104
    /// A message, a path or a subscription query is larger than the receiver's limits
    /// (by default a 16 MiB body, 64-step paths, 256 kB per query).
    case limitsExceeded = 105
    /// A compressed body is not one valid zstd frame, declares no content size, or
    /// decompresses to another size than it declares. Fatal for the connection.
    case badCompression = 106
    /// A message came when it is not allowed: a message for a session before its
    /// `ident`, a `query` on a partition-based session, a second `ident` for a session.
    case badMessageOrder = 107
    /// A message names a session number that is not bound on this connection (never
    /// bound, or already unbound).
    case unknownSession = 108
    /// A bind reuses a session number used earlier on the same connection.
    case sessionReused = 109
    /// The access token is missing, malformed, badly signed, or issued for another app.
    /// The user must log in again.
    case badAuthentication = 110
    /// The access token has expired. The client refreshes it and binds again.
    case tokenExpired = 111
    /// A changeset cannot be applied: an unknown class or property, a value of the wrong
    /// type, an instruction on a missing object, an index out of range.
    case badChangeset = 112
    /// Versions do not add up: client versions that do not increase, a server version
    /// the server never produced, a query version lower than an earlier one.
    case badProgress = 113

    // MARK: Session errors (200–299)

    /// A session-level failure with no more specific code; the message says what happened.
    case otherSessionError = 200
    /// A subscription query breaks a Flexible Sync rule (a field that is not queryable,
    /// an aggregate, `SORT`/`DISTINCT`/`LIMIT`, a path through a link, the indexed
    /// queryable field rule). The message names the rule; the error carries the query
    /// version. The session continues and later query versions are still served.
    case invalidSubscriptionQuery = 201
    /// A compensating write: the server reverted uploaded writes that fall outside the
    /// client's view or its write rules. The error lists the objects and reasons and the
    /// server version whose download carries the reverts. The session continues.
    case writeNotAllowed = 202
    /// The user may not sync what the bind asks for: no read permission at all, or a
    /// partition the rules do not allow.
    case permissionDenied = 203
    /// The server is stopping. The client reconnects later, with backoff.
    case serverShuttingDown = 204
    /// The server cannot continue from the client's state: the client file identity or
    /// its salt is unknown, the server history the client needs was trimmed, or the
    /// histories diverged. The client must reset its file and download afresh.
    case clientResetRequired = 205
    /// A flexible sync bind to a partition-based app, or the reverse.
    case wrongSyncMode = 206
    /// A schema instruction was refused: development mode is off, the change is not
    /// additive, or it conflicts with the server's schema.
    case invalidSchemaChange = 207
    /// The server's limit of sessions per connection or per user is reached.
    case tooManySessions = 208

    /// Whether this is a protocol error (codes 100–199) rather than a session error.
    public var isProtocolError: Bool { rawValue < 200 }

    /// The case name, as written in `docs/PROTOCOL.md`.
    public var description: String {
        switch self {
        case .connectionClosed: return "connectionClosed"
        case .otherError: return "otherError"
        case .unknownMessage: return "unknownMessage"
        case .badMessage: return "badMessage"
        case .unsupportedVersion: return "unsupportedVersion"
        case .limitsExceeded: return "limitsExceeded"
        case .badCompression: return "badCompression"
        case .badMessageOrder: return "badMessageOrder"
        case .unknownSession: return "unknownSession"
        case .sessionReused: return "sessionReused"
        case .badAuthentication: return "badAuthentication"
        case .tokenExpired: return "tokenExpired"
        case .badChangeset: return "badChangeset"
        case .badProgress: return "badProgress"
        case .otherSessionError: return "otherSessionError"
        case .invalidSubscriptionQuery: return "invalidSubscriptionQuery"
        case .writeNotAllowed: return "writeNotAllowed"
        case .permissionDenied: return "permissionDenied"
        case .serverShuttingDown: return "serverShuttingDown"
        case .clientResetRequired: return "clientResetRequired"
        case .wrongSyncMode: return "wrongSyncMode"
        case .invalidSchemaChange: return "invalidSchemaChange"
        case .tooManySessions: return "tooManySessions"
        }
    }
}
