import Foundation
import Logging
import OpenRealmServer
import PostgresNIO

/// The PostgreSQL store as a ``ServerStorage``: every app in one database, shared with
/// the other server processes on it (``StorageTopology/shared``: each engine keeps
/// post-images and catches up on the others' versions), the signing keys in the database
/// (``PostgresSigningKeys``), one commit feed per process (``PostgresCommitFeed``,
/// started here, stopped by ``close()``).
package final class PostgresStorage: ServerStorage, @unchecked Sendable {
    package let database: DatabasePool
    package let feed: PostgresCommitFeed
    package let signingKeys: any SigningKeyStore
    private let lock = NSLock()
    /// The apps opened so far (guarded by ``lock``).
    private var apps: [String: PostgresAppStorage] = [:]

    package var topology: StorageTopology { .shared }

    /// The storage on `database` (opened and migrated: ``DatabasePool/open(_:logger:)``),
    /// its feed started.
    package init(database: DatabasePool, feed: PostgresCommitFeed? = nil) {
        self.database = database
        self.feed = feed ?? PostgresCommitFeed(database: database)
        signingKeys = PostgresSigningKeys(database: database)
        self.feed.start()
    }

    /// Stops the commit feed (the pool is its opener's to close).
    package func close() {
        feed.stop()
    }

    package func app(_ appId: String) throws -> any AppStorage {
        try postgresApp(appId)
    }

    /// ``app(_:)`` as this store's own type: makes the app's row on first use.
    package func postgresApp(_ appId: String) throws -> PostgresAppStorage {
        if let app = lock.withLock({ apps[appId] }) { return app }
        try database.transaction("make app '\(appId)'") { [logger = database.logger] connection in
            try await connection.perform("INSERT INTO openrealm_apps (app_id) VALUES (\(appId)) ON CONFLICT DO NOTHING", logger: logger)
        }
        return lock.withLock {
            if let app = apps[appId] { return app }
            let app = PostgresAppStorage(database: database, feed: feed, appId: appId)
            apps[appId] = app
            return app
        }
    }

    /// Whether the app has its row; false when the database cannot be asked (opening
    /// the app then names the database's failure).
    package func hasApp(_ appId: String) -> Bool {
        if lock.withLock({ apps[appId] }) != nil { return true }
        return (try? database.withConnection("look app '\(appId)' up") { [logger = database.logger] connection in
            var found = false
            for try await _ in try await connection.query("SELECT 1 FROM openrealm_apps WHERE app_id = \(appId)",
                                                          logger: logger).decode(Int32.self) { found = true }
            return found
        }) ?? false
    }

    /// How many apps have a row; `Int.max` when the database cannot be asked, so that
    /// development mode's bound refuses new apps rather than letting them through.
    package func appCount() -> Int {
        (try? database.withConnection("count the apps") { [logger = database.logger] connection in
            var count: Int64 = 0
            for try await value in try await connection.query("SELECT count(*) FROM openrealm_apps", logger: logger)
                .decode(Int64.self) { count = value }
            return Int(count)
        }) ?? Int.max
    }
}
