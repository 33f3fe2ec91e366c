/// Client → server: changesets the client committed locally, in client version order.
///
/// The server integrates them, answers through the progress of later downloads
/// (``WireDownloadProgress/lastIntegratedClientVersion``), and reports writes it had to
/// revert with a `writeNotAllowed` error.
public struct WireUpload: Sendable, Hashable {
    /// The session.
    public var session: UInt64
    /// The changesets, client versions increasing.
    public var changesets: [WireUploadChangeset]

    /// An upload message.
    public init(session: UInt64, changesets: [WireUploadChangeset]) {
        self.session = session
        self.changesets = changesets
    }
}

/// One local changeset in an upload.
public struct WireUploadChangeset: Sendable, Hashable {
    /// The client's version of the commit that produced it (its realm version).
    public var clientVersion: UInt64
    /// The last server version the client had integrated when it made the changeset:
    /// the changeset was made without knowledge of later server versions.
    public var lastIntegratedServerVersion: UInt64
    /// When the changeset was made, by the client's hybrid logical clock.
    public var timestamp: WireHybridTimestamp
    /// The instructions.
    public var instructions: [WireInstruction]

    /// An upload changeset.
    public init(clientVersion: UInt64, lastIntegratedServerVersion: UInt64, timestamp: WireHybridTimestamp,
                instructions: [WireInstruction]) {
        self.clientVersion = clientVersion
        self.lastIntegratedServerVersion = lastIntegratedServerVersion
        self.timestamp = timestamp
        self.instructions = instructions
    }
}
