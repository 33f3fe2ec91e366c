/// Server → client: server changesets for the client to integrate, in server version
/// order, and where the download stands.
///
/// A bootstrap (the objects that enter the view after a query change, or everything on
/// a first bind) may span several downloads: all but the last have
/// ``WireBootstrapState/inProgress`` and the client integrates them together when the
/// ``WireBootstrapState/lastBatch`` one arrives.
public struct WireDownload: Sendable, Hashable {
    /// The session.
    public var session: UInt64
    /// The subscription set version the changesets answer (0 for partition sync, and
    /// before the first query).
    public var queryVersion: UInt64
    /// Progress after this message is integrated.
    public var progress: WireDownloadProgress
    /// Whether this message belongs to a bootstrap, and whether it is the last of it.
    public var bootstrap: WireBootstrapState
    /// The changesets, server versions increasing. May be empty: a download that only
    /// reports progress.
    public var changesets: [WireDownloadChangeset]

    /// A download message.
    public init(session: UInt64, queryVersion: UInt64, progress: WireDownloadProgress,
                bootstrap: WireBootstrapState = .none, changesets: [WireDownloadChangeset]) {
        self.session = session
        self.queryVersion = queryVersion
        self.progress = progress
        self.bootstrap = bootstrap
        self.changesets = changesets
    }
}

/// Where a download leaves the client.
public struct WireDownloadProgress: Sendable, Hashable {
    /// The server version the client is at once it integrates this message; it stores
    /// it as its last integrated server version.
    public var serverVersion: UInt64
    /// The highest client version of this client the server has integrated: the upload
    /// acknowledgement (changesets up to it need not be uploaded again).
    public var lastIntegratedClientVersion: UInt64
    /// An estimate of the bytes still to download after this message (0 when caught up).
    public var downloadableBytes: UInt64

    /// Download progress.
    public init(serverVersion: UInt64, lastIntegratedClientVersion: UInt64, downloadableBytes: UInt64 = 0) {
        self.serverVersion = serverVersion
        self.lastIntegratedClientVersion = lastIntegratedClientVersion
        self.downloadableBytes = downloadableBytes
    }
}

/// Whether a download is part of a bootstrap. Raw values are part of the protocol.
public enum WireBootstrapState: UInt8, Sendable, CaseIterable {
    /// An ordinary download: integrate it at once.
    case none = 0
    /// A bootstrap batch with more to come: keep it until the last batch.
    case inProgress = 1
    /// The last batch of a bootstrap: integrate it with the kept batches, in one
    /// write. The query version is then complete.
    case lastBatch = 2
}

/// One server changeset in a download.
public struct WireDownloadChangeset: Sendable, Hashable {
    /// The server version the changeset produced.
    public var serverVersion: UInt64
    /// The highest client version of the receiving client the server had integrated
    /// when it produced the changeset: the changeset already reflects those local
    /// changes, not later ones.
    public var lastIntegratedClientVersion: UInt64
    /// The client file the changes came from; 0 when the server made them (bootstraps,
    /// compensating writes, changes by the server's own API).
    public var originFileIdent: UInt64
    /// The origin's client version of the changeset (0 when the server made it).
    public var originClientVersion: UInt64
    /// The origin's hybrid logical clock reading for the changeset.
    public var timestamp: WireHybridTimestamp
    /// The instructions.
    public var instructions: [WireInstruction]

    /// A download changeset.
    public init(serverVersion: UInt64, lastIntegratedClientVersion: UInt64, originFileIdent: UInt64 = 0,
                originClientVersion: UInt64 = 0, timestamp: WireHybridTimestamp, instructions: [WireInstruction]) {
        self.serverVersion = serverVersion
        self.lastIntegratedClientVersion = lastIntegratedClientVersion
        self.originFileIdent = originFileIdent
        self.originClientVersion = originClientVersion
        self.timestamp = timestamp
        self.instructions = instructions
    }
}
