import Foundation
import Logging
import OpenRealmPostgresTestSupport
import XCTest
@testable import OpenRealmPostgres

/// A test on the shared PostgreSQL cluster: each pool it opens is closed after it, and
/// a temporary directory is there for the embedded store of contract tests.
class PostgresTestCase: XCTestCase, @unchecked Sendable {
    var directory: URL!
    private var pools: [DatabasePool] = []
    private let poolsLock = NSLock()

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-pg-tests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        for pool in poolsLock.withLock({ pools }) { pool.close() }
        poolsLock.withLock { pools = [] }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new empty database of the shared cluster.
    func makeDatabase() throws -> PostgresLocation {
        try PostgresCluster.shared().makeDatabase()
    }

    /// The pool to `location`, migrated, closed after the test.
    func pool(_ location: PostgresLocation) throws -> DatabasePool {
        closedAfter(try DatabasePool.open(location, logger: quietLogger()))
    }

    /// The pool without migrating, closed after the test (from any thread).
    func unmigratedPool(_ location: PostgresLocation) throws -> DatabasePool {
        closedAfter(try DatabasePool(location, logger: quietLogger()))
    }

    private func closedAfter(_ pool: DatabasePool) -> DatabasePool {
        poolsLock.withLock { pools.append(pool) }
        return pool
    }
}

/// A logger that keeps quiet: the pool logs connection failures the tests cause.
func quietLogger() -> Logger {
    var logger = Logger(label: "openrealm-postgres-tests")
    logger.logLevel = .critical
    return logger
}
