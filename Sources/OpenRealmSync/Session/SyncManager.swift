import Foundation
import OpenRealm
import Synchronization

/// A handler of sync errors: the error (a ``SyncError`` for session errors) and the
/// session it concerns, when there is one. Called on a sync queue.
@preconcurrency
public typealias ErrorReportingBlock = @Sendable (Error, SyncSession?) -> Void

/// App-wide sync settings: where sync errors the app did not wait for are reported
/// (refused subscriptions, rejected writes, sessions the server ended), and how much the
/// sessions log.
///
/// ```swift
/// app.syncManager.errorHandler = { error, session in print("sync error: \(error)") }
/// app.syncManager.logLevel = .detail   // each connection's life, on standard error
/// ```
public final class SyncManager: Sendable {
    /// The handler as set: called on sync queues, as the Realm SDK calls it, though its
    /// type (like the SDK's) does not require it to be `Sendable`.
    private let handler = Mutex<UncheckedHandler?>(nil)

    private struct UncheckedHandler: @unchecked Sendable {
        let call: (Error, SyncSession?) -> Void
    }
    private let logSettings = Mutex<(level: SyncLogLevel?, logger: SyncLogFunction?)>((nil, nil))

    /// The most detailed level logged. Until it is set, the shared `Logger`'s level
    /// (`.info` by default) decides.
    public var logLevel: SyncLogLevel {
        get { logSettings.withLock { $0.level } ?? SyncLogLevel(rawValue: Int(Logger.shared.level.rawValue)) ?? .info }
        set { logSettings.withLock { $0.level = newValue } }
    }

    /// Receives the log lines at or below ``logLevel``; nil (the default) passes them to
    /// `Logger.shared` (whose default writes them to standard error) with `"Sync: "` first.
    public var logger: SyncLogFunction? {
        get { logSettings.withLock { $0.logger } }
        set { logSettings.withLock { $0.logger = newValue } }
    }

    /// Logs `message` when `level` is enabled; the message is built only then.
    func log(_ level: SyncLogLevel, _ message: @autoclosure () -> String) {
        guard level != .off else { return }
        let (setLevel, logger) = logSettings.withLock { ($0.level, $0.logger) }
        let shared = Logger.shared
        let sharedLevel = LogLevel(rawValue: UInt(level.rawValue)) ?? .all
        // The shared logger's own level applies when this manager's was never set.
        let enabled = setLevel.map { $0 >= level } ?? shared.isEnabled(sharedLevel)
        guard enabled else { return }
        let text = message()
        if let logger {
            logger(level, text)
        } else {
            shared.write(sharedLevel, "Sync: " + text)
        }
    }

    /// Called on a sync queue with each error; nil to ignore them.
    public var errorHandler: ((Error, SyncSession?) -> Void)? {
        get { handler.withLock { $0?.call } }
        set { handler.withLock { $0 = newValue.map(UncheckedHandler.init) } }
    }
}

extension App {
    /// The app's sync settings.
    public var syncManager: SyncManager { state.syncManager }
}

/// The sync sessions of this process, one per realm file.
final class SyncSessionRegistry: Sendable {
    static let shared = SyncSessionRegistry()

    private let sessions = Mutex<[String: SyncSession]>([:])

    /// The running session of `path`, if any.
    func existing(path: String) -> SyncSession? { sessions.withLock { $0[path] } }

    /// The session of a synced configuration's file, started (and the file opened, its
    /// initial subscriptions run) when this process has none yet.
    ///
    /// - Throws: `SyncError.notSynced` for a local configuration; what opening the file throws.
    func session(for configuration: Realm.Configuration) throws -> SyncSession {
        guard let sync = configuration.syncConfiguration else {
            throw SyncError(.notSynced, "The configuration has no sync configuration: open the realm with user.flexibleSyncConfiguration() or user.configuration(partitionValue:).")
        }
        let path = try configuration.resolvedPath()
        if let running = existing(path: path), running.state != .inactive { return running }
        guard sync.user.isLoggedIn else {
            throw SyncError(.authenticationFailed, "User \(sync.user.id) is logged out: log in again to open its synced realm.")
        }
        // Opening a Realm creates the file and its schema; the session keeps the file open.
        let realm = try Realm(configuration: configuration)
        let file = FileAccess(coordinator: realm._coordinator)
        let (session, created) = sessions.withLock { table -> (SyncSession, Bool) in
            if let running = table[path], running.state != .inactive { return (running, false) }
            let session = SyncSession(file: file, configuration: sync, realmConfiguration: configuration)
            table[path] = session
            return (session, true)
        }
        guard created else { return session }
        if let store = session.subscriptionStore, let initial = sync.initialSubscriptions,
           !store.load().isInitialized || sync.rerunOnOpen {
            let set = SyncSubscriptionSet(store: store, session: nil)
            _ = try set.commitBlock(reassigningNames: true) { initial(set) }
        }
        try session.start()
        return session
    }

    /// Removes and stops the session of `path` (its file is being moved aside or deleted).
    func remove(path: String) {
        let removed = sessions.withLock { $0.removeValue(forKey: path) }
        removed?.stop()
    }

    /// Stops the sessions of a user (logout).
    func stopSessions(of user: User) {
        let stopped = sessions.withLock { table -> [SyncSession] in
            let mine = table.filter { $0.value.user == user }
            for key in mine.keys { table[key] = nil }
            return Array(mine.values)
        }
        for session in stopped { session.stop() }
    }
}
