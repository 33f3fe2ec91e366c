import Foundation
import Logging
import OpenRealmWire

/// One app the server serves: its configuration, its storage (``AppStorage``) and its
/// bound sessions.
///
/// Integration, view changes and fan-out are serialized by the app's sync lock
/// (``syncLock``), so that every session sees changes in server version order. The
/// set of bound sessions has a lock of its own (``sessionsLock``, held only for a moment)
/// so that a bind need not wait behind a long integration: a session registered while an
/// integration runs has no view yet, so that integration has nothing to send it.
///
/// When several engines share the store (``StorageTopology/shared``), each delivers to
/// its own sessions the versions the others commit (``catchUp()``, SyncApp+CatchUp.swift).
final class SyncApp: @unchecked Sendable {
    let configuration: ServerAppConfiguration
    /// The app's storage: its units of work, accounts, rate limits and commit feed.
    let storage: any AppStorage
    /// Whether other engines share the store.
    let topology: StorageTopology
    let logger: Logger
    /// The app id.
    var appId: String { storage.appId }
    /// The app's users, tokens and API keys.
    var accounts: any AccountStore { storage.accounts }
    /// The read and write rules, checked.
    let rules: AppRules
    /// Guards ``sessions`` and ``pendingProgress``; never held while waiting for anything.
    let sessionsLock = NSLock()
    /// The bound sessions (guarded by ``sessionsLock``).
    private(set) var sessions: [ObjectIdentifier: ServerSession] = [:]
    /// The download progress binds reported, by client file, not yet recorded in the
    /// store (guarded by ``sessionsLock``): the next write under ``syncLock`` records
    /// it (``recordPendingProgress(_:)``), so that a bind writes nothing.
    private var pendingProgress: [UInt64: UInt64] = [:]
    /// Uploads waiting to be integrated (group commit, ``UploadQueue``).
    let uploads = UploadQueue()
    /// The history's list instructions by object, for transforming uploads (guarded by
    /// ``syncLock``).
    let historyIndex = HistoryIndex()
    /// Serializes integration, view changes and fan-out for this app.
    let syncLock = NSLock()
    /// The latest server version this engine committed or delivered to its sessions
    /// (the design's `deliveredVersion`; guarded by ``syncLock`` for writes). With a
    /// shared store, the committed version may be ahead until ``catchUp()``.
    private(set) var serverVersion: UInt64
    /// The server version of the last attempt to trim the history (guarded by ``syncLock``).
    private var lastTrimAttempt: UInt64 = 0
    /// The token buckets of logins, mails and new client files.
    var loginLimiter: any RateLimitStore { storage.rateLimits }

    /// Whether the app's sync mode follows its first client (development mode: no
    /// configuration says whether it is partition-based).
    let followsFirstClient: Bool
    /// This engine's place in the store's commit feed (shared stores only).
    private var feed: (any CommitFeedSubscription)?
    /// Wake-ups from the feed, run one at a time off the committing thread.
    let wakeUps = CatchUpWakeUps()
    /// Guards the development-mode decision.
    private let modeLock = NSLock()
    /// The decision once made or read (guarded by ``modeLock``).
    private var partitioned: Bool?

    /// The partition field development mode gives an app whose first client bound with
    /// a partition value (objects of classes without it keep their partition in a hidden
    /// column).
    static let developmentPartitionField = "_partition"

    init(configuration: ServerAppConfiguration, storage: any AppStorage, followsFirstClient: Bool = false,
         topology: StorageTopology = .singleProcess, logger: Logger = Logger(label: "openrealm-server")) throws {
        self.configuration = configuration
        self.storage = storage
        self.topology = topology
        self.logger = logger
        self.rules = try AppRules(configuration)
        self.followsFirstClient = followsFirstClient
        serverVersion = try storage.read { unit in try unit.serverVersion() }
        if topology == .shared {
            try storage.keepPostImages()
            feed = storage.commitFeed.subscribe { [weak self] in self?.wake() }
        }
    }

    deinit {
        feed?.cancel()
    }

    /// Leaves the store's commit feed and waits for a wake-up already under way: the
    /// engine then catches up only before its own writes, as after a lost wake-up
    /// (tests).
    func stopWakeUps() {
        feed?.cancel()
        wakeUps.drain()
    }

    /// Runs `body` holding the app's sync lock.
    func withSyncLock<T>(_ body: () throws -> T) rethrows -> T {
        syncLock.lock()
        defer { syncLock.unlock() }
        return try body()
    }

    /// Records the server version a committed integration or view change produced. Call
    /// with ``syncLock`` held.
    func didCommit(serverVersion version: UInt64) {
        serverVersion = version
        feed?.didCommit(version)
    }

    /// Records that the sessions were sent `version`, which another engine committed
    /// (``catchUp()``). Call with ``syncLock`` held.
    func didDeliver(serverVersion version: UInt64) {
        serverVersion = version
    }

    /// Trims the history (``AppStorage/trimHistory(retentionSeconds:bound:now:)``) when at
    /// least `interval` server versions passed since the last attempt, waiting for the
    /// bound sessions' files. Call with ``syncLock`` held.
    func trimHistoryIfDue(retentionSeconds: Int64, interval: Int64, bound: Set<UInt64>) throws {
        guard serverVersion >= lastTrimAttempt &+ UInt64(max(1, interval)) else { return }
        lastTrimAttempt = serverVersion
        try storage.trimHistory(retentionSeconds: retentionSeconds, bound: bound)
    }

