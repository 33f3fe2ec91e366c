import Foundation
import ORCore
import OpenRealm
import OpenRealmWire

/// Client reset (`docs/PROTOCOL.md` §6.4), as the configuration's ``ClientResetMode``
/// says:
///
/// 1. The server refuses a bind with `clientResetRequired`. In `.manual` mode the
///    session stops with `SyncError.clientResetError`, reported to the mode's handler
///    (else the app's `syncManager.errorHandler`); the file is left as it is.
/// 2. Otherwise `beforeReset` gets a frozen realm of the file as it is; the file drops
///    its identity and records the reset (``ClientResetStore``); the session reconnects
///    at once and binds as a new client. Nothing uploads meanwhile.
/// 3. The fresh bootstrap of the subscriptions (or partition) replaces the synced
///    objects in one write transaction (``FreshState``), which observers see as an
///    ordinary commit. The file's sync progress restarts from it.
/// 4. In the recover modes the unsynced local changes are applied again in a second
///    write transaction, which uploads like any local write: objects created offline
///    come back, changes to objects the server erased are dropped, local changes to a
///    property win over the server's. `discardUnsyncedChanges` skips this step.
/// 5. `afterReset` gets the frozen realm from step 2 and a live realm of the result.
extension SyncSession {
    /// Step 1–2: the server asked for a reset.
    func beginClientReset(_ e: WireErrorMessage) {
        let callbacks: (before: ((Realm) -> Void)?, after: ((Realm, Realm) -> Void)?)
        switch configuration.clientResetMode {
        case .manual(let handler):
            var error = SyncError(.clientResetError, "The server needs the realm at '\(file.path)' reset (\(e.message)); the client reset mode is .manual, so the file was left as it is: close it and pass the error's clientResetInfo() token to SyncSession.immediatelyHandleError, or delete or back up the file, and open it again.", serverCode: e.code)
            error.actionToken = .backingUp(file.path)
            stopWithError(error, reportTo: handler)
            return
        case .discardUnsyncedChanges(let before, let after), .recoverUnsyncedChanges(let before, let after),
             .recoverOrDiscardUnsyncedChanges(let before, let after):
            callbacks = (before, after)
        }
        if reset != nil {
            // A fresh bind cannot be refused for a reset: the server is inconsistent.
            stopWithError(SyncError(.clientResetError, "The server asked again for a reset of '\(file.path)' while it was being reset: \(e.message)", serverCode: e.code))
            return
        }
        let before = realmConfiguration.flatMap { try? Realm(configuration: $0).freeze() }
        if let before, let callback = callbacks.before { callback(before) }
        do {
            _ = try file.write { txn in
                let progress = SyncProgressStore.progress(txn)
                let base = max(progress.acknowledgedClientVersion, SyncProgressStore.uploadBase(txn))
                try ClientResetStore.setMarker(txn, base: base)
                try SyncProgressStore.setIdentity(txn, nil)
            }
        } catch {
            stopWithError(SyncError(.clientResetError, "Starting the client reset of '\(file.path)' failed: \(error)", serverCode: e.code))
            return
        }
        reset = ClientResetState(before: before)
        closeConnection()
        backoffAttempts = 0
        connect()
    }

    /// Step 3 for a flexible sync file without subscriptions: the server sends nothing
    /// until a query, so the fresh state is empty as of the ident's server version.
    func resetIdentReceived(_ ident: WireIdent) {
        guard let store = subscriptionStore, store.load().latest.version == 0 else { return }
        completeClientReset([], serverVersion: ident.serverVersion, completedQuery: nil)
    }

    /// Downloads during a reset: the bootstrap's batches are kept until the last one,
    /// which ends the reset. Ordinary downloads before it are dropped: the bootstrap is
    /// computed after them and includes their effect.
    func receiveResetDownload(_ d: WireDownload) {
        progress.downloaded(d)
        switch d.bootstrap {
        case .none:
            notifyProgress()
        case .inProgress:
            _ = downloads.receive(d)
            notifyProgress()
        case .lastBatch:
            let changesets = downloads.receive(d) ?? d.changesets
            completeClientReset(changesets.flatMap(\.instructions), serverVersion: d.progress.serverVersion,
                                completedQuery: subscriptionStore == nil ? nil : d.queryVersion)
        }
    }

    /// Steps 3–5.
    private func completeClientReset(_ bootstrap: [WireInstruction], serverVersion: UInt64, completedQuery: UInt64?) {
        let (recover, discardOnFailure, afterReset): (Bool, Bool, ((Realm, Realm) -> Void)?)
            = switch configuration.clientResetMode {
            case .recoverUnsyncedChanges(_, let after): (true, false, after)
            case .recoverOrDiscardUnsyncedChanges(_, let after): (true, true, after)
            case .discardUnsyncedChanges(_, let after): (false, false, after)
            case .manual: (false, false, nil)
            }
        let pendingByVersion = downloads.pendingEdits.byVersion
        let outcome: ([WireInstruction], UInt64)
        do {
            outcome = try file.write { txn -> ([WireInstruction], UInt64) in
                let base = ClientResetStore.marker(txn) ?? SyncProgressStore.uploadBase(txn)
                let unsynced = recover ? try ClientResetStore.unsyncedChanges(txn, after: base, pending: pendingByVersion) : []
                try FreshState(txn: txn.handle).replace(with: bootstrap)
                let version = txn.version + 1
                // Everything up to this commit is the server's state: never uploaded.
                try txn.setMeta(SyncProgressStore.uploadBaseKey, uint64s: [version])
                try SyncProgressStore.setProgress(txn, SyncProgressStore.Progress(serverVersion: serverVersion, acknowledgedClientVersion: version))
                try SyncProgressStore.setIntegrations(txn, [(version, serverVersion)])
                try ClientResetStore.setMarker(txn, base: nil)
                _ = orc_log_hold(txn.handle, SyncProgressStore.logConsumer, version)
                return (unsynced, version)
            }.0
        } catch {
            stopWithError(SyncError(.clientResetError, "The client reset of '\(file.path)' failed while replacing its objects with the server's (the file is unchanged; reset it by hand): \(error)"))
            return
        }
        let (unsynced, resetVersion) = outcome
        let before = reset?.before
        reset = nil
        downloads.pendingEdits = PendingEdits()
        uploader.cursor = resetVersion
        progress.discardUnacknowledged(measuredUpTo: resetVersion)
        if let completedQuery {
            try? subscriptionStore?.setState(Int64(completedQuery), complete: true, errorMessage: nil)
        }
        if recover, !unsynced.isEmpty {
            do {
                _ = try file.write { txn in
                    var applier = ChangesetApplier(txn: txn.handle)
                    applier.apply(unsynced)
                }
            } catch where !discardOnFailure {
                report(SyncError(.clientResetError, "The client reset of '\(file.path)' could not recover the unsynced changes, which were discarded: \(error)"))
            } catch {
                // recoverOrDiscard: the changes are discarded.
            }
        }
        if let afterReset, let before, let configuration = realmConfiguration,
           let after = try? Realm(configuration: configuration) {
            afterReset(before, after)
        }
        // Upload waits for the old changes now wait for what was recovered, if anything.
        if let target = lastContentVersion(upTo: file.latestVersion()) {
            uploadWaiters = uploadWaiters.map { (target, $0.resume) }
        } else {
            let ready = uploadWaiters
            uploadWaiters = []
            for w in ready { w.resume(nil) }
        }
        uploadPending()
        notifyProgress()
    }
}
