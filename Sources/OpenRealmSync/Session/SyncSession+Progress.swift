import Foundation
import OpenRealmWire

extension SyncSession {
    /// A transfer's progress, in bytes of encoded changesets (`docs/PROTOCOL.md` §5.1).
    ///
    /// Upload: the local changesets the server acknowledged, out of those acknowledged
    /// plus those committed and not acknowledged yet. Download: the changesets received
    /// since the session started, out of those plus what the server says remains (the
    /// rest of a bootstrap).
    public struct Progress: Sendable, Equatable {
        /// Bytes transferred so far.
        public let transferredBytes: Int
        /// Bytes transferred plus those known to remain.
        public let transferrableBytes: Int
        /// The estimated fraction done, 0...1: exact for uploads, from the server's
        /// estimate of what remains for downloads.
        public let progressEstimate: Double

        init(transferredBytes: Int, transferrableBytes: Int) {
            self.transferredBytes = transferredBytes
            self.transferrableBytes = transferrableBytes
            progressEstimate = transferrableBytes <= 0 ? 1 : min(1, Double(transferredBytes) / Double(transferrableBytes))
        }

        /// Whether nothing remains.
        public var isTransferComplete: Bool { transferredBytes >= transferrableBytes }
        /// The fraction done, 0...1 (the same as ``progressEstimate``).
        public var fractionTransferred: Double { progressEstimate }
    }

    /// Calls `block` on the session's queue with the progress of uploads or downloads:
    /// once at once, then each time it changes.
    ///
    /// With `.reportIndefinitely` the block follows every transfer until the token is
    /// invalidated. With `.forCurrentlyOutstandingWork` it follows the bytes outstanding
    /// when it was registered (`transferrableBytes` stays that total) and is removed once
    /// they are transferred; with nothing outstanding it is called once, complete.
    ///
    /// ```swift
    /// let token = session.addProgressNotification(for: .download, mode: .reportIndefinitely) { progress in
    ///     print("downloaded \(Int(progress.progressEstimate * 100)) %")
    /// }
    /// // later
    /// token?.invalidate()
    /// ```
    ///
    /// - Returns: the token that stops the notifications (never nil here; optional as in
    ///   the Realm SDK).
    @preconcurrency
    public func addProgressNotification(for direction: ProgressDirection, mode: ProgressMode,
                                        block: @escaping @Sendable (Progress) -> Void) -> ProgressNotificationToken? {
        let id = progressTokenIds.withLock { next -> UInt64 in
            next += 1
            return next
        }
        let token = ProgressNotificationToken(session: self, id: id)
        queue.async { [self] in
            if direction == .upload { measurePendingUploads() }
            progress.register(id: id, direction: direction, mode: mode, block: block)
            notifyProgress()
        }
        return token
    }

    func removeProgressNotification(_ id: UInt64) {
        queue.async { [self] in progress.unregister(id: id) }
    }

    /// Calls the progress blocks whose progress changed (on `queue`).
    func notifyProgress() {
        for (block, value) in progress.pendingNotifications() { block(value) }
    }

    /// Measures local commits not yet measured, so that upload progress counts changes
    /// made while offline too (on `queue`).
    func measurePendingUploads() {
        let head = file.latestVersion()
        guard head > progress.measuredUpTo, reset == nil else { return }
        let from = progress.measuredUpTo
        let sizes = try? file.read { txn -> [(UInt64, Int)] in
            let acknowledged = SyncProgressStore.progress(txn).acknowledgedClientVersion
            let after = max(from, acknowledged, SyncProgressStore.uploadBase(txn))
            return try ChangesetReader.localChanges(txn, after: after, through: head).map { change in
                (change.version, (try? WireChangeset(change.instructions).encoded().count) ?? 0)
            }
        }
        for (v, bytes) in sizes ?? [] { progress.measuredUpload(version: v, bytes: bytes, upTo: head) }
        progress.measuredUpTo = max(progress.measuredUpTo, head)
        notifyProgress()
    }
}

/// The byte counts behind progress notifications, and the registered blocks. Used on
/// the session's queue only.
struct TransferProgress {
    /// Bytes of changesets received (bootstrap batches as they arrive).
    private(set) var downloadedBytes = 0
    /// The server's estimate of the bytes still to come after the last download.
    private(set) var downloadableBytes = 0
    /// Bytes of local changesets the server acknowledged.
    private(set) var uploadedBytes = 0
    /// Local version → bytes, for changesets measured and not acknowledged yet.
    private var unacknowledged: [UInt64: Int] = [:]
    /// Local versions up to this one have been measured.
    var measuredUpTo: UInt64 = 0

