import Foundation
import OpenRealmSyncCore

/// The embedded store's commit feed: engines sharing one ``AppStore`` in one process.
/// The committed version is the store's `server.version` (a read transaction, no write
/// lock); an engine's commit wakes every other subscriber at once. One engine alone is
/// never woken.
final class LocalCommitFeed: CommitFeed, @unchecked Sendable {
    private let environment: ORCoreEnvironment
    private let lock = NSLock()
    /// The subscribers' wake-ups, by subscription (guarded by ``lock``).
    private var subscribers: [ObjectIdentifier: @Sendable () -> Void] = [:]

    init(_ environment: ORCoreEnvironment) {
        self.environment = environment
    }

    func committedVersion() throws -> UInt64 {
        try environment.read { txn in try txn.metaUInt64("server.version") ?? 0 }
    }

    func subscribe(_ wake: @escaping @Sendable () -> Void) -> any CommitFeedSubscription {
        let subscription = Subscription(self)
        lock.lock()
        subscribers[ObjectIdentifier(subscription)] = wake
        lock.unlock()
        return subscription
    }

    /// Wakes every subscriber but `committer`.
    private func wakeOthers(than committer: Subscription) {
        lock.lock()
        let others = subscribers.filter { $0.key != ObjectIdentifier(committer) }.map(\.value)
        lock.unlock()
        for wake in others { wake() }
    }

    private func remove(_ subscription: Subscription) {
        lock.lock()
        subscribers[ObjectIdentifier(subscription)] = nil
        lock.unlock()
    }

    private final class Subscription: CommitFeedSubscription, @unchecked Sendable {
        private weak var feed: LocalCommitFeed?

        init(_ feed: LocalCommitFeed) {
            self.feed = feed
        }

        func didCommit(_ version: UInt64) { feed?.wakeOthers(than: self) }

        func cancel() { feed?.remove(self) }
    }
}
