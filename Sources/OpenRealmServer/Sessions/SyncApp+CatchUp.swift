import Foundation
import OpenRealmWire

/// Catch-up: with several engines over one store (``StorageTopology/shared``), each
/// engine delivers to its own sessions, in server version order, the versions the
/// others committed — from its ``SyncApp/serverVersion`` (what its sessions were sent)
/// to the committed version — before anything of its own.
///
/// Each such version is fanned out as the engine that committed it fanned it out to
/// its sessions (``ChangesetFanOut``), except that membership is decided and entering
/// objects are sent from the post-images kept with the entry (``RecordedMembership``,
/// ``PostImages``): the store holds later versions' objects, and a client must never
/// receive an object its view did not hold at that version, nor miss one it did.
///
/// When it runs (always with the engine's ``SyncApp/syncLock``, which comes before the
/// store's write lock):
/// - when the feed wakes the engine after another engine's commit (``wake()``), in a
///   read unit;
/// - inside each write unit of the engine's own (an upload group, a changeset alone, a
///   view change), before anything is written: under the store's write lock nothing
///   else commits, so the engine's next version follows every version its sessions
///   were sent. Those deliveries stand whether or not the unit then commits: their
///   versions are committed already.
///
/// Sessions that have had no view yet are left out: their first view's bootstrap is
/// computed at a later version and holds what these versions did.
///
/// A version that cannot be delivered (``CatchUpError``: its history entry was trimmed
/// before this engine got to it, or it was committed without post-images) does not stop
/// the engine: the sessions that have had a view have their connections closed, and
/// their clients bind again from what they hold (``cutOff(_:at:through:)``).
extension SyncApp {
    /// Delivers the versions other engines committed after ``serverVersion``. Call with
    /// ``syncLock`` held; does nothing for an engine alone with its store.
    ///
    /// - Throws: the store's errors, or ``CatchUpError`` for a version whose history
    ///   entry or post-images are missing.
    func catchUp() throws {
        guard topology == .shared, try storage.commitFeed.committedVersion() > serverVersion else { return }
        try storage.read { unit in try catchUp(in: unit) }
    }

    /// Delivers the versions after ``serverVersion`` that `unit` sees committed. Call
    /// with ``syncLock`` held, first thing in a write unit (before anything is written).
    func catchUp(in unit: some VersionReading & HistoryReading & PostImageReading & SchemaReading) throws {
        guard topology == .shared else { return }
        let last = try unit.serverVersion()
        guard last > serverVersion else { return }
        let sessions = boundSessions.filter(\.hasHadView)
        guard !sessions.isEmpty else {
            // No session to send them to: the versions are delivered as they stand.
            didDeliver(serverVersion: last)
            return
        }
        let schema = try unit.schema()
        while serverVersion < last {
            let version = serverVersion + 1
            do {
                guard let entry = try unit.historyEntry(version) else { throw CatchUpError.missingEntry(version) }
                let applied = try WireChangeset(decoding: entry.changeset).instructions
                if applied.contains(where: { $0.topLevelObject != nil }) {
                    guard let images = try unit.postImages(version) else { throw CatchUpError.missingPostImages(version) }
                    let fanOut = try ChangesetFanOut(applied, to: sessions, objects: images,
                                                     membership: RecordedMembership(images, schema: schema))
                    fanOut.applyViews()
                    fanOut.send(serverVersion: version, originFileIdent: entry.originFileIdent,
                                originClientVersion: entry.originClientVersion, timestamp: entry.timestamp)
                }
            } catch let failure as CatchUpError {
                cutOff(sessions, at: failure, through: last)
                return
            }
            didDeliver(serverVersion: version)
        }
    }

    /// What an engine does when it cannot deliver a version to its sessions (its history
    /// entry was trimmed first, or it has no post-images): their connections are closed
    /// after what they were sent, so that each client binds again from the version it
    /// has — and is served from the history, or told to reset, as any client that was
    /// away — and the engine goes on from `last`. Sessions that have had no view yet are
    /// kept: their first bootstrap is read at a later version. Call with ``syncLock`` held.
    private func cutOff(_ sessions: [ServerSession], at failure: CatchUpError, through last: UInt64) {
        logger.warning("an engine could not deliver another engine's versions: closing its sessions so their clients bind again",
                       metadata: ["app": "\(appId)", "reason": "\(failure)", "sessions": "\(sessions.count)",
                                  "through": "\(last)"])
        // The close follows everything already sent on each connection, and nothing is
        // sent after it: a client never sees a later version without the ones before.
        for session in sessions { session.output(.close) }
        didDeliver(serverVersion: last)
    }

    /// The feed's wake-up: catches up off the committing thread (which may hold its own
    /// engine's lock), once for any number of wake-ups that arrive meanwhile.
    func wake() {
        wakeUps.schedule { [weak self] in
            guard let self else { return }
            do {
                try withSyncLock { try catchUp() }
            } catch {
                // The feed wakes an engine once per version it announces: an engine whose
                // catch-up failed (the database unreachable for a moment) tries again by
                // itself, or its sessions would wait for the next commit anywhere.
                logger.error("catching up on other engines' versions failed; trying again in \(Self.catchUpRetryDelay)",
                             metadata: ["app": "\(appId)", "error": "\(error)"])
                wakeUps.retry(after: Self.catchUpRetryDelay) { [weak self] in self?.wake() }
            }
        }
    }

    /// How long an engine waits before it tries a failed catch-up again.
    static let catchUpRetryDelay: Duration = .seconds(1)
}

/// Why an engine could not deliver a version another engine committed.
enum CatchUpError: Error, CustomStringConvertible {
    /// The history has no entry for the version (trimmed before this engine delivered it).
    case missingEntry(UInt64)
    /// The entry touches objects but no post-images were kept with it (it was committed
    /// while the store was not shared).
    case missingPostImages(UInt64)

    var description: String {
        switch self {
        case .missingEntry(let v):
            return "server version \(v) is not in the history (trimmed before this engine delivered it to its sessions)"
        case .missingPostImages(let v):
            return "server version \(v) has no post-images (committed while the store was not shared), so its fan-out cannot be decided"
        }
    }
}

/// Runs scheduled catch-ups one at a time on a queue of their own; a catch-up asked for
/// while one waits to run is that one (it reads whatever is committed when it runs).
final class CatchUpWakeUps: @unchecked Sendable {
    private let queue = DispatchQueue(label: "openrealm-server.catch-up")
    private let lock = NSLock()
    /// Whether a catch-up is queued and not yet started (guarded by ``lock``).
    private var pending = false
    /// Whether a retry of a failed catch-up is waiting (guarded by ``lock``).
    private var retryWaiting = false

    /// Queues `work` unless a queued one has not started yet.
    func schedule(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        let queued = pending
        pending = true
        lock.unlock()
        guard !queued else { return }
        queue.async { [self] in
            lock.lock()
            pending = false
            lock.unlock()
            work()
        }
    }

    /// Runs `work` after `delay` unless a retry is waiting already: at most one per
    /// engine, however many catch-ups fail meanwhile.
    func retry(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        lock.lock()
        let waiting = retryWaiting
        retryWaiting = true
        lock.unlock()
        guard !waiting else { return }
        let parts = delay.components
        let nanoseconds = Int(parts.seconds) * 1_000_000_000 + Int(parts.attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            lock.lock()
            retryWaiting = false
            lock.unlock()
            work()
        }
    }

    /// Waits until the catch-ups queued so far have run.
    func drain() {
        queue.sync {}
    }
}
