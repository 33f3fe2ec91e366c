/// Either way, mostly server → client: an error, for one session or (session 0) for the
/// whole connection.
///
/// The body's first fields (session, code, flags, message) keep the same layout in
/// every protocol version, so that a peer can always read why the other refused it;
/// see `docs/PROTOCOL.md` §2.3 and §4.7.
public struct WireErrorMessage: Sendable, Hashable {
    /// The session the error is about, or 0 for the connection.
    public var session: UInt64
    /// What went wrong.
    public var code: SyncErrorCode
    /// A message naming the cause, for logs and for the user-facing error.
    public var message: String
    /// Whether the sender ends the session (or, at session 0, closes the connection)
    /// after this message. When false the session goes on: a warning, a compensating
    /// write, a rejected query version.
    public var isFatal: Bool
    /// The subscription set version the error is about (`invalidSubscriptionQuery`,
    /// `limitsExceeded` for a query), when there is one.
    public var queryVersion: UInt64?
    /// The protocol versions the sender speaks (`unsupportedVersion`).
    public var supportedVersions: ClosedRange<UInt16>?
    /// The writes the server reverted (`writeNotAllowed`).
    public var compensatingWrite: WireCompensatingWrite?

    /// An error message.
    public init(session: UInt64, code: SyncErrorCode, message: String, isFatal: Bool,
                queryVersion: UInt64? = nil, supportedVersions: ClosedRange<UInt16>? = nil,
                compensatingWrite: WireCompensatingWrite? = nil) {
        self.session = session
        self.code = code
        self.message = message
        self.isFatal = isFatal
        self.queryVersion = queryVersion
        self.supportedVersions = supportedVersions
        self.compensatingWrite = compensatingWrite
    }

    /// The message a peer sends when it could not decode what it received: the
    /// decoding error's code and message, fatal, with this build's supported versions
    /// when the version was the problem.
    ///
    /// - Parameters:
    ///   - error: the decoding failure.
    ///   - session: 0 (the default) for the connection.
    public init(_ error: WireError, session: UInt64 = 0) {
        self.init(session: session, code: error.code, message: error.message, isFatal: true,
                  supportedVersions: error.code == .unsupportedVersion ? WireProtocol.supportedVersions : nil)
    }
}

/// The writes a compensating write reverted.
public struct WireCompensatingWrite: Sendable, Hashable {
    /// The server version whose download carries the reverting changes: once the client
    /// has integrated it, its realm matches the server again.
    public var serverVersion: UInt64
    /// The rejected writes, one per object.
    public var writes: [WireRejectedWrite]

    /// A compensating write.
    public init(serverVersion: UInt64, writes: [WireRejectedWrite]) {
        self.serverVersion = serverVersion
        self.writes = writes
    }
}

/// One object whose write the server reverted, and why.
public struct WireRejectedWrite: Sendable, Hashable {
    /// The object (for an embedded object, its top-level owner).
    public var object: WireObjectRef
    /// Why: the rule or view the write fell outside of (`"write to Task[5] not allowed: outside the subscriptions"`).
    public var reason: String

    /// A rejected write of `object` for `reason`.
    public init(object: WireObjectRef, reason: String) {
        self.object = object
        self.reason = reason
    }
}
