import Foundation
import Logging
import OpenRealmPostgres

extension PostgresCluster {
    private static let templateLock = NSLock()
    nonisolated(unsafe) private static var template: Result<String, any Error>?

    /// A new database with the store's tables already made: a copy (`CREATE DATABASE …
    /// TEMPLATE`) of one this process migrated once, which is far quicker than
    /// migrating each test's database.
    ///
    /// - Throws: ``ClusterError`` when the template cannot be made or copied.
    package func makeMigratedDatabase() throws -> PostgresLocation {
        let template = try Self.templateLock.withLock {
            if let template = Self.template { return try template.get() }
            let made = Result { try makeTemplate() }
            Self.template = made
            return try made.get()
        }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try psql("postgres", "CREATE DATABASE \(name) TEMPLATE \(template)")
        return try location(of: String(name))
    }

    /// Drops a database made by ``makeMigratedDatabase()`` or ``makeDatabase()``,
    /// closing whatever connections are still open to it.
    package func dropDatabase(_ location: PostgresLocation) throws {
        try psql("postgres", "DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)")
    }

    /// The database at `name` over the socket, as the superuser.
    package func location(of name: String) throws -> PostgresLocation {
        try PostgresLocation(url: "postgres://\(Self.superuser)@/\(name)?host=\(socketDirectory)&port=\(port)", environment: [:])
    }

    /// Migrates a new database and waits until no connection to it is left (a template
    /// with connections cannot be copied).
    private func makeTemplate() throws -> String {
        let location = try makeDatabase()
        var logger = Logger(label: "openrealm-test-template")
        logger.logLevel = .critical
        try DatabasePool.open(location, logger: logger).close()
        let deadline = Date().addingTimeInterval(30)
        while try psql("postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(location.database)'") != "0" {
            guard Date() < deadline else {
                throw ClusterError("the template database \(location.database) still has connections after 30 s")
            }
            usleep(10_000)
        }
        return location.database
    }
}
