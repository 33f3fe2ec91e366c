import Foundation
import PostgresNIO
import XCTest
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport

/// Synchronous units of work on leased connections, and the app's write lock.
final class PostgresUnitTests: PostgresTestCase {
    func testAUnitCommitsWhenItsBodyReturnsAndRollsBackWhenItThrows() throws {
        struct Refused: Error {}
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        let database = try pool(location)
        try cluster.psql(location.database, "CREATE TABLE notes (n integer PRIMARY KEY)")
        let read = try database.unit("write two") { unit -> Int in
            try unit.perform("INSERT INTO notes VALUES (1)")
            try unit.perform("INSERT INTO notes VALUES (2)")
            return try unit.query("SELECT count(*)::int4 FROM notes") { rows in
                var n: Int32 = 0
                for try await value in rows.decode(Int32.self) { n = value }
                return Int(n)
            }
        }
        XCTAssertEqual(read, 2, "a unit reads its own writes")
        XCTAssertThrowsError(try database.unit("write and refuse") { unit in
            try unit.perform("INSERT INTO notes VALUES (3)")
            throw Refused()
        }) { XCTAssertTrue($0 is Refused, "\($0)") }
        XCTAssertThrowsError(try database.unit("break a key") { unit in
            try unit.perform("INSERT INTO notes VALUES (4)")
            try unit.perform("INSERT INTO notes VALUES (1)")
        }) { error in
            XCTAssertEqual((error as? PostgresStoreError)?.sqlState, "23505", "\(error)")
        }
        XCTAssertEqual(try cluster.psql(location.database, "SELECT string_agg(n::text, ',' ORDER BY n) FROM notes"), "1,2")
        // Work kept back for the commit runs in order after the body; when it fails, the
        // whole unit rolls back.
        XCTAssertThrowsError(try database.unit("write, then fail before the commit") { unit in
            try unit.perform("INSERT INTO notes VALUES (5)")
            unit.beforeCommit { try unit.perform("INSERT INTO notes VALUES (6)") }
            unit.beforeCommit { throw Refused() }
        }) { XCTAssertTrue($0 is Refused, "\($0)") }
        try database.unit("write before the commit") { unit in
            unit.beforeCommit { try unit.perform("INSERT INTO notes VALUES (7)") }
        }
        XCTAssertEqual(try cluster.psql(location.database, "SELECT string_agg(n::text, ',' ORDER BY n) FROM notes"), "1,2,7")
    }

    /// Three processes writing one app's history at once: every unit sees the version
    /// the one before it committed, so the versions are 1...N, each once.
    func testTheAppsWriteLockMakesVersionsContiguousAcrossProcesses() throws {
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        try cluster.psql(location.database, "CREATE TABLE versions (app text, version bigint, PRIMARY KEY (app, version))")
        let apps = try (0..<3).map { _ in PostgresApp(database: try pool(location), appId: "app") }
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 30) { i in
            do {
                let app = apps[i % 3]
                try app.withWriteLock("integrate") { unit, version in
                    // Between reading the version and writing the next, others try too.
                    try unit.perform("SELECT pg_sleep(0.005)")
                    try unit.perform("INSERT INTO versions VALUES ('app', \(Int64(version + 1)))")
                    try app.setServerVersion(version + 1, in: unit)
                }
            } catch {
                failures.add()
            }
        }
        XCTAssertEqual(failures.value, 0)
        XCTAssertEqual(try apps[0].committedVersion(), 30)
        XCTAssertEqual(try cluster.psql(location.database, "SELECT count(*), min(version), max(version) FROM versions"), "30|1|30")
        XCTAssertEqual(try PostgresApp(database: apps[1].database, appId: "another").committedVersion(), 0)
    }

    /// A pool with every connection leased: a unit waits for one only until its
    /// deadline, then fails naming the database; afterwards the pool works again.
    func testAUnitWaitsForAConnectionOnlyUntilItsDeadline() throws {
        let cluster = try PostgresCluster.shared()
        var location = try cluster.makeDatabase()
        location.maximumConnections = 1
        location.statementTimeout = .milliseconds(300)
        location.connectTimeout = .seconds(1)
        let database = try pool(location)
        let holding = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? database.unit("hold the only connection") { _ in
                holding.signal()
                letGo.wait()
            }
            done.signal()
        }
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        XCTAssertThrowsError(try database.unit("wait") { _ in }) { error in
            XCTAssertEqual((error as? PostgresStoreError)?.kind, .timedOut, "\(error)")
            XCTAssertTrue("\(error)".contains(location.database), "\(error)")
        }
        letGo.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertNoThrow(try database.unit("after") { unit in try unit.perform("SELECT 1") })
    }
}
