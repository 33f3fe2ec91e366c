import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import XCTest
import OpenRealmWire
import OpenRealmServer

/// A user's own request context, as docs/SERVER.md ("Embedding") shows it.
struct UserRequestContext: OpenRealmRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}

/// The server's routes mounted in a user's own Hummingbird application, run with the
/// server as a `Service` of the user's `ServiceGroup`. Only public API (no `@testable`).
final class EmbeddingTests: XCTestCase {
    var dataDirectory: URL!

    override func setUpWithError() throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-embedding-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    func testAUsersApplicationServesItsOwnRouteLoginAndSync() throws {
        var logger = Logger(label: "embedding-test")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory)
        configuration.passwordHashRounds = 1024
        // On PostgreSQL (TestStore) the server serves a database of the test's, and holds no directory.
        let database = TestStore.isPostgres ? try TestDatabase() : nil
        defer { database?.drop() }
        let server = try database.map { try SyncServer(configuration: configuration, storage: $0.openStorage(), logger: logger) }
            ?? SyncServer(configuration: configuration, logger: logger)

        let router = Router(context: UserRequestContext.self)
        router.get("/hello") { _, _ in "hello from the user's app" }
        server.addRoutes(to: router)
        let listening = Listening()
        let app = Application(router: router, server: server.httpServer(webSocketRouter: router),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { listening.set($0.localAddress?.port ?? 0) }, logger: logger)
        // The server first: a group shuts its services down in reverse order, so the
        // application stops serving the routes before the server lets go of its directory.
        let group = ServiceGroup(configuration: .init(services: [server, app], logger: logger))
        let ended = DispatchSemaphore(value: 0)
        let failure = Failure()
        Task {
            do { try await group.run() } catch { failure.set(error) }
            ended.signal()
        }
        let port = try listening.wait(timeout: 30)
        let http = TestHTTP(port: port)

        // The user's route, and the server's.
        let hello = try http.get("/hello")
        XCTAssertEqual(hello.status, 200)
        XCTAssertEqual(hello.body, "hello from the user's app")
        XCTAssertEqual(try http.get("/health").status, 200)

        // A login.
        let login = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(login.status, 200, "\(login.body)")
        let token = try XCTUnwrap(login.body["access_token"] as? String)

        try syncTwoClients(port: port, token: token)

        // The server's metrics count its routes, not the user's.
        let metrics = try http.get("/metrics")
        XCTAssertEqual(metrics.status, 200)
        let samples = try MetricsTests.samples(of: metrics.body)
        XCTAssertEqual(samples["openrealm_sessions_total"], 2)
        XCTAssertEqual(samples["openrealm_changesets_integrated_total"], 1)
        XCTAssertEqual(samples["openrealm_http_requests_total{route=\"auth\"}"], 1, "the login; /hello is the user's")

        // While it runs, the server holds its data directory (the embedded store's).
        if database == nil {
            XCTAssertThrowsError(try DataDirectoryLock(directory: dataDirectory, holder: "test")) {
                XCTAssertTrue("\($0)".contains("in use"), "\($0)")
            }
        }

        // The group shuts down gracefully (the clients have left); the server's run()
        // returns and lets go of the directory.
        Task { await group.triggerGracefulShutdown() }
        XCTAssertEqual(ended.wait(timeout: .now() + 30), .success, "the service group did not shut down")
        XCTAssertNil(failure.error, "the group failed")
        if database == nil {
            XCTAssertNoThrow(try DataDirectoryLock(directory: dataDirectory, holder: "test").release())
        } else {
            XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory.path), "a server on PostgreSQL makes no data directory")
        }
    }

    /// A sync client binds, subscribes and uploads through the application; a second one
    /// bootstraps what it uploaded. Both disconnect on return.
    func syncTwoClients(port: Int, token: String) throws {
        let writer = try TestSyncClient(port: port, appId: "todo")
        try writer.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        _ = try writer.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        try subscribe(writer)
        try writer.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_001),
            instructions: ServerTestCase.taskSchema + [ServerTestCase.task(1, title: "embedded", status: "open")])])))
        _ = try writer.waitFor("the upload's acknowledgement") { message -> Bool? in
            if case .download(let d) = message, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion >= 1 { return true }
            if case .error(let e) = message { XCTFail("upload refused: \(e.message)"); return false }
            return nil
        }
        let reader = try TestSyncClient(port: port, appId: "todo")
        try reader.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        _ = try reader.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        let bootstrap = try subscribe(reader)
        XCTAssertTrue(bootstrap.contains { if case .createObject(_, .int(1), _) = $0 { return true } else { return false } },
                      "the reader's bootstrap holds the uploaded task: \(bootstrap)")
    }

    /// Subscribes session 1 to every Task (query version 1); returns the bootstrap.
    @discardableResult
    func subscribe(_ client: TestSyncClient) throws -> [WireInstruction] {
        try client.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
        var instructions: [WireInstruction] = []
        return try client.waitFor("the bootstrap") { message -> [WireInstruction]? in
            guard case .download(let d) = message, d.queryVersion == 1, d.bootstrap != .none else { return nil }
            instructions += d.changesets.flatMap(\.instructions)
            return d.bootstrap == .lastBatch ? instructions : nil
        }
    }
}

/// The error the service group ended with, if any.
private final class Failure: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Error?

    var error: Error? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set(_ error: Error) {
        lock.lock()
        value = error
        lock.unlock()
    }
}

/// The user's application's port, set by its `onServerRunning`.
private final class Listening: @unchecked Sendable {
    private let condition = NSCondition()
    private var port: Int?

    func set(_ port: Int) {
        condition.lock()
        self.port = port
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: Double) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while port == nil, condition.wait(until: deadline) {}
        guard let port else { throw TestSocket.Failure(description: "the application did not listen within \(timeout) s") }
        return port
    }
}
