import Foundation
import PostgresNIO
import XCTest
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport

/// Reaching the database, and its tables' migrations.
final class DatabasePoolTests: PostgresTestCase {
    private func open(_ location: PostgresLocation) throws -> DatabasePool {
        try pool(location)
    }

    /// Several processes starting at once on an empty database: one applies each
    /// migration, the others wait for it and find the tables made.
    func testMigrationsRunOnceWhenProcessesStartTogether() throws {
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let database = try self.unmigratedPool(location)
                outcomes.add(.success(try PostgresSchema.migrate(database).from))
            } catch {
                outcomes.add(.failure(error))
            }
        }
        let froms = try outcomes.all.map { try $0.get() }
        XCTAssertEqual(froms.sorted(), [0] + Array(repeating: PostgresSchema.currentVersion, count: 5),
                       "exactly one process found the database empty")
        XCTAssertEqual(try cluster.psql(location.database, "SELECT count(*), max(version) FROM openrealm_schema_migrations"),
                       "\(PostgresSchema.migrations.count)|\(PostgresSchema.currentVersion)")
        // And once more, later: nothing to do.
        let database = try open(location)
        XCTAssertEqual(try PostgresSchema.migrate(database).from, PostgresSchema.currentVersion)
    }

    /// A database a newer server migrated is refused, not written with an older idea of
    /// its tables.
    func testADatabaseOfANewerVersionIsRefused() throws {
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        _ = try open(location)
        try cluster.psql(location.database, "INSERT INTO openrealm_schema_migrations (version, name) VALUES (999, 'future')")
        XCTAssertThrowsError(try DatabasePool.open(location, logger: quietLogger())) { error in
            let failure = error as? PostgresStoreError
            XCTAssertEqual(failure?.kind, .schemaTooNew)
            XCTAssertTrue(failure?.message.contains("version 999") == true, "\(error)")
            XCTAssertTrue(failure?.message.contains(location.database) == true, "names the database: \(error)")
        }
    }

    /// Nothing listening: a clear error naming the database (never the password),
    /// within the connect timeout, not a hang.
    func testAnUnreachableDatabaseIsNamed() throws {
        let port = try PostgresCluster.shared().port
        // The cluster's port number plus one thousand: nothing listens there (checked by the refusal).
        let location = try PostgresLocation(url: "postgres://someone:hunter2@127.0.0.1:\(port + 1000)/nowhere?sslmode=disable&connect_timeout=2",
                                            environment: [:])
        XCTAssertThrowsError(try DatabasePool.open(location, logger: quietLogger())) { error in
            let text = "\(error)"
            XCTAssertEqual((error as? PostgresStoreError)?.kind, .unreachable, text)
            XCTAssertTrue(text.contains("127.0.0.1:\(port + 1000)/nowhere"), text)
            XCTAssertFalse(text.contains("hunter2"), "the password stays out of messages: \(text)")
        }
    }

    /// A wrong password is refused with PostgreSQL's reason; the right one, from the
    /// environment rather than the URL, works over TCP.
    func testPasswordsOverTCP() throws {
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        XCTAssertThrowsError(try DatabasePool.open(try cluster.tcpLocation(of: location, password: "wrong"), logger: quietLogger())) { error in
            let text = "\(error)"
            XCTAssertEqual((error as? PostgresStoreError)?.kind, .unreachable, text)
            XCTAssertTrue(text.contains("password authentication failed"), text)
            XCTAssertTrue(text.contains("SQLSTATE 28P01"), text)
            XCTAssertFalse(text.contains("wrong"), text)
        }
        let database = try open(try cluster.tcpLocation(of: location))
        let answer = try database.withConnection("ask") { connection in
            var value = 0
            for try await n in try await connection.query("SELECT 41 + 1", logger: quietLogger()).decode(Int.self) { value = n }
            return value
        }
        XCTAssertEqual(answer, 42)
    }

    /// The statement timeout of the URL reaches the server: a statement running longer
    /// is cancelled by PostgreSQL, and the unit fails naming it.
    func testTheStatementTimeoutIsTheDatabases() throws {
        let cluster = try PostgresCluster.shared()
        var location = try cluster.makeDatabase()
        location.statementTimeout = .milliseconds(200)
        let database = try open(location)
        let setting = try database.withConnection("show") { connection in
            var value = ""
            for try await text in try await connection.query("SHOW statement_timeout", logger: quietLogger()).decode(String.self) {
                value = text
            }
            return value
        }
        XCTAssertEqual(setting, "200ms")
        XCTAssertThrowsError(try database.transaction("sleep") { connection in
            try await connection.perform("SELECT pg_sleep(5)", logger: quietLogger())
        }) { error in
            let failure = error as? PostgresStoreError
            XCTAssertEqual(failure?.sqlState, "57014", "\(error)")   // query_canceled
            XCTAssertTrue(failure?.message.contains("sleep on") == true, "\(error)")
        }
        // The pool is usable afterwards.
        XCTAssertNoThrow(try database.withConnection("ask") { connection in
            try await connection.query("SELECT 1", logger: quietLogger())
        })
    }

    /// A unit whose body throws leaves nothing behind: the transaction is rolled back,
    /// and the body's own error comes out as it was thrown.
    func testAFailedUnitIsRolledBack() throws {
        struct Refused: Error {}
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        let database = try open(location)
        XCTAssertThrowsError(try database.transaction("insert then refuse") { connection in
            try await connection.query(
                "INSERT INTO openrealm_users (app_id, id, provider, created_at) VALUES ('a', 'u', 'anon-user', 1)",
                logger: quietLogger())
            throw Refused()
        }) { error in
            XCTAssertTrue(error is Refused, "\(error)")
        }
        XCTAssertEqual(try cluster.psql(location.database, "SELECT count(*) FROM openrealm_users"), "0")
    }
}

private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Int, any Error>] = []
    func add(_ result: Result<Int, any Error>) { lock.withLock { results.append(result) } }
    var all: [Result<Int, any Error>] { lock.withLock { results } }
}
