import Foundation
import Logging
import ServiceLifecycle
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// A graceful shutdown (SIGTERM under `runService()`, or the service group's) does not
/// wait for sync clients to leave: each connection is told `serverShuttingDown` and
/// closed, so a client reconnects (behind a load balancer, to another process) and the
/// server stops.
final class GracefulShutdownTests: XCTestCase {
    func testABoundClientIsToldTheServerIsStoppingAndTheServerStops() throws {
        var logger = Logger(label: "openrealm-server-test")
        logger.logLevel = .critical
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-shutdown-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory)
        configuration.passwordHashRounds = 1024
        let database = TestStore.isPostgres ? try TestDatabase() : nil
        defer { database?.drop() }
        let server = try database.map { try SyncServer(configuration: configuration, storage: $0.openStorage(), logger: logger) }
            ?? SyncServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let ended = DispatchSemaphore(value: 0)
        Task {
            try? await group.run()
            ended.signal()
        }
        let port = try server.waitUntilRunning(timeout: 30)
        let login = try TestHTTP(port: port).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        let token = try XCTUnwrap(login.body["access_token"] as? String)
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }

        Task { await group.triggerGracefulShutdown() }
        let told = try client.waitFor("the server's notice") { message -> WireErrorMessage? in
            if case .error(let e) = message { return e } else { return nil }
        }
        XCTAssertEqual(told.code, .serverShuttingDown, told.message)
        XCTAssertEqual(ended.wait(timeout: .now() + 20), .success, "the server did not stop while a client stayed connected")
    }
}
