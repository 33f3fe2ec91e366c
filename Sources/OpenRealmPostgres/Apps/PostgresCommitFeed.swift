import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The feed of committed versions on PostgreSQL: how a process learns that another
/// process committed a version of an app it serves, so that it can catch up and fan
/// the version out to its own clients.
///
/// The history table is the feed; this only wakes. A committing unit announces its
/// version with `NOTIFY` (``announce(appId:version:in:)``, delivered when the unit
/// commits, never when it rolls back). Each process listens on one connection of its
/// own; a notification is lost when that connection drops, so the feed also:
/// - reads every subscribed app's latest version when its listener (re)connects, and
/// - polls them every `pollInterval`,
/// and wakes an app's subscribers whenever it sees the app's version pass the one it
/// last saw. A wake says only "look": the woken engine reads what it missed itself.
///
/// Wakes run on the feed's task: a subscriber hands the work elsewhere and returns.
package final class PostgresCommitFeed: Sendable {
    /// The channel of the announcements; the payload is `<app id>:<server version>`.
    package static let channel = "openrealm_commits"

    /// A subscription's handle, for ``unsubscribe(_:)``.
    package struct Subscription: Hashable, Sendable {
        let id: UInt64
    }

    private struct Subscriber {
        let appId: String
        let wake: @Sendable () -> Void
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextId: UInt64 = 0
        /// The latest version seen of each subscribed app.
        var seen: [String: UInt64] = [:]
        var listening = false
        var tasks: [Task<Void, Never>] = []
    }

    private let database: DatabasePool
    private let pollInterval: Duration
    private let reconnectDelay: Duration
    private let logger: Logger
    private let state = Mutex(State())

    package init(database: DatabasePool, pollInterval: Duration = .seconds(5), reconnectDelay: Duration = .milliseconds(500)) {
        self.database = database
        self.pollInterval = pollInterval
        self.reconnectDelay = reconnectDelay
        logger = database.logger
    }

    deinit {
        for task in state.withLock({ $0.tasks }) { task.cancel() }
    }

    /// Starts listening and polling (once; later calls do nothing).
    package func start() {
        state.withLock { state in
            guard state.tasks.isEmpty else { return }
            state.tasks = [
                Task.detached { [weak self] in await self?.listen() },
                Task.detached { [weak self] in await self?.pollPeriodically() },
            ]
        }
    }

    /// Stops listening and polling. A wake already under way may still finish.
    package func stop() {
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
    }

    /// Whether the listener's `LISTEN` is in effect now (for health checks and tests).
    package var isListening: Bool { state.withLock { $0.listening } }

    /// Calls `wake` whenever a version of `appId` later than the last one seen is
    /// committed, by any process.
    package func subscribe(appId: String, wake: @escaping @Sendable () -> Void) -> Subscription {
        state.withLock { state in
            state.nextId += 1
            state.subscribers[state.nextId] = Subscriber(appId: appId, wake: wake)
            return Subscription(id: state.nextId)
        }
    }

    package func unsubscribe(_ subscription: Subscription) {
        state.withLock { state in
            guard let gone = state.subscribers.removeValue(forKey: subscription.id) else { return }
            if !state.subscribers.values.contains(where: { $0.appId == gone.appId }) { state.seen[gone.appId] = nil }
        }
    }

    /// The latest committed version of `appId`, without its lock (blocks the calling
    /// thread; see ``DatabasePool``).
    package func committedVersion(appId: String) throws -> UInt64 {
        try PostgresApp(database: database, appId: appId).committedVersion()
    }

    /// Announces `version` of `appId` to every process's feed when `unit` commits.
    package static func announce(appId: String, version: UInt64, in unit: PostgresUnit) throws {
        try unit.perform("SELECT pg_notify(\(channel), \(appId + ":" + String(version)))")
    }

    // MARK: - Listening and polling

    private func listen() async {
        let name = database.location.applicationName + " (commit feed)"
        while !Task.isCancelled {
            do {
                let configuration = try database.connectionConfiguration(applicationName: name)
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        state.withLock { $0.listening = true }
                        // What committed while no LISTEN was in effect.
                        await poll()
                        for try await notification in notifications { notified(notification.payload) }
                    }
                } catch {
                    state.withLock { $0.listening = false }
                    try? await connection.close()
                    throw error
                }
                state.withLock { $0.listening = false }
                try? await connection.close()
            } catch where !Task.isCancelled {
                logger.warning("the commit feed lost its connection to \(database.location); polling until it is back",
                               metadata: ["error": "\(error)"])
            } catch {}
            try? await Task.sleep(for: reconnectDelay)
        }
    }

    private func pollPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: pollInterval)
            if !Task.isCancelled { await poll() }
        }
    }

    /// Reads the latest version of every subscribed app and wakes those that moved.
    private func poll() async {
        let apps = state.withLock { Array(Set($0.subscribers.values.map(\.appId))) }
        guard !apps.isEmpty else { return }
        do {
            let versions = try await database.client.withConnection { [logger] connection in
                var versions: [(String, Int64)] = []
                let rows = try await connection.query(
                    "SELECT app_id, server_version FROM openrealm_apps WHERE app_id = ANY(\(apps))", logger: logger)
                for try await row in rows.decode((String, Int64).self) { versions.append(row) }
                return versions
            }
            for (appId, version) in versions { advance(appId, to: UInt64(max(0, version))) }
        } catch {
            logger.warning("the commit feed cannot read the apps' versions from \(database.location)",
                           metadata: ["error": "\(error)"])
        }
    }

    /// A notification: `<app id>:<version>`; anything else on the channel is ignored
    /// (the poll still sees every commit).
    private func notified(_ payload: String) {
        guard let colon = payload.lastIndex(of: ":"), let version = UInt64(payload[payload.index(after: colon)...]) else { return }
        advance(String(payload[..<colon]), to: version)
    }

    private func advance(_ appId: String, to version: UInt64) {
        let wakes: [@Sendable () -> Void] = state.withLock { state in
            let subscribers = state.subscribers.values.filter { $0.appId == appId }
            guard !subscribers.isEmpty else { return [] }
            // The first version seen of an app wakes too: it may be news to a subscriber.
            if let last = state.seen[appId], version <= last { return [] }
            state.seen[appId] = version
            return subscribers.map(\.wake)
        }
        for wake in wakes { wake() }
    }
}
