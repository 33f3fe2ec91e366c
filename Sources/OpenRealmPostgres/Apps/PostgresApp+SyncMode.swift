import OpenRealmServer
import PostgresNIO

/// The development sync mode on the app's row: the first process to decide it wins,
/// every other reads what it decided.
extension PostgresApp: SyncModeStore {
    package func decidedPartitioned() throws -> Bool? {
        try database.withConnection("read the app's sync mode") { [appId, logger = database.logger] connection in
            var decided: Bool?
            for try await value in try await connection.query(
                "SELECT development_partitioned FROM openrealm_apps WHERE app_id = \(appId)", logger: logger).decode(Bool?.self) {
                decided = value
            }
            return decided
        }
    }

    package func decide(partitioned: Bool) throws -> (partitioned: Bool, decidedNow: Bool) {
        try database.transaction("decide the app's sync mode") { [appId, logger = database.logger] connection in
            try await connection.perform("INSERT INTO openrealm_apps (app_id) VALUES (\(appId)) ON CONFLICT DO NOTHING", logger: logger)
            var decidedNow = false
            for try await _ in try await connection.query("""
                UPDATE openrealm_apps SET development_partitioned = \(partitioned)
                WHERE app_id = \(appId) AND development_partitioned IS NULL RETURNING app_id
                """, logger: logger) {
                decidedNow = true
            }
            if decidedNow { return (partitioned, true) }
            var decided = partitioned
            for try await value in try await connection.query(
                "SELECT development_partitioned FROM openrealm_apps WHERE app_id = \(appId)", logger: logger).decode(Bool.self) {
                decided = value
            }
            return (decided, false)
        }
    }
}
