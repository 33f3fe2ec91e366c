import Foundation
import Logging
import XCTest
import OpenRealmPostgres
import OpenRealmPostgresTestSupport
import OpenRealmWire
@testable import OpenRealmServer

/// Uploads while PostgreSQL fails under the server: it refuses connections, rolls a
/// transaction back to break a conflict (a serialization failure, a deadlock), or
/// drops the connection in the middle of a commit. Whatever happens, an upload is
/// integrated or not — never half — and acknowledged only once committed; a failure
/// that is the database's is told to the client as one to retry (never as a bad
/// changeset) and logged naming the database without its password; once the database
/// is back, the upload lands exactly once and reaches the other clients.
///
/// The server reaches the database over TCP with the password in the store URL, and
/// short timeouts so that an outage is noticed in seconds. The failures are made from
/// the test's own connections (psql): `ALTER DATABASE … ALLOW_CONNECTIONS` with the
/// server's backends terminated, and triggers on the history table that fail or stall
/// a given number of times (counted by a sequence, which a rollback does not undo).
///
/// PostgreSQL only: runs in the suite's PostgreSQL pass (`OPENREALM_TEST_STORE=postgres`).
final class PostgresFailureTests: ServerTestCase {
    private let sink = LogSink()
    private var pools: [(storage: PostgresStorage, pool: DatabasePool)] = []
    /// The store URL's timeouts: short, so that a database refusing connections is
    /// noticed in seconds, but long where a trigger stalls a commit on purpose.
    private var timeouts: String {
        name.contains("DroppedMidCommit") ? "connect_timeout=2&statement_timeout=10000" : "connect_timeout=1&statement_timeout=1500"
    }

    override func setUpWithError() throws {
        guard TestStore.isPostgres else {
            throw XCTSkip("PostgreSQL only: runs in the suite's PostgreSQL pass (OPENREALM_TEST_STORE=postgres)")
        }
        try super.setUpWithError()
    }

    override func tearDownWithError() throws {
        if let run = testRun, run.failureCount + run.unexpectedExceptionCount > 0 {
            print("the server's log:\n" + sink.lines.suffix(40).joined(separator: "\n"))
        }
        stopServer()
        for opened in pools {
            opened.storage.close()
            opened.pool.close()
        }
        pools = []
        try super.tearDownWithError()
    }

    /// The server over TCP with the password in the URL (what must never be logged).
    override func makeServer(configuration: ServerConfiguration, logger: Logger) throws -> SyncServer {
        let database = try self.database ?? TestDatabase()
        self.database = database
        let pool = try DatabasePool.open(try PostgresLocation(url: storeURL, environment: [:]), logger: logger)
        let storage = PostgresStorage(database: pool)
        pools.append((storage, pool))
        return try SyncServer(configuration: configuration, storage: storage, logger: logger)
    }

    override func makeLogger() -> Logger {
        let sink = self.sink
        var logger = Logger(label: "openrealm-server-pg-failures") { label in CapturingLogHandler(label: label, sink: sink) }
        logger.logLevel = .info
        return logger
    }

    private var storeURL: String {
        get throws {
            let cluster = try PostgresCluster.shared()
            return "postgres://\(PostgresCluster.superuser):\(PostgresCluster.password)@127.0.0.1:\(cluster.port)/"
                + "\(try XCTUnwrap(database).location.database)?sslmode=disable&\(timeouts)"
        }
    }

    /// The database as the server's messages name it (no password).
    private var named: String {
        get throws { "postgres://\(PostgresCluster.superuser)@127.0.0.1:\(try PostgresCluster.shared().port)/\(try XCTUnwrap(database).location.database)" }
    }

    /// Runs SQL on the cluster's `postgres` database (statements about the test's database).
    private func admin(_ sql: String) throws {
        try PostgresCluster.shared().psql("postgres", sql)
    }

    // MARK: Setup shared by the tests

