import Foundation
import Logging
import ServiceLifecycle
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// A graceful shutdown (SIGTERM under `runService()`, or the service group's) is bounded
/// by what the server does, not by its clients: each sync connection is sent a close at
/// once (a client reconnects, behind a load balancer to another process), and one that
/// never answers it is cut off after ``SyncEndpoint/shutdownGrace``.
final class GracefulShutdownTests: XCTestCase {
    func testAClientThatNeverAnswersTheCloseDoesNotHoldTheServerUp() throws {
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
        // A raw client: it reads nothing more and never answers a close.
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }

        let asked = Date()
        Task { await group.triggerGracefulShutdown() }
        XCTAssertEqual(ended.wait(timeout: .now() + 20), .success, "the server did not stop while a client stayed connected")
        XCTAssertLessThan(Date().timeIntervalSince(asked), 15, "the server stopped after the grace, not after its clients")
        withExtendedLifetime(client) {}
    }
}
