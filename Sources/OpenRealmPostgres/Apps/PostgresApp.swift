import PostgresNIO

/// One app in the database, and its write lock: the row of `openrealm_apps`, locked
/// `FOR UPDATE` by the unit that writes the app's history. A sequence would not do: it
/// hands out numbers in the order of asking, not of committing, so a reader could see
/// version 8 committed before 7. Holding the row from reading the version to the commit
/// makes versions contiguous and committed in order, across processes.
package struct PostgresApp: Sendable {
    package let database: DatabasePool
    package let appId: String

    package init(database: DatabasePool, appId: String) {
        self.database = database
        self.appId = appId
    }

    /// Runs `body` in a unit holding the app's write lock, with the app's latest server
    /// version as of taking it. Other processes' locked units for the app wait.
    package func withWriteLock<T>(_ operation: String, _ body: (PostgresUnit, _ serverVersion: UInt64) throws -> T) throws -> T {
        try database.unit(operation) { unit in
            // One round trip once the app has its row; its first unit makes it.
            let lock = { () throws -> Int64? in
                try unit.query("SELECT server_version FROM openrealm_apps WHERE app_id = \(appId) FOR UPDATE") { rows in
                    var version: Int64?
                    for try await value in rows.decode(Int64.self) { version = value }
                    return version
                }
            }
            var version = try lock()
            if version == nil {
                try unit.perform("INSERT INTO openrealm_apps (app_id) VALUES (\(appId)) ON CONFLICT DO NOTHING")
                version = try lock()
            }
            return try body(unit, UInt64(version ?? 0))
        }
    }

    /// Records `serverVersion` as the app's latest, inside its locked unit.
    package func setServerVersion(_ serverVersion: UInt64, in unit: PostgresUnit) throws {
        try unit.perform("UPDATE openrealm_apps SET server_version = \(Int64(serverVersion)) WHERE app_id = \(appId)")
    }

    /// The latest committed server version, without the lock (0 for an app with none).
    package func committedVersion() throws -> UInt64 {
        try database.withConnection("read the server version") { [appId, logger = database.logger] connection in
            var version: Int64 = 0
            for try await value in try await connection.query(
                "SELECT server_version FROM openrealm_apps WHERE app_id = \(appId)", logger: logger).decode(Int64.self) {
                version = value
            }
            return UInt64(version)
        }
    }
}
