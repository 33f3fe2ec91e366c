import OpenRealmServer

/// One app's feed of committed versions on PostgreSQL, as the engine's catch-up asks for
/// it (``CommitFeed``): the process's one ``PostgresCommitFeed``, seen through one app.
/// A commit announces itself inside its unit (`NOTIFY`, ``PostgresCommitFeed/announce(appId:version:in:)``),
/// so a subscriber's own ``CommitFeedSubscription/didCommit(_:)`` has nothing left to do.
package final class PostgresAppCommitFeed: CommitFeed {
    package let feed: PostgresCommitFeed
    package let appId: String

    package init(feed: PostgresCommitFeed, appId: String) {
        self.feed = feed
        self.appId = appId
    }

    package func committedVersion() throws -> UInt64 {
        try feed.committedVersion(appId: appId)
    }

    package func subscribe(_ wake: @escaping @Sendable () -> Void) -> any CommitFeedSubscription {
        Subscription(feed: feed, subscription: feed.subscribe(appId: appId, wake: wake))
    }

    private final class Subscription: CommitFeedSubscription {
        let feed: PostgresCommitFeed
        let subscription: PostgresCommitFeed.Subscription

        init(feed: PostgresCommitFeed, subscription: PostgresCommitFeed.Subscription) {
            self.feed = feed
            self.subscription = subscription
        }

        func didCommit(_ version: UInt64) {}

        func cancel() { feed.unsubscribe(subscription) }
    }
}
