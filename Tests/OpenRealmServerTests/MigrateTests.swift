import Crypto
import Foundation
import Logging
import XCTest
import OpenRealmPostgres
import OpenRealmTestSupport
import OpenRealmWire
@testable import OpenRealmServer

/// `openrealm-server migrate --from DATA_DIR --to postgres://…`: a server on a data
/// directory syncs clients, stops; its store moves into PostgreSQL; a server on the
/// database carries on with the same client files and tokens, without a client reset.
/// And the refusals that write nothing. On both runs of the suite: the test starts on
/// the embedded store and moves to its own database (``TestDatabase``).
final class MigrateTests: ServerTestCase {
    /// The database the servers run on once the store has moved; nil: the data directory.
    private var target: TestDatabase?

    private var binary: URL { BuiltProduct.directory(holding: "openrealm-server").appendingPathComponent("openrealm-server") }

    override func makeServer(configuration: ServerConfiguration, logger: Logger) throws -> SyncServer {
        guard let target else { return try SyncServer(configuration: configuration, logger: logger) }
        return try SyncServer(configuration: configuration, storage: target.openStorage(), logger: logger)
    }

    /// The test's database, which the base class drops after the test.
    private func makeTarget() throws -> TestDatabase {
        let made = try TestDatabase()
        database = made
        return made
    }

