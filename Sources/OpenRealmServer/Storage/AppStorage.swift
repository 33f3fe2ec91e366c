import OpenRealmWire

/// One app's storage as the sync engine uses it (``SyncApp``): its accounts, rate limits,
/// commit feed, sync mode and configured schema, and three kinds of unit of work
/// (`docs/design/STORAGE-SEAM.md`). A ``ServerStorage`` opens it (``ServerStorage/app(_:)``);
/// the embedded store's is `EmbeddedAppStorage` (`Store/Embedded/EmbeddedStorage.swift`).
///
/// A unit's body is synchronous and the unit is valid only inside it; the store never
/// calls back into the engine. A body that throws leaves nothing written. Engine
/// functions take the narrowest composition of the `*Reading` / `*Writing` protocols
/// they need, and get the unit from one of:
///
/// | unit | what it may do | locks |
/// |---|---|---|
/// | ``read(_:)`` | read a committed snapshot (``AppReadUnit``) | none |
/// | ``write(_:)`` | change client files' records, never the history (``AppWriteUnit``) | none of the app's |
/// | ``withAppWriteLock(_:)`` | append and trim the history, change objects and the schema (``AppLockedUnit``) | the app's write lock |
///
/// The engine takes its own lock (``SyncApp/syncLock``) before the app's write lock,
/// never after.
package protocol AppStorage: AnyObject, Sendable {
    /// The app id.
    var appId: String { get }
    /// The app's users, refresh tokens, API keys and email tokens.
    var accounts: any AccountStore { get }
    /// The token buckets of logins, mails and new client files.
    var rateLimits: any RateLimitStore { get }
    /// The feed of the app's committed server versions.
    var commitFeed: any CommitFeed { get }
    /// The development sync mode, decided once.
    var syncMode: any SyncModeStore { get }

    /// Makes the store keep post-images with its history entries from now on
    /// (``PostImages``): called when the app is opened in the shared topology.
    func keepPostImages() throws

    /// The schema as the operator's `schema` command shows it.
    func storedSchema() throws -> AppSchema

    /// Adds what `schema` has and the store lacks, in a unit holding the app's write
    /// lock; returns what was added ("Class", "Class.property").
    ///
    /// - Throws: ``ServerError`` naming the class or property when `schema` conflicts
    ///   with the stored one.
    func applyConfiguredSchema(_ schema: AppSchema) throws -> [String]

    /// Runs `body` in a read unit: a committed snapshot, without any lock.
    func read<T>(_ body: (any AppReadUnit) throws -> T) throws -> T

    /// Runs `body` in a write unit that appends no history (a new client file, a
    /// restored file admitted, a bind's progress, a session's end), committed when it
    /// returns.
    func write<T>(_ body: (any AppWriteUnit) throws -> T) throws -> T

    /// Runs `body` holding the app's write lock (embedded: ORCore's write transaction;
    /// PostgreSQL: the app's row locked), committed when it returns: the only unit that
    /// appends or trims the history, so versions stay contiguous across processes.
    func withAppWriteLock<T>(_ body: (any AppLockedUnit) throws -> T) throws -> T
}

/// What a read unit offers: the latest version, the history, client files, restore
/// marks, post-images, the schema and the objects.
package protocol AppReadUnit: VersionReading, HistoryReading, ClientFileReading, RestoreMarkReading, PostImageReading, ObjectReading {}

/// What a write unit offers besides reading: client files' records (``ClientFileWriting``,
/// ``ClientFileBinding``).
package protocol AppWriteUnit: AppReadUnit, ClientFileWriting, ClientFileBinding {}

/// What a unit holding the app's write lock offers besides: the history appended and
/// trimmed, post-images, the schema and the objects changed (``ObjectWriting``).
package protocol AppLockedUnit: AppWriteUnit, HistoryTrimming, PostImageWriting, SchemaWriting, ObjectWriting {}

extension AppStorage {
    /// Trims what no client file waited for still needs (``HistoryTrimmer``), holding
    /// the app's write lock; returns the floor after.
    ///
    /// - Parameters:
    ///   - retentionSeconds: files not seen for longer are not waited for.
    ///   - bound: the files of this engine's bound sessions, always waited for.
    ///   - now: milliseconds since the epoch.
    @discardableResult
    func trimHistory(retentionSeconds: Int64, bound: Set<UInt64>,
                     now: Int64 = StorageConventions.nowMilliseconds) throws -> UInt64 {
        try withAppWriteLock { unit in
            try HistoryTrimmer.trim(unit, latest: unit.serverVersion(), retentionSeconds: retentionSeconds,
                                    bound: bound, now: now)
        }
    }
}
