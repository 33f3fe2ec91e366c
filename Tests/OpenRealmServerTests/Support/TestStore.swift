import Foundation
import Logging
import OpenRealmPostgres
import OpenRealmPostgresTestSupport
@testable import OpenRealmServer
import XCTest

/// The store the server suite runs its servers on: the embedded store (the default) or,
/// with `OPENREALM_TEST_STORE=postgres`, PostgreSQL — one cluster per test process
/// (``PostgresCluster``), a database per test. One suite, two stores: `.ci/run` runs it
/// both ways.
enum TestStore: String {
    case embedded
    case postgres

    /// The environment variable that chooses.
    static let variable = "OPENREALM_TEST_STORE"

    /// The store of this test process.
    static let current: TestStore = {
        let value = ProcessInfo.processInfo.environment[variable] ?? ""
        guard let store = value.isEmpty ? .embedded : TestStore(rawValue: value) else {
            fatalError("\(variable)='\(value)' is not 'embedded' or 'postgres'")
        }
        return store
    }()

    static var isPostgres: Bool { current == .postgres }
}

extension XCTestCase {
    /// Skips, on PostgreSQL, a test about the embedded store's own files or code
    /// (`why` says what), which has nothing to run against there.
    func skipOnPostgres(_ why: String) throws {
        if TestStore.isPostgres { throw XCTSkip("embedded store only: \(why)") }
    }
}

/// A test's PostgreSQL database and the stores opened on it, each as a server process
/// would open it (its own pool, migrated at open, its own commit feed).
final class TestDatabase: @unchecked Sendable {
    let location: PostgresLocation
    private let lock = NSLock()
    private var opened: [(storage: PostgresStorage, pool: DatabasePool)] = []

    /// A new database with the store's tables made.
    init() throws {
        location = try PostgresCluster.shared().makeMigratedDatabase()
    }

    /// The database as `--store` names it (the socket, as the superuser, no password).
    var url: String {
        get throws {
            let cluster = try PostgresCluster.shared()
            return "postgres://\(PostgresCluster.superuser)@/\(location.database)?host=\(cluster.socketDirectory)&port=\(cluster.port)"
        }
    }

    /// A store on the database, as a new process opens it.
    func openStorage() throws -> PostgresStorage {
        var logger = Logger(label: "openrealm-server-test-postgres")
        logger.logLevel = .critical
        let pool = try DatabasePool.open(location, logger: logger)
        let storage = PostgresStorage(database: pool)
        lock.withLock { opened.append((storage, pool)) }
        return storage
    }

    /// Runs SQL on the database through psql (reading what a test cannot reach through
    /// the server); the rows, one a line, columns separated by `|`.
    @discardableResult
    func sql(_ statement: String) throws -> String {
        try PostgresCluster.shared().psql(location.database, statement)
    }

    /// Closes the stores opened so far (their servers have stopped).
    func closeStorages() {
        lock.lock()
        let closing = opened
        opened = []
        lock.unlock()
        for store in closing {
            store.storage.close()
            store.pool.close()
        }
    }

    /// Closes the stores and drops the database.
    func drop() {
        closeStorages()
        try? PostgresCluster.shared().dropDatabase(location)
    }
}