    private struct Observer {
        let direction: SyncSession.ProgressDirection
        let block: @Sendable (SyncSession.Progress) -> Void
        /// For `.forCurrentlyOutstandingWork`: the total to reach.
        let target: Int?
        var last: SyncSession.Progress?
    }
    private var observers: [UInt64: Observer] = [:]

    var hasUploadObservers: Bool { observers.values.contains { $0.direction == .upload } }

    /// The bytes of a download's changesets, and what remains after it.
    mutating func downloaded(_ d: WireDownload) {
        downloadedBytes += d.changesets.reduce(0) { $0 + ((try? WireChangeset($1.instructions).encoded().count) ?? 0) }
        downloadableBytes = Int(clamping: d.progress.downloadableBytes)
    }

    /// A connection ended: what the server said remained will be sent again (or not).
    mutating func downloadInterrupted() {
        downloadableBytes = 0
    }

    /// Local versions up to this one are acknowledged.
    private var acknowledgedUpTo: UInt64 = 0

    /// Records the size of local changeset `version` (measured again: same size).
    mutating func measuredUpload(version: UInt64, bytes: Int, upTo head: UInt64) {
        if version > acknowledgedUpTo { unacknowledged[version] = bytes }
        measuredUpTo = max(measuredUpTo, head)
    }

    mutating func acknowledged(upTo version: UInt64) {
        acknowledgedUpTo = max(acknowledgedUpTo, version)
        for (v, bytes) in unacknowledged where v <= version {
            uploadedBytes += bytes
            unacknowledged[v] = nil
        }
    }

    /// Forgets the unacknowledged changesets (a client reset replaced them).
    mutating func discardUnacknowledged(measuredUpTo version: UInt64) {
        unacknowledged = [:]
        measuredUpTo = version
        acknowledgedUpTo = 0
    }

    func current(_ direction: SyncSession.ProgressDirection) -> SyncSession.Progress {
        switch direction {
        case .download:
            return SyncSession.Progress(transferredBytes: downloadedBytes, transferrableBytes: downloadedBytes + downloadableBytes)
        case .upload:
            return SyncSession.Progress(transferredBytes: uploadedBytes, transferrableBytes: uploadedBytes + unacknowledged.values.reduce(0, +))
        }
    }

    mutating func register(id: UInt64, direction: SyncSession.ProgressDirection, mode: SyncSession.ProgressMode,
                           block: @escaping @Sendable (SyncSession.Progress) -> Void) {
        let now = current(direction)
        observers[id] = Observer(direction: direction, block: block,
                                 target: mode == .forCurrentlyOutstandingWork ? now.transferrableBytes : nil, last: nil)
    }

    mutating func unregister(id: UInt64) {
        observers[id] = nil
    }

    /// The blocks to call and what to pass them: those whose progress changed since
    /// they were last called. Outstanding-work observers that are complete are removed.
    mutating func pendingNotifications() -> [(@Sendable (SyncSession.Progress) -> Void, SyncSession.Progress)] {
        var out: [(@Sendable (SyncSession.Progress) -> Void, SyncSession.Progress)] = []
        for id in observers.keys.sorted() {
            guard var observer = observers[id] else { continue }
            let now = current(observer.direction)
            let value = observer.target.map {
                SyncSession.Progress(transferredBytes: min(now.transferredBytes, $0), transferrableBytes: $0)
            } ?? now
            if value != observer.last {
                observer.last = value
                out.append((observer.block, value))
            }
            observers[id] = observer.target != nil && value.isTransferComplete ? nil : observer
        }
        return out
    }
}

/// Stops a progress notification when invalidated.
public final class ProgressNotificationToken: @unchecked Sendable {
    weak var session: SyncSession?
    let id: UInt64

    init(session: SyncSession, id: UInt64) {
        self.session = session
        self.id = id
    }

    /// Stops the notifications. The session's queue handles the call after any
    /// notification already under way; no block is called after that.
    public func invalidate() {
        session?.removeProgressNotification(id)
    }
}
