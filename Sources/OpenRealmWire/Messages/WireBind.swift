/// Client → server, first message of a session: who the client is, which realm it
/// syncs and where it left off.
///
/// The frame's protocol version is the version the client speaks on this connection.
/// The server answers with ``WireIdent``, or with an error (`badAuthentication`,
/// `tokenExpired`, `permissionDenied`, `wrongSyncMode`, `clientResetRequired`, ...).
public struct WireBind: Sendable, Hashable {
    /// The session number, chosen by the client: not 0, and never reused on one connection.
    public var session: UInt64
    /// The app id the client was built for.
    public var appId: String
    /// The user's access token (a signed JWT from the auth endpoints).
    public var accessToken: String
    /// The realm file's identity from an earlier ident; nil on the file's first bind.
    public var fileIdentity: WireFileIdentity?
    /// The last server version the file integrated: the server sends changesets after
    /// it. 0 when the file has integrated nothing (always 0 without a file identity).
    public var lastIntegratedServerVersion: UInt64
    /// Flexible sync, or partition-based sync with the partition value.
    public var syncMode: WireSyncMode

    /// A bind message.
    public init(session: UInt64, appId: String, accessToken: String, fileIdentity: WireFileIdentity? = nil,
                lastIntegratedServerVersion: UInt64 = 0, syncMode: WireSyncMode = .flexible) {
        self.session = session
        self.appId = appId
        self.accessToken = accessToken
        self.fileIdentity = fileIdentity
        self.lastIntegratedServerVersion = lastIntegratedServerVersion
        self.syncMode = syncMode
    }
}

/// How a session chooses the objects it syncs.
public enum WireSyncMode: Sendable, Hashable {
    /// Flexible sync: the objects matching the client's subscriptions (``WireQuery``)
    /// and the user's read rules.
    case flexible
    /// Partition-based sync: every object whose partition field (named by the server's
    /// app configuration) holds this value.
    case partition(WirePrimaryKey)
}
