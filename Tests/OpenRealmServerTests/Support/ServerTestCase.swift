import Crypto
import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmPostgres

/// Starts a real server on a free loopback port for each test, with its own data
/// directory — or, on PostgreSQL (``TestStore``), its own database —, and stops it
/// afterwards.
class ServerTestCase: XCTestCase {
    var dataDirectory: URL!
    /// The test's database when the suite runs on PostgreSQL (made at the first start,
    /// kept across restarts, dropped after the test).
    var database: TestDatabase?
    var server: SyncServer!
    var port = 0
    /// The hybrid clock of uploads that do not give one.
    private var clock: UInt64 = 1_700_000_000_000
    private var runTask: Task<Void, Never>?
    private let stopped = DispatchSemaphore(value: 0)

    /// The app configuration to run with (nil: development mode).
    var appConfiguration: ServerAppConfiguration? { nil }

    /// The development app `appId` with `change` made to it: what a test that needs an
    /// app setting returns as its ``appConfiguration``.
    static func developmentApp(_ appId: String = "todo", _ change: (inout ServerAppConfiguration) -> Void) -> ServerAppConfiguration {
        var config = ServerAppConfiguration.development(appId: appId)
        change(&config)
        return config
    }

    /// The store of the app `todo` (the default app of these tests).
    var storePath: String {
        dataDirectory.appendingPathComponent("apps").appendingPathComponent("todo").appendingPathComponent("server.realm").path
    }