    /// The partition field a bind in `mode` is judged by: the configuration's (nil:
    /// flexible sync). An app that follows its first client takes that client's mode,
    /// once, and keeps it in its store (`development.partitioned`).
    ///
    /// - Returns: the field, and whether this bind decided the app's mode.
    func partitionField(forBindIn mode: WireSyncMode) throws -> (field: String?, decided: Bool) {
        guard followsFirstClient else { return (configuration.partitionField, false) }
        modeLock.lock()
        defer { modeLock.unlock() }
        var decided = false
        if partitioned == nil { partitioned = try storage.syncMode.decidedPartitioned() }
        if partitioned == nil {
            var chosen = false
            if case .partition = mode { chosen = true }
            (partitioned, decided) = try storage.syncMode.decide(partitioned: chosen)
        }
        return (partitioned == true ? Self.developmentPartitionField : nil, decided)
    }

    /// Registers a bound session and runs `body` (its `ident`) before any other session's
    /// integration can see it; records `progress` (the bind's download progress) with the
    /// next write.
    func register(_ session: ServerSession, progress: UInt64, then body: () -> Void) {
        sessionsLock.lock()
        defer { sessionsLock.unlock() }
        sessions[ObjectIdentifier(session)] = session
        pendingProgress[session.fileIdent] = max(pendingProgress[session.fileIdent] ?? 0, progress)
        body()
    }

    /// Registers a session (a partition bind, under the store's lock).
    func register(_ session: ServerSession) {
        sessionsLock.lock()
        sessions[ObjectIdentifier(session)] = session
        sessionsLock.unlock()
    }

    /// Removes a session; false when it was not registered.
    @discardableResult
    func unregister(_ session: ServerSession) -> Bool {
        sessionsLock.lock()
        defer { sessionsLock.unlock() }
        return sessions.removeValue(forKey: ObjectIdentifier(session)) != nil
    }

    /// The bound sessions now.
    var boundSessions: [ServerSession] {
        sessionsLock.lock()
        defer { sessionsLock.unlock() }
        return Array(sessions.values)
    }

    /// The client files of the bound sessions now.
    var boundFiles: Set<UInt64> {
        sessionsLock.lock()
        defer { sessionsLock.unlock() }
        return Set(sessions.values.map(\.fileIdent))
    }

    /// Records in `txn` the download progress of the binds since the last call
    /// (``ClientFileWriting/recordProgress(_:serverVersion:)``). Call inside a unit
    /// holding the app's write lock, run with ``syncLock`` held. If the unit is aborted, that
    /// progress is not recorded: it is informational, and a bound file is kept as seen
    /// by being bound (``HistoryTrimmer``).
    func recordPendingProgress(_ txn: some ClientFileWriting) throws {
        sessionsLock.lock()
        let pending = pendingProgress
        pendingProgress = [:]
        sessionsLock.unlock()
        for (ident, version) in pending {
            try txn.recordProgress(ident, serverVersion: version)
        }
    }
}

/// The apps of a server, each opened on first use through its ``ServerStorage``.
final class AppRegistry: @unchecked Sendable {
    /// Where the apps' storage is.
    let storage: any ServerStorage
    /// The configured app, or nil in development mode (any app id).
    let configured: ServerAppConfiguration?
    private let lock = NSLock()
    private var apps: [String: SyncApp] = [:]

    /// In development mode, the most apps the storage may hold: a new app id past it is
    /// refused, so that strangers cannot fill the disk and the descriptor table with
    /// stores.
    let maxDevelopmentApps: Int

    init(storage: any ServerStorage, configured: ServerAppConfiguration?, maxDevelopmentApps: Int = 20) {
        self.storage = storage
        self.configured = configured
        self.maxDevelopmentApps = maxDevelopmentApps
    }

    /// Whether `id` can name an app (it becomes a directory name).
    static func isValidAppId(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), !id.hasPrefix(".") else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    /// The app `id`, opening its storage on first use.
    ///
    /// - Throws: ``AuthError`` `BadRequest` for an id that cannot name an app,
    ///   `AppNotFound` for an id other than the configured one, `InternalServerError`
    ///   when the store cannot be opened.
    func app(_ id: String) throws(AuthError) -> SyncApp {
        guard Self.isValidAppId(id) else {
            throw .badRequest("app id \"\(id)\" must be 1–64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        if let configured, configured.appId != id { throw .appNotFound(id) }
        lock.lock()
        defer { lock.unlock() }
        if let app = apps[id] { return app }
        if configured == nil, !storage.hasApp(id) {
            let existing = storage.appCount()
            guard existing < maxDevelopmentApps else {
                throw AuthError(status: 404, code: "AppNotFound",
                                "no app '\(id)': this development server already holds \(existing) apps, its most (--max-development-apps)")
            }
        }
        do {
            let app = try SyncApp(configuration: configured ?? .development(appId: id), storage: try storage.app(id),
                                  followsFirstClient: configured == nil, topology: storage.topology)
            apps[id] = app
            return app
        } catch {
            throw .internalError("cannot open the store of app '\(id)': \(error)")
        }
    }

    /// Every app opened so far.
    var openApps: [SyncApp] {
        lock.lock()
        defer { lock.unlock() }
        return Array(apps.values)
    }
}
