/// Server → client: the answer to a successful ``WireBind``.
///
/// After it the session is open: the client may send queries and uploads, the server
/// sends downloads.
public struct WireIdent: Sendable, Hashable {
    /// The session number of the bind.
    public var session: UInt64
    /// The file's identity: the one the bind presented, or a new one on a first bind.
    /// The client stores it in the realm file before anything else.
    public var fileIdentity: WireFileIdentity
    /// The server's latest version when the session opened.
    public var serverVersion: UInt64
    /// The highest client version of this file the server has integrated: the client
    /// uploads its changesets after it (0 when none).
    public var lastIntegratedClientVersion: UInt64

    /// An ident message.
    public init(session: UInt64, fileIdentity: WireFileIdentity, serverVersion: UInt64, lastIntegratedClientVersion: UInt64) {
        self.session = session
        self.fileIdentity = fileIdentity
        self.serverVersion = serverVersion
        self.lastIntegratedClientVersion = lastIntegratedClientVersion
    }
}
