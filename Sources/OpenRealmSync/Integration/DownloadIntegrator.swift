import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Integrates the server's downloads into the file: keeps a bootstrap's batches until
/// its last one arrives (protocol §5.2: a bootstrap is integrated whole), then applies
/// the changesets, the download's progress and the upload acknowledgement in one write
/// transaction, transforming the local edits the server has not acknowledged past them
/// (``PendingEdits``).
///
/// Used on the session's queue only.
struct DownloadIntegrator {
    /// The batches of a bootstrap under way (dropped with its connection: the server
    /// starts the bootstrap again).
    var bootstrapBuffer: [WireDownloadChangeset] = []
    /// Local changesets the server has not acknowledged, by local version, as the client
    /// holds them: transformed past the list edits downloaded since they were made.
    var pendingEdits = PendingEdits()

    /// Takes a download: the changesets to integrate now (with a bootstrap's earlier
    /// batches), or nil while the bootstrap goes on.
    mutating func receive(_ d: WireDownload) -> [WireDownloadChangeset]? {
        if d.bootstrap == .inProgress {
            bootstrapBuffer += d.changesets
            return nil
        }
        defer { bootstrapBuffer = [] }
        return bootstrapBuffer + d.changesets
    }

    /// The connection ended: a bootstrap under way is abandoned.
    mutating func connectionEnded() { bootstrapBuffer = [] }

    /// Integrates `changesets` and the download's progress in one write transaction
    /// (none when nothing changes) and, when the download completed a bootstrap of query
    /// version `completedQuery`, marks that subscription set complete.
    ///
    /// - Returns: the highest local version the server has acknowledged.
    /// - Throws: a failure to write the file; nothing of the download is then kept.
    mutating func integrate(_ changesets: [WireDownloadChangeset], progress downloadProgress: WireDownloadProgress,
                            completedQuery: UInt64?, file: FileAccess, clock: SyncClock,
                            subscriptions: SubscriptionStore?) throws -> UInt64 {
        let instructions = changesets.flatMap(\.instructions)
        for c in changesets { clock.receive(c.timestamp) }
        let current = try file.read { SyncProgressStore.progress($0) }
        var updated = current
        updated.serverVersion = max(current.serverVersion, downloadProgress.serverVersion)
        updated.acknowledgedClientVersion = max(current.acknowledgedClientVersion, downloadProgress.lastIntegratedClientVersion)
        if !instructions.isEmpty || updated != current {
            var pending = pendingEdits
            _ = try file.write { txn in
                var applier = ChangesetApplier(txn: txn.handle)
                if completedQuery != nil { try SyncProgressStore.setViewServerVersion(txn, updated.serverVersion) }
                applier.apply(try pending.integrate(changesets, txn, viewServerVersion: SyncProgressStore.viewServerVersion(txn)))
                pending.acknowledge(upTo: updated.acknowledgedClientVersion)
                try pending.save(txn)
                try CommitStamps.prune(txn, upTo: updated.acknowledgedClientVersion)
                try SyncProgressStore.setProgress(txn, updated)
                if updated.acknowledgedClientVersion != current.acknowledgedClientVersion {
                    _ = orc_log_hold(txn.handle, SyncProgressStore.logConsumer, ClientResetStore.logHoldVersion(txn, updated))
                }
                try Self.recordIntegration(txn, serverVersion: updated.serverVersion, acknowledged: updated.acknowledgedClientVersion)
            }
            pendingEdits = pending
        }
        if let qv = completedQuery {
            try subscriptions?.setState(Int64(qv), complete: true, errorMessage: nil)
        }
        return updated.acknowledgedClientVersion
    }

    /// Remembers that the commit being made integrates server version `serverVersion`
    /// (uploads skip it, and later local commits name it as their base).
    private static func recordIntegration(_ txn: ORCoreTransaction, serverVersion: UInt64, acknowledged: UInt64) throws {
        var list = SyncProgressStore.integrations(txn)
        list.append((txn.version + 1, serverVersion))
        // Entries below the acknowledged version are needed only for the last one.
        if let keep = list.lastIndex(where: { $0.local <= acknowledged }), keep > 0 {
            list.removeFirst(keep)
        }
        try SyncProgressStore.setIntegrations(txn, list)
    }
}
