import Foundation
import XCTest
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport
@testable import OpenRealmServer

/// Rate limits on both stores: the same buckets in memory and in PostgreSQL, and in
/// PostgreSQL one allowance for all the processes.
final class RateLimitStoreTests: PostgresTestCase {
    func testABucketEmptiesAndSaysHowLongToWait() throws {
        let location = try PostgresCluster.shared().makeDatabase()
        let stores: [(String, any RateLimitStore)] = [
            ("memory", LoginRateLimiter()),
            ("postgres", PostgresRateLimits(database: try pool(location), appId: "app")),
        ]
        let limit = RateLimit(burst: 3, perMinute: 1)
        for (name, store) in stores {
            for i in 0..<3 { XCTAssertNil(try store.take("address:1.2.3.4", limit: limit), "\(name): attempt \(i)") }
            let wait = try XCTUnwrap(try store.take("address:1.2.3.4", limit: limit), "\(name): the fourth is refused")
            XCTAssertTrue((1...60).contains(wait), "\(name): one token a minute: \(wait) s")
            XCTAssertNil(try store.take("address:5.6.7.8", limit: limit), "\(name): another key has its own bucket")
        }
    }

    /// Three processes on one database: a client spreading its attempts over them still
    /// gets the one allowance.
    func testProcessesShareOneAllowance() throws {
        let location = try PostgresCluster.shared().makeDatabase()
        let processes = try (0..<3).map { _ in PostgresRateLimits(database: try pool(location), appId: "app") }
        let limit = RateLimit(burst: 5, perMinute: 1)
        let allowed = Counter()
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            if (try? processes[i % 3].take("email:e@example.com", limit: limit)) == .some(nil) { allowed.add() }
        }
        XCTAssertEqual(allowed.value, 5)
        // Apps are apart.
        XCTAssertNil(try PostgresRateLimits(database: try pool(location), appId: "other").take("email:e@example.com", limit: limit))
    }

    /// Buckets full again are deleted as takes go on, so the table stays small.
    func testFullBucketsAreForgotten() throws {
        let cluster = try PostgresCluster.shared()
        let location = try cluster.makeDatabase()
        let store = PostgresRateLimits(database: try pool(location), appId: "app", pruneEvery: 1)
        // A bucket of one token refilled a thousand times a second: full again at once.
        let quick = RateLimit(burst: 1, perMinute: 60_000)
        for i in 0..<20 { XCTAssertNil(try store.take("address:10.0.0.\(i)", limit: quick)) }
        let deadline = Date().addingTimeInterval(10)
        var rows = ""
        repeat {
            XCTAssertNil(try store.take("address:10.0.1.1", limit: quick))
            rows = try cluster.psql(location.database, "SELECT count(*) FROM openrealm_rate_limits")
        } while rows != "1" && Date() < deadline
        XCTAssertEqual(rows, "1", "only the bucket just taken from is left")
    }
}