    private func bind(_ client: TestSyncClient, token: String, identity: WireFileIdentity?, serverVersion: UInt64 = 0) throws -> WireIdent {
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token, fileIdentity: identity,
                                       lastIntegratedServerVersion: serverVersion)))
        return try client.waitFor("ident") { message -> WireIdent? in
            if case .error(let e) = message { XCTFail("bind refused: \(e.message)") }
            if case .ident(let i) = message { return i } else { return nil }
        }
    }

    /// Waits for a download of another client's changeset holding `instruction`; returns its server version.
    private func waitForDownload(_ client: TestSyncClient, of instruction: WireInstruction) throws -> UInt64 {
        try client.waitFor("a download of \(instruction)") { message -> UInt64? in
            if case .error(let e) = message { XCTFail("error instead of a download: \(e.message)") }
            guard case .download(let d) = message,
                  let changeset = d.changesets.first(where: { $0.instructions.contains(instruction) }) else { return nil }
            return changeset.serverVersion
        }
    }

    func testMigratedClientsCarryOnWithoutAResetAndAFreshClientBootstrapsEverything() throws {
        // Two users, two client files, on the embedded store.
        let login = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        let tokenA = try XCTUnwrap(login.body["access_token"] as? String)
        let refreshA = try XCTUnwrap(login.body["refresh_token"] as? String)
        let a = try TestSyncClient(port: port, appId: "todo")
        let identA = try bind(a, token: tokenA, identity: nil)
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        try upload(a, clientVersion: 2, [Self.task(2, title: "b", status: "open"),
                                         .listInsert(object: Self.path(2), property: "tags", index: 0, value: .string("t"))])
        // A late clock: a later write stamped earlier must lose to it after the move too
        // (the property clocks moved with the object).
        try upload(a, clientVersion: 3, hlc: 1_900_000_000_000, [.set(object: Self.path(1), property: "title", value: .string("late")),
                                                                 .addInteger(object: Self.path(1), property: "score", delta: 5)])
        let tokenB = try anonymousToken()
        let b = try TestSyncClient(port: port, appId: "todo")
        let identB = try bind(b, token: tokenB, identity: nil)
        try subscribeToAllTasks(b)
        try upload(b, clientVersion: 1, [Self.task(3, title: "c", status: "done")])
        // Server versions: 1 A's view, 2–4 A's uploads, 5 B's view, 6 B's upload.
        let movedVersion: UInt64 = 6
        XCTAssertEqual(try waitForDownload(a, of: Self.task(3, title: "c", status: "done")), movedVersion)
        stopServer()

        // The executable, as an operator runs it.
        let target = try makeTarget()
        let run = try BuiltProduct.run(binary, ["migrate", "--from", dataDirectory.path, "--to", try target.url], timeout: 60)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("app 'todo': 2 user(s), 2 client file(s), 6 history entries (server version 6, trimmed through 0), "
            + "3 object(s)"), run.output)
        XCTAssertTrue(run.output.contains("signing keys: 1 moved"), run.output)
        XCTAssertEqual(try target.sql("SELECT server_version, history_floor FROM openrealm_apps WHERE app_id = 'todo'"), "6|0")

        self.target = target
        try startServer()
        // The refresh token from before the move opens a session; the access tokens still verify.
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/auth/session", bearer: refreshA).status, 201)
        let a2 = try TestSyncClient(port: port, appId: "todo")
        let resumedA = try bind(a2, token: tokenA, identity: identA.fileIdentity, serverVersion: movedVersion)
        XCTAssertEqual(resumedA.fileIdentity, identA.fileIdentity)
        XCTAssertEqual(resumedA.lastIntegratedClientVersion, 3)
        XCTAssertEqual(resumedA.serverVersion, movedVersion)
        let b2 = try TestSyncClient(port: port, appId: "todo")
        let resumedB = try bind(b2, token: tokenB, identity: identB.fileIdentity, serverVersion: movedVersion)
        XCTAssertEqual(resumedB.fileIdentity, identB.fileIdentity)
        XCTAssertEqual(resumedB.lastIntegratedClientVersion, 1)
        // Each sends its subscription set again, as a client does: the server knows the view
        // each completed and what it holds, so nothing travels (no bootstrap, no reset).
        XCTAssertEqual(try query(a2, version: 1, ["Task": "TRUEPREDICATE"]).get(), [])
        XCTAssertEqual(try query(b2, version: 1, ["Task": "TRUEPREDICATE"]).get(), [])

        // Uploads continue the history where it stopped; each reaches the other client.
        try upload(a2, clientVersion: 4, serverVersion: movedVersion, [Self.task(4, title: "d", status: "open")])
        let fromA = try waitForDownload(b2, of: Self.task(4, title: "d", status: "open"))
        XCTAssertGreaterThan(fromA, movedVersion)
        // Stamped before A's write to task 1's title: it loses, as it would have on the data directory.
        try upload(b2, clientVersion: 2, serverVersion: fromA, hlc: 1_800_000_000_000,
                   [.set(object: Self.path(1), property: "title", value: .string("early")),
                    .set(object: Self.path(3), property: "status", value: .string("open"))])
        XCTAssertEqual(try waitForDownload(a2, of: .set(object: Self.path(3), property: "status", value: .string("open"))), fromA + 1)

        // A new client bootstraps every object, as the data directory held them and as changed since.
        let (fresh, ident) = try boundClient()
        XCTAssertGreaterThan(ident.fileIdentity.ident, max(identA.fileIdentity.ident, identB.fileIdentity.ident))
        let state = try subscribeToAllTasks(fresh)
        XCTAssertTrue(state.contains(.createObject(className: "Task", primaryKey: .int(1), values: [
            WirePropertyValue("title", .string("late")), WirePropertyValue("status", .string("open")), WirePropertyValue("score", .int(5)),
        ])), "\(state)")
        XCTAssertTrue(state.contains(Self.task(2, title: "b", status: "open")), "\(state)")
        XCTAssertTrue(state.contains(.listInsert(object: Self.path(2), property: "tags", index: 0, value: .string("t"))), "\(state)")
        XCTAssertTrue(state.contains(Self.task(3, title: "c", status: "open")), "\(state)")
        XCTAssertTrue(state.contains(Self.task(4, title: "d", status: "open")), "\(state)")
    }

    /// A client of app `appId` bound to `partition`; returns it and its bootstrap's instructions.
    private func partitionClient(_ appId: String, _ partition: String) throws -> (TestSyncClient, [WireInstruction]) {
        let client = try TestSyncClient(port: port, appId: appId)
        try client.send(.bind(WireBind(session: 1, appId: appId, accessToken: try anonymousToken(appId: appId),
                                       syncMode: .partition(.string(partition)))))
        let bootstrap = try client.waitFor("the partition's bootstrap") { m -> [WireInstruction]? in
            if case .error(let e) = m { XCTFail("refused: \(e.message)") }
            if case .download(let d) = m, d.bootstrap == .lastBatch { return d.changesets.flatMap(\.instructions) }
            return nil
        }
        return (client, bootstrap)
    }

    func testEmailUsersAPIKeysAndAPartitionBasedAppMoveToo() throws {
        let userpass = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        XCTAssertEqual(try http.request("POST", "\(userpass)/register", json: ["email": "ann@example.com", "password": "secret1"]).status, 201)
        let login = try http.request("POST", "\(userpass)/login", json: ["username": "ann@example.com", "password": "secret1"])
        let annToken = try XCTUnwrap(login.body["access_token"] as? String)
        let annId = try XCTUnwrap(login.body["user_id"] as? String)
        let created = try http.request("POST", "/api/client/v2.0/auth/api_keys", json: ["name": "build"], bearer: annToken)
        XCTAssertEqual(created.status, 201, "\(created.body)")
        let key = try XCTUnwrap(created.body["key"] as? String)
        // A development app decided partition-based by its first client, whose class has no
        // partition property: the server keeps each object's partition hidden.
        let (writer, empty) = try partitionClient("shop", "p1")
        XCTAssertEqual(empty, [])
        try upload(writer, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "in p1", status: "open")])
        stopServer()

        let target = try makeTarget()
        let report = try EmbeddedStoreMigration.run(dataDirectory: dataDirectory, signingKeys: EmbeddedAppExport.signingKeyRing(dataDirectory: dataDirectory),
                                                    into: target.openStorage().database)
        XCTAssertEqual(report.apps.map(\.appId), ["shop", "todo"])
        XCTAssertEqual(try target.sql("SELECT app_id, development_partitioned FROM openrealm_apps ORDER BY 1"), "shop|t\ntodo|")
        self.target = target
        try startServer()

        // The password, the email's claim and the API key work as before.
        let again = try http.request("POST", "\(userpass)/login", json: ["username": "ann@example.com", "password": "secret1"])
        XCTAssertEqual(again.status, 200, "\(again.body)")
        XCTAssertEqual(again.body["user_id"] as? String, annId)
        XCTAssertEqual(try http.request("POST", "\(userpass)/register", json: ["email": "ann@example.com", "password": "other12"]).status, 409)
        let keyLogin = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/api-key/login", json: ["key": key])
        XCTAssertEqual(keyLogin.status, 200, "\(keyLogin.body)")
        XCTAssertEqual(keyLogin.body["user_id"] as? String, annId)

        // The app stays partition-based, and its objects in their hidden partitions.
        XCTAssertEqual(try partitionClient("shop", "p1").1, [Self.task(1, title: "in p1", status: "open")])
        XCTAssertEqual(try partitionClient("shop", "p2").1, [])
        let flexible = try TestSyncClient(port: port, appId: "shop")
        try flexible.send(.bind(WireBind(session: 1, appId: "shop", accessToken: try anonymousToken(appId: "shop"))))
        let wrong = try flexible.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(wrong.code, .wrongSyncMode)
    }

    func testClientFilesARestoredBackupMarkedAreLeftOutAndNamed() throws {
        let (client, ident) = try boundClient()
        try subscribeToAllTasks(client)
        try upload(client, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        // A backup's copy marks every file it knows: restored, they must not sync past it.
        let backup = try TemporaryDirectory.make("openrealm-migrate-backup", removedBy: addTeardownBlock).appendingPathComponent("copy")
        _ = try DataDirectoryBackup.run(dataDirectory: dataDirectory, to: backup)
        stopServer()

        let target = try makeTarget()
        let report = try EmbeddedStoreMigration.run(dataDirectory: backup, signingKeys: EmbeddedAppExport.signingKeyRing(dataDirectory: backup),
                                                    into: target.openStorage().database)
        XCTAssertEqual(report.apps.first?.restoreMarkedFiles, [ident.fileIdentity.ident])
        XCTAssertEqual(report.apps.first?.clientFiles, 0)
        XCTAssertEqual(report.apps.first?.objects, 1)
        XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_client_files"), "0")
        // Its ident is not handed out again.
        self.target = target
        try startServer()
        XCTAssertGreaterThan(try boundClient().1.fileIdentity.ident, ident.fileIdentity.ident)
    }

    func testAHeldDirectoryADamagedStoreAnAppTheDatabaseHoldsAndAFailureHalfwayLeaveNothingWritten() throws {
        let (client, _) = try boundClient()
        try subscribeToAllTasks(client)
        try upload(client, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        let ring = try EmbeddedAppExport.signingKeyRing(dataDirectory: dataDirectory)
        let target = try makeTarget()
        // A store of its own for each step: stopping the server closes those opened before.
        func migrate(_ directory: URL) throws {
            _ = try EmbeddedStoreMigration.run(dataDirectory: directory, signingKeys: ring, into: target.openStorage().database)
        }
        func assertNothingWritten(_ message: String) throws {
            XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_users"), "0", message)
            XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_signing_keys"), "0", message)
        }

        // The server holds the data directory.
        XCTAssertThrowsError(try migrate(dataDirectory)) { error in
            XCTAssertTrue("\(error)".contains("is in use by openrealm-server serve"), "\(error)")
        }
        XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_apps"), "0")
        try assertNothingWritten("while the server runs")
        stopServer()

        // A damaged store is named, and nothing moves (not even the sound apps beside it).
        let damaged = dataDirectory.appendingPathComponent("apps/broken")
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        let brokenFile = damaged.appendingPathComponent("server.realm")
        try Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: brokenFile)
        XCTAssertThrowsError(try migrate(dataDirectory)) { error in
            XCTAssertTrue("\(error)".contains("app 'broken' ('\(brokenFile.path)')"), "\(error)")
        }
        XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_apps"), "0")
        try assertNothingWritten("with a damaged store")
        try FileManager.default.removeItem(at: damaged)

        // The database holds the app already: no merge.
        _ = try target.openStorage().postgresApp("todo")
        XCTAssertThrowsError(try migrate(dataDirectory)) { error in
            XCTAssertTrue("\(error)".contains("already holds app(s) 'todo'"), "\(error)")
        }
        try assertNothingWritten("with the app in the database")
        try target.sql("DELETE FROM openrealm_apps")

        // A failure halfway through an app (its objects, written last) leaves nothing of it.
        try target.sql("""
            CREATE FUNCTION refuse_objects() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no objects today'; END $$;
            CREATE TRIGGER refuse_objects BEFORE INSERT ON openrealm_objects FOR EACH ROW EXECUTE FUNCTION refuse_objects();
            """)
        XCTAssertThrowsError(try migrate(dataDirectory)) { error in
            XCTAssertTrue("\(error)".contains("moving app 'todo'"), "\(error)")
            XCTAssertTrue("\(error)".contains("no objects today"), "\(error)")
        }
        for table in ["openrealm_apps", "openrealm_users", "openrealm_history", "openrealm_client_files", "openrealm_classes"] {
            XCTAssertEqual(try target.sql("SELECT count(*) FROM \(table)"), "0", table)
        }
        try target.sql("DROP TRIGGER refuse_objects ON openrealm_objects")

        // The keys moved before the app failed; keys other than the database's are refused.
        XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_signing_keys"), "1")
        XCTAssertThrowsError(try EmbeddedStoreMigration.run(dataDirectory: dataDirectory, signingKeys: SigningKeyRing(current: SymmetricKey(size: .bits256)),
                                                            into: target.openStorage().database)) { error in
            XCTAssertTrue("\(error)".contains("has signing keys of its own"), "\(error)")
        }
        XCTAssertEqual(try target.sql("SELECT count(*) FROM openrealm_apps"), "0")

        // A URL that is not PostgreSQL's, and a database that cannot be reached, named without the password.
        var run = try BuiltProduct.run(binary, ["migrate", "--from", dataDirectory.path, "--to", "mysql://openrealm@db/openrealm"], timeout: 30)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.output.contains("--to: the store 'mysql://openrealm@db/openrealm' is not a postgres:// URL"), run.output)
        let port = try freeLoopbackPort()
        run = try BuiltProduct.run(binary, ["migrate", "--from", dataDirectory.path],
                                   environment: ["OPENREALM_STORE": "postgres://openrealm:hunter2@127.0.0.1:\(port)/openrealm?connect_timeout=5"],
                                   timeout: 30)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.output.contains("cannot reach PostgreSQL at postgres://openrealm@127.0.0.1:\(port)/openrealm"), run.output)
        XCTAssertFalse(run.output.contains("hunter2"), run.output)
    }
}
