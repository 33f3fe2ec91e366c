/// The feed of an app's committed server versions: how an engine learns that another
/// engine over the same store committed (`docs/design/STORAGE-SEAM.md`). The history is
/// the feed; a wake-up only says "look again", and may be lost or come twice: the
/// engine catches up from what it delivered to what is committed
/// (``SyncApp/catchUp()``), and before each integration of its own checks again under
/// the store's write lock.
///
/// The embedded store's feed is ``LocalCommitFeed`` (engines in one process); a
/// PostgreSQL store wakes on `NOTIFY`, after a `LISTEN` reconnect and on a poll timer.
package protocol CommitFeed: AnyObject, Sendable {
    /// The latest committed server version, read without the app's write lock.
    ///
    /// - Throws: the store's errors.
    func committedVersion() throws -> UInt64

    /// Calls `wake` after another subscriber's commit (possibly on that subscriber's
    /// thread, holding its locks: `wake` only schedules work, it never waits).
    func subscribe(_ wake: @escaping @Sendable () -> Void) -> any CommitFeedSubscription
}

/// One engine's place in a ``CommitFeed``.
package protocol CommitFeedSubscription: AnyObject, Sendable {
    /// The subscriber committed `version`: the feed wakes the other subscribers.
    func didCommit(_ version: UInt64)

    /// Stops the wake-ups.
    func cancel()
}