    override func setUpWithError() throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-server-tests-\(UUID().uuidString)")
        try startServer()
    }

    /// Starts a server on the test's data directory (a free port).
    func startServer() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, app: appConfiguration)
        configuration.passwordHashRounds = 1024
        configure(&configuration)
        let logger = makeLogger()
        let server = try makeServer(configuration: configuration, logger: logger)
        self.server = server
        let stopped = self.stopped
        runTask = Task {
            do { try await server.run() } catch { print("server stopped with \(error)") }
            stopped.signal()
        }
        port = try server.waitUntilRunning(timeout: 30)
    }

    /// A server with `configuration` on the test's store: its data directory's, or on
    /// PostgreSQL a storage of its own on the test's database (as another process would
    /// open it).
    func makeServer(configuration: ServerConfiguration, logger: Logger) throws -> SyncServer {
        guard TestStore.isPostgres else { return try SyncServer(configuration: configuration, logger: logger) }
        let database = try self.database ?? TestDatabase()
        self.database = database
        return try SyncServer(configuration: configuration, storage: database.openStorage(), logger: logger)
    }

    /// The operator's administration of `appId` on the test's store: the data
    /// directory's (offline: the server must have stopped), or on PostgreSQL the test's
    /// database (as another process, beside a running server too). `close()` it after.
    func administration(_ appId: String = "todo") throws -> AppAdministration {
        guard TestStore.isPostgres else { return try AppAdministration(dataDirectory: dataDirectory, appId: appId) }
        let database = try self.database ?? TestDatabase()
        self.database = database
        return try AppAdministration(storage: database.openStorage(), appId: appId)
    }

    /// The server's master signing key: the data directory's `signing.key`, or on
    /// PostgreSQL the database's current key.
    func masterSigningKey() throws -> SymmetricKey {
        guard TestStore.isPostgres else { return try SigningKey.loadOrCreate(in: dataDirectory) }
        return try XCTUnwrap(database, "no server has started").openStorage().signingKeys.ring().current
    }

    /// Rotates the master signing key as `rotate-signing-key` does (the data directory's
    /// files, or the database's keys).
    func rotateSigningKey() throws {
        guard TestStore.isPostgres else { return try SigningKey.rotate(in: dataDirectory) }
        _ = try XCTUnwrap(database, "no server has started").openStorage().signingKeys.rotate()
    }

    /// Changes the server configuration before the server starts (timeouts, ...).
    func configure(_ configuration: inout ServerConfiguration) {}

    /// The server's logger.
    func makeLogger() -> Logger {
        var logger = Logger(label: "openrealm-server-test")
        // Cancelling the server at the end of a test logs errors that are not failures.
        logger.logLevel = .critical
        return logger
    }

    override func tearDownWithError() throws {
        stopServer()
        database?.drop()
        database = nil
        // nil when a subclass skipped the test before this class's setUp.
        if let dataDirectory { try? FileManager.default.removeItem(at: dataDirectory) }
    }

    /// Stops the server and waits until it has.
    func stopServer() {
        guard let task = runTask else { return }
        task.cancel()
        XCTAssertEqual(stopped.wait(timeout: .now() + 15), .success, "the server did not stop")
        runTask = nil
        server = nil
        database?.closeStorages()
    }

    /// Stops the server and starts another on the same data directory (a new port).
    func restartServer() throws {
        stopServer()
        try startServer()
    }

    /// Subscribes to every Task (query `version`) and returns the bootstrap.
    @discardableResult
    func subscribeToAllTasks(_ client: TestSyncClient, session: UInt64 = 1, version: UInt64 = 1) throws -> [WireInstruction] {
        try query(client, session: session, version: version, ["Task": "TRUEPREDICATE"]).get()
    }

    /// `count` new clients, each bound on session 1 and subscribed to every Task, with the
    /// server version each one's bootstrap brought it to: where concurrent clients start.
    func subscribedClients(_ count: Int) throws -> (clients: [(TestSyncClient, WireIdent)], versions: [UInt64]) {
        var clients: [(TestSyncClient, WireIdent)] = []
        var versions: [UInt64] = []
        for _ in 0..<count {
            let (client, ident) = try boundClient()
            try client.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
            versions.append(try client.waitFor("the bootstrap") { message -> UInt64? in
                if case .download(let d) = message, d.bootstrap == .lastBatch { return d.progress.serverVersion } else { return nil }
            })
            clients.append((client, ident))
        }
        return (clients, versions)
    }

    var http: TestHTTP { TestHTTP(port: port) }

    /// Logs in anonymously to `appId`; returns the access token.
    func anonymousToken(appId: String = "todo") throws -> String {
        let reply = try http.request("POST", "/api/client/v2.0/app/\(appId)/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(reply.status, 200, "\(reply.body)")
        return try XCTUnwrap(reply.body["access_token"] as? String)
    }

    /// A client bound on session 1; returns it and its ident.
    func boundClient(appId: String = "todo", token: String? = nil, session: UInt64 = 1) throws -> (TestSyncClient, WireIdent) {
        let client = try TestSyncClient(port: port, appId: appId)
        try client.send(.bind(WireBind(session: session, appId: appId, accessToken: try token ?? anonymousToken(appId: appId))))
        let ident = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        return (client, ident)
    }

    /// The schema of the test model: `Task { _id: int, title: string, status: string,
    /// score: int, tags: [string] }`.
    static let taskSchema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Task", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Task", property: WirePropertySchema(name: "title", type: .string)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "status", type: .string, isIndexed: true)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "score", type: .int)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "tags", type: .string, collection: .list)),
    ]

    static func task(_ id: Int64, title: String, status: String, score: Int64 = 0) -> WireInstruction {
        .createObject(className: "Task", primaryKey: .int(id),
                      values: [WirePropertyValue("title", .string(title)), WirePropertyValue("status", .string(status)),
                               WirePropertyValue("score", .int(score))])
    }

    static func path(_ id: Int64) -> WireObjectPath { WireObjectPath(className: "Task", primaryKey: .int(id)) }

    /// Uploads one changeset and waits for its acknowledgement.
    func upload(_ client: TestSyncClient, session: UInt64 = 1, clientVersion: UInt64, serverVersion: UInt64 = 0,
                hlc: UInt64? = nil, _ instructions: [WireInstruction]) throws {
        // Like a real client's clock, each changeset reads later than the one before.
        let hlc = hlc ?? { clock += 1; return clock }()
        try client.send(.upload(WireUpload(session: session, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: serverVersion,
            timestamp: WireHybridTimestamp(milliseconds: hlc), instructions: instructions)])))
        _ = try client.waitFor("the upload's acknowledgement") { message -> Bool? in
            if case .download(let d) = message, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion >= clientVersion { return true }
            if case .error(let e) = message { XCTFail("upload refused: \(e.message)"); return false }
            return nil
        }
    }

    /// An anonymous user's access token and id.
    func anonymousUser() throws -> (token: String, id: String) {
        let reply = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        return (try XCTUnwrap(reply.body["access_token"] as? String), try XCTUnwrap(reply.body["user_id"] as? String))
    }

    /// Uploads a changeset expected to be partly refused: returns the error and the
    /// reverting download's instructions, after the acknowledgement.
    func uploadRefused(_ client: TestSyncClient, clientVersion: UInt64, _ instructions: [WireInstruction])
        throws -> (WireErrorMessage, [WireInstruction]) {
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: 0,
            timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + clientVersion), instructions: instructions)])))
        let error = try client.waitFor("the compensating write's error") { if case .error(let e) = $0 { return e } else { return nil } }
        let revert = try client.waitFor("the reverting download") { m -> WireDownloadChangeset? in
            if case .download(let d) = m, let c = d.changesets.first { return c } else { return nil }
        }
        XCTAssertEqual(revert.originFileIdent, 0)
        XCTAssertEqual(error.compensatingWrite?.serverVersion, revert.serverVersion)
        _ = try client.waitFor("the acknowledgement") { m -> Bool? in
            if case .download(let d) = m, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion >= clientVersion { return true }
            return nil
        }
        return (error, revert.instructions)
    }

    /// Sends a query and returns the bootstrap's instructions (all batches), or the error.
    func query(_ client: TestSyncClient, session: UInt64 = 1, version: UInt64, _ queries: [String: String]) throws
        -> QueryAnswer {
        try client.send(.query(WireQuery(session: session, queryVersion: version,
                                         queries: queries.sorted { $0.key < $1.key }.map { WireClassQuery(className: $0.key, query: $0.value) })))
        var instructions: [WireInstruction] = []
        return try client.waitFor("query version \(version)'s answer") { message -> QueryAnswer? in
            switch message {
            case .download(let d) where d.queryVersion == version && d.bootstrap != .none:
                instructions += d.changesets.flatMap(\.instructions)
                return d.bootstrap == .lastBatch ? .accepted(instructions) : nil
            case .error(let e) where e.queryVersion == version:
                return .refused(e)
            default:
                return nil
            }
        }
    }
}

/// The server's answer to a query version: the bootstrap's instructions, or the error.
enum QueryAnswer {
    case accepted([WireInstruction])
    case refused(WireErrorMessage)

    /// The bootstrap's instructions; throws when the version was refused.
    func get() throws -> [WireInstruction] {
        switch self {
        case .accepted(let instructions): return instructions
        case .refused(let error): throw TestSocket.Failure(description: "query refused: \(error.message)")
        }
    }
}
