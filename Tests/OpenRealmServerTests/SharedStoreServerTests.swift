import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Two real servers on loopback over one store (``SharedAppStores``; each server its
/// own data directory and lock, one signing key): clients of either see what clients
/// of the other upload, as two server processes over one database would serve them —
/// and on PostgreSQL (``TestStore``) two servers over one database, each with its own
/// pool and commit feed, as two processes.
final class SharedStoreServerTests: XCTestCase {
    var directory: URL!
    var database: TestDatabase?
    var servers: [(server: SyncServer, task: Task<Void, Never>, stopped: DispatchSemaphore)] = []
    var ports: [Int] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-shared-servers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("signing.key")
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: key)
        let sharing = SharedAppStores(dataDirectory: directory.appendingPathComponent("shared"))
        database = TestStore.isPostgres ? try TestDatabase() : nil
        for name in ["a", "b"] {
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory.appendingPathComponent(name))
            configuration.passwordHashRounds = 1024
            configuration.signingKey = .file(key)
            var logger = Logger(label: "openrealm-server-test")
            logger.logLevel = .critical
            let server = try database.map { try SyncServer(configuration: configuration, storage: $0.openStorage(), logger: logger) }
                ?? SyncServer(configuration: configuration, logger: logger, sharing: sharing)
            let stopped = DispatchSemaphore(value: 0)
            let task = Task {
                do { try await server.run() } catch { print("server stopped with \(error)") }
                stopped.signal()
            }
            servers.append((server, task, stopped))
            ports.append(try server.waitUntilRunning(timeout: 30))
        }
    }

    override func tearDownWithError() throws {
        for (_, task, stopped) in servers {
            task.cancel()
            XCTAssertEqual(stopped.wait(timeout: .now() + 15), .success, "a server did not stop")
        }
        servers = []
        database?.drop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A client of the server on `port`, bound and subscribed to the tasks `query` matches.
    func subscribedClient(port: Int, token: String, _ query: String) throws -> TestSyncClient {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        try client.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: query)])))
        _ = try client.waitFor("the bootstrap") { m -> Bool? in
            if case .download(let d) = m, d.bootstrap == .lastBatch { return true } else { return nil }
        }
        return client
    }

    /// Uploads one changeset and returns the server version of its acknowledgement.
    func upload(_ client: TestSyncClient, clientVersion: UInt64, _ instructions: [WireInstruction]) throws -> UInt64 {
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: 0,
            timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + clientVersion), instructions: instructions)])))
        return try client.waitFor("the acknowledgement of client version \(clientVersion)") { m -> UInt64? in
            if case .download(let d) = m, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion >= clientVersion {
                return d.progress.serverVersion
            }
            if case .error(let e) = m { XCTFail("upload refused: \(e.message)") }
            return nil
        }
    }

    /// The next download with changesets `client` receives (10 s deadline).
    func nextChangeset(_ client: TestSyncClient) throws -> WireDownloadChangeset {
        try client.waitFor("a download with a changeset") { m -> WireDownloadChangeset? in
            if case .download(let d) = m, let c = d.changesets.first { return c } else { return nil }
        }
    }

    func testClientsOfTwoServersOverOneStoreSeeEachOthersUploads() throws {
        let login = try TestHTTP(port: ports[0]).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        let token = try XCTUnwrap(login.body["access_token"] as? String)
        let onA = try subscribedClient(port: ports[0], token: token, "TRUEPREDICATE")
        let onB = try subscribedClient(port: ports[1], token: token, "status == 'open'")

        let first = try upload(onA, clientVersion: 1, ServerTestCase.taskSchema + [
            ServerTestCase.task(1, title: "a", status: "open"), ServerTestCase.task(2, title: "b", status: "done"),
        ])
        var got = try nextChangeset(onB)
        XCTAssertEqual(got.serverVersion, first)
        XCTAssertEqual(got.instructions, [ServerTestCase.task(1, title: "a", status: "open")], "only the open task is in B's view")

        // Back the other way; then task 1 leaves the view and task 2 enters it through A.
        let second = try upload(onB, clientVersion: 1, [ServerTestCase.task(3, title: "c", status: "open")])
        got = try nextChangeset(onA)
        XCTAssertEqual(got.serverVersion, second)
        XCTAssertEqual(got.instructions, [ServerTestCase.task(3, title: "c", status: "open")])
        let third = try upload(onA, clientVersion: 2, [
            .set(object: ServerTestCase.path(1), property: "status", value: .string("done")),
            .set(object: ServerTestCase.path(2), property: "status", value: .string("open")),
        ])
        got = try nextChangeset(onB)
        XCTAssertEqual(got.serverVersion, third)
        XCTAssertEqual(got.instructions, [.eraseObject(ServerTestCase.path(1)), ServerTestCase.task(2, title: "b", status: "open")])
    }
}
