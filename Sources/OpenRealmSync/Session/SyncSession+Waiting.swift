import Foundation
import OpenRealmWire

extension SyncSession {
    /// Waits until every local change made before the call has been uploaded and
    /// acknowledged (`.upload`), or until every change the server had when the call was
    /// made has been downloaded and integrated (`.download`).
    ///
    /// A lost connection does not end the wait: the session reconnects and the wait
    /// ends once the new connection has done the work. On a suspended session the wait
    /// lasts until the session is resumed and done. Cancelling the waiting task ends it
    /// with `CancellationError`.
    ///
    /// - Throws: ``SyncError`` when the session stops (logout, a refused session, a
    ///   client reset in `.manual` mode); `CancellationError` when the task is cancelled.
    public func wait(for direction: ProgressDirection) async throws {
        try await WaitSlot().wait { [self] finish in
            queue.async { [self] in register(direction, finish) }
        }
    }

    /// Waits for upload or download and calls `callback` with nil or the error.
    @preconcurrency
    public func wait(for direction: ProgressDirection, callback: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await wait(for: direction); callback(nil) } catch { callback(error) } }
    }

    /// Stores a wait (on `queue`), or answers it at once when nothing is outstanding.
    private func register(_ direction: ProgressDirection, _ resume: @escaping @Sendable (Error?) -> Void) {
        if stoppedForGood {
            resume(stopError ?? SyncError(.connectionFailed, "The sync session of '\(file.path)' is stopped."))
            return
        }
        switch direction {
        case .upload:
            guard let target = lastContentVersion(upTo: file.latestVersion()) else { resume(nil); return }
            uploadWaiters.append((target, resume))
            uploadPending()
        case .download:
            nextMarkId += 1
            markWaiters.append((nextMarkId, resume))
            // Before `ident` the mark waits: every pending mark goes out once bound.
            if bound { send(.mark(WireMark(session: sessionNumber, requestId: nextMarkId))) }
        }
    }

    /// Ends every wait with `error` (the session stopped for good).
    func failWaiters(_ error: Error) {
        let marks = markWaiters
        let uploads = uploadWaiters
        markWaiters = []
        uploadWaiters = []
        for w in marks { w.resume(error) }
        for w in uploads { w.resume(error) }
        SubscriptionWaiters.shared.failAll(path: file.path, error: error)
    }
}

extension SyncSession {
    /// The waits stored now (for tests): download waits (marks) and upload waits.
    var pendingWaitCounts: (marks: Int, uploads: Int) {
        queue.sync { (markWaiters.count, uploadWaiters.count) }
    }
}
