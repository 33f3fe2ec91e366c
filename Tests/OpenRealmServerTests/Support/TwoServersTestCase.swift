import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Two real servers on loopback over one store (``SharedAppStores``; each server its
/// own data directory and lock, one signing key), as two server processes over one
/// database would serve it — and on PostgreSQL (``TestStore``) two servers over one
/// database, each with its own pool and commit feed, as two processes. Subclasses
/// configure the app (``appConfiguration``; nil: development mode).
class TwoServersTestCase: XCTestCase {
    var directory: URL!
    var database: TestDatabase?
    var servers: [(server: SyncServer, task: Task<Void, Never>, stopped: DispatchSemaphore)] = []
    var ports: [Int] = []

    /// The app both servers serve, or nil for development mode.
    var appConfiguration: ServerAppConfiguration? { nil }

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
            configuration.app = appConfiguration
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
        try subscribedClientAndFile(port: port, token: token, query).client
    }

    /// A client of the server on `port`, bound and subscribed to the tasks `query`
    /// matches, and the ident of its new client file.
    func subscribedClientAndFile(port: Int, token: String, _ query: String) throws -> (client: TestSyncClient, file: UInt64) {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        let ident = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        try client.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: query)])))
        _ = try client.waitFor("the bootstrap") { m -> Bool? in
            if case .download(let d) = m, d.bootstrap == .lastBatch { return true } else { return nil }
        }
        return (client, ident.fileIdentity.ident)
    }

    /// Uploads one changeset made at server version `base` and returns the server
    /// version of its acknowledgement.
    func upload(_ client: TestSyncClient, clientVersion: UInt64, base: UInt64 = 0, _ instructions: [WireInstruction]) throws -> UInt64 {
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: base,
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
}