    /// A writer (its token, identity and version reached) and a subscribed watcher, with
    /// Task 1 created by the writer's client version 1.
    private func writerAndWatcher() throws -> (writer: TestSyncClient, token: String, ident: WireIdent, serverVersion: UInt64,
                                                watcher: TestSyncClient) {
        let token = try anonymousToken()
        let (writer, ident) = try boundClient(token: token)
        try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "before", status: "open")])
        let (watcher, _) = try boundClient()
        try subscribeToAllTasks(watcher)
        let version = UInt64(try XCTUnwrap(database).sql("SELECT server_version FROM openrealm_apps WHERE app_id = 'todo'")) ?? 0
        return (writer, token, ident, version, watcher)
    }

    /// Sends client version `clientVersion` setting Task 1's title to `title`, based on `serverVersion`.
    private func sendTitle(_ client: TestSyncClient, clientVersion: UInt64, serverVersion: UInt64, _ title: String) throws {
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: serverVersion,
            timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_000 + clientVersion),
            instructions: [.set(object: Self.path(1), property: "title", value: .string(title))])])))
    }

    /// What the server answers an upload first: its acknowledgement, or an error.
    private enum Answer {
        case acknowledged
        case refused(WireErrorMessage)
    }

    private func answer(_ client: TestSyncClient, clientVersion: UInt64, timeout: Double = 30) throws -> Answer {
        try client.waitFor("the answer to client version \(clientVersion)", timeout: timeout) { m -> Answer? in
            if case .download(let d) = m, d.progress.lastIntegratedClientVersion >= clientVersion { return .acknowledged }
            if case .error(let e) = m { return .refused(e) }
            return nil
        }
    }

    /// Waits until `watcher` receives a changeset setting Task 1's title to `title`.
    private func waitForTitle(_ watcher: TestSyncClient, _ title: String) throws {
        _ = try watcher.waitFor("the title '\(title)' at the watcher", timeout: 30) { m -> Bool? in
            guard case .download(let d) = m else { return nil }
            for c in d.changesets {
                for case .set(_, "title", .string(let t)) in c.instructions where t == title { return true }
            }
            return nil
        }
    }

    /// Checks the database holds client version `clientVersion` of `file` exactly once,
    /// its entry and its object together, and that server versions are contiguous.
    private func assertCommittedOnce(fileIdent: UInt64, clientVersion: UInt64, title: String,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try XCTUnwrap(self.database)
        XCTAssertEqual(try database.sql("""
            SELECT count(*) FROM openrealm_history
            WHERE app_id = 'todo' AND origin_file_ident = \(fileIdent) AND origin_client_version = \(clientVersion)
            """), "1", "client version \(clientVersion) of file \(fileIdent) is not in the history exactly once", file: file, line: line)
        XCTAssertEqual(try database.sql("""
            SELECT count(*) = max(server_version) - min(server_version) + 1
                AND max(server_version) = (SELECT server_version FROM openrealm_apps WHERE app_id = 'todo')
            FROM openrealm_history WHERE app_id = 'todo'
            """), "t", "the history's server versions are not contiguous up to the app's version", file: file, line: line)
        XCTAssertEqual(try database.sql("""
            SELECT last_integrated_client_version FROM openrealm_client_files WHERE app_id = 'todo' AND ident = \(fileIdent)
            """), "\(clientVersion)", file: file, line: line)
        // The object holds what the entry says (the title is in its encoded properties).
        XCTAssertEqual(try database.sql("""
            SELECT position(convert_to('\(title)', 'UTF8') IN properties) > 0 FROM openrealm_objects
            WHERE app_id = 'todo' AND class_name = 'Task'
            """), "t", "Task 1 does not hold the title '\(title)' its history entry set", file: file, line: line)
    }

    // MARK: Tests

    /// While the database refuses connections, an upload is refused as the database's
    /// failure (a session error to retry, not `badChangeset`) and never acknowledged;
    /// the log names the database without the password. Once it accepts them again,
    /// the client binds again, resends, and the upload lands once and reaches the watcher.
    func testAnUploadWhileTheDatabaseRefusesConnectionsIsRefusedToRetryAndLandsOnceAfter() throws {
        let (writer, token, ident, version, watcher) = try writerAndWatcher()
        let db = try XCTUnwrap(database).location.database
        try admin("ALTER DATABASE \(db) ALLOW_CONNECTIONS false")
        defer { try? admin("ALTER DATABASE \(db) ALLOW_CONNECTIONS true") }
        try admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(db)'")

        try sendTitle(writer, clientVersion: 2, serverVersion: version, "during the outage")
        guard case .refused(let error) = try answer(writer, clientVersion: 2) else {
            return XCTFail("an upload was acknowledged while the database refused every connection")
        }
        XCTAssertEqual(error.code, .otherSessionError, error.message)
        XCTAssertTrue(error.isFatal)
        XCTAssertTrue(error.message.contains("store failed"), error.message)
        let lines = sink.lines
        let named = try self.named
        XCTAssertTrue(lines.contains { $0.contains("the store failed an upload") && $0.contains(named) },
                      "no log line names the database: \(lines.suffix(10))")
        XCTAssertFalse(lines.contains { $0.contains(PostgresCluster.password) }, "the password was logged")

        try admin("ALTER DATABASE \(db) ALLOW_CONNECTIONS true")
        XCTAssertEqual(try XCTUnwrap(database).sql("""
            SELECT count(*) FROM openrealm_history WHERE app_id = 'todo' AND origin_file_ident = \(ident.fileIdentity.ident) AND origin_client_version = 2
            """), "0", "the refused upload left a history entry")
        // The client binds again (its session ended) and resends what was not acknowledged.
        let again = try TestSyncClient(port: port, appId: "todo")
        try again.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token, fileIdentity: ident.fileIdentity,
                                      lastIntegratedServerVersion: version)))
        _ = try again.waitFor("ident", timeout: 30) { m -> Bool? in
            if case .ident = m { return true }
            if case .error(let e) = m { XCTFail("the bind after the outage failed: \(e.message)"); return false }
            return nil
        }
        try subscribeToAllTasks(again)
        try sendTitle(again, clientVersion: 2, serverVersion: version, "during the outage")
        if case .refused(let error) = try answer(again, clientVersion: 2) {
            return XCTFail("the resent upload was refused once the database was back: \(error.code): \(error.message)")
        }
        try waitForTitle(watcher, "during the outage")
        try assertCommittedOnce(fileIdent: ident.fileIdentity.ident, clientVersion: 2, title: "during the outage")
    }

    /// The database rolls the history insert back twice — a serialization failure, then
    /// a deadlock — and the server runs the transaction again rather than fail the
    /// upload: it is acknowledged, committed once and delivered.
    func testASerializationFailureAndADeadlockAreRetriedAndTheUploadCommittedOnce() throws {
        let (writer, _, ident, version, watcher) = try writerAndWatcher()
        try XCTUnwrap(database).sql("""
            CREATE SEQUENCE test_conflicts;
            CREATE FUNCTION test_conflict() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE n bigint := nextval('test_conflicts');
            BEGIN
                IF n = 1 THEN RAISE EXCEPTION 'test: could not serialize access' USING ERRCODE = '40001'; END IF;
                IF n = 2 THEN RAISE EXCEPTION 'test: deadlock detected' USING ERRCODE = '40P01'; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER test_conflict BEFORE INSERT ON openrealm_history FOR EACH ROW EXECUTE FUNCTION test_conflict();
            """)
        try sendTitle(writer, clientVersion: 2, serverVersion: version, "after two conflicts")
        if case .refused(let error) = try answer(writer, clientVersion: 2) {
            return XCTFail("the upload was refused, not retried: \(error.code): \(error.message)")
        }
        XCTAssertEqual(try XCTUnwrap(database).sql("SELECT last_value >= 3 FROM test_conflicts"), "t", "the conflicts were not provoked")
        try waitForTitle(watcher, "after two conflicts")
        try assertCommittedOnce(fileIdent: ident.fileIdentity.ident, clientVersion: 2, title: "after two conflicts")
    }

    /// The server's connection is terminated while it commits an upload (a deferred
    /// trigger stalls the commit): nothing is acknowledged before the commit, and the
    /// upload ends committed once — retried on another connection — and delivered.
    func testAnUploadWhoseConnectionIsDroppedMidCommitIsCommittedOnceBeforeItsAcknowledgement() throws {
        let (writer, _, ident, version, watcher) = try writerAndWatcher()
        let database = try XCTUnwrap(self.database)
        try database.sql("""
            CREATE SEQUENCE test_commits;
            CREATE FUNCTION test_stalled_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('test_commits') = 1 THEN PERFORM pg_sleep(60); END IF;
                RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER test_stalled_commit AFTER INSERT ON openrealm_history
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_stalled_commit();
            """)
        try sendTitle(writer, clientVersion: 2, serverVersion: version, "through a dropped commit")
        // The server's backend stalls inside COMMIT; terminate it there.
        let deadline = Date().addingTimeInterval(30)
        var backend = ""
        while backend.isEmpty {
            backend = try database.sql("""
                SELECT pid FROM pg_stat_activity
                WHERE datname = '\(database.location.database)' AND wait_event = 'PgSleep' AND query = 'COMMIT'
                """)
            guard Date() < deadline else { return XCTFail("the commit never stalled") }
            if backend.isEmpty { usleep(20_000) }
        }
        XCTAssertEqual(try database.sql("""
            SELECT count(*) FROM openrealm_history WHERE app_id = 'todo' AND origin_file_ident = \(ident.fileIdentity.ident) AND origin_client_version = 2
            """), "0", "the stalled commit is visible before it ended")
        try database.sql("SELECT pg_terminate_backend(\(backend))")
        switch try answer(writer, clientVersion: 2) {
        case .acknowledged:
            try waitForTitle(watcher, "through a dropped commit")
            try assertCommittedOnce(fileIdent: ident.fileIdentity.ident, clientVersion: 2, title: "through a dropped commit")
        case .refused(let error):
            // Refused is allowed only as the database's failure, with nothing of it committed.
            XCTAssertEqual(error.code, .otherSessionError, error.message)
            XCTAssertEqual(try database.sql("""
                SELECT count(*) FROM openrealm_history
                WHERE app_id = 'todo' AND origin_file_ident = \(ident.fileIdentity.ident) AND origin_client_version = 2
                """), "0", "a refused upload left a history entry")
        }
    }
}
