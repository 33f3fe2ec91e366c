import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import OpenRealmPostgres
import OpenRealmPostgresTestSupport
import OpenRealmServer
import XCTest

/// The public way to serve a PostgreSQL database from one's own program
/// (``PostgresServerStore``): through the library's public names only (no `@testable`
/// import in this file).
final class PostgresServerStoreTests: XCTestCase {
    func testABadOrUnreachableStoreIsNamedWithoutItsPassword() {
        XCTAssertThrowsError(try PostgresServerStore(url: "postgres://openrealm@db.internal", environment: [:])) { error in
            XCTAssertTrue(error is ServerError, "\(type(of: error))")
            XCTAssertTrue("\(error)".contains("names no database"), "\(error)")
        }
        var logger = Logger(label: "openrealm-postgres-tests")
        logger.logLevel = .critical
        XCTAssertThrowsError(try PostgresServerStore(url: "postgres://openrealm:hunter2-secret@127.0.0.1:1/openrealm?sslmode=disable",
                                                     environment: [:], logger: logger)) { error in
            XCTAssertTrue("\(error)".contains("127.0.0.1:1/openrealm"), "\(error)")
            XCTAssertFalse("\(error)".contains("hunter2-secret"), "\(error)")
        }
    }

    func testAServerOverTheStoreLogsInAndStopsCleanly() throws {
        let cluster = try PostgresCluster.shared()
        let database = try cluster.makeDatabase().database
        var logger = Logger(label: "openrealm-postgres-tests")
        logger.logLevel = .critical
        let store = try PostgresServerStore(url: "postgres://\(PostgresCluster.superuser)@/\(database)?host=\(cluster.socketDirectory)&port=\(cluster.port)",
                                            environment: [:], logger: logger)
        defer { store.close() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-pg-store-\(UUID().uuidString)")
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory)
        configuration.passwordHashRounds = 1024
        let server = try SyncServer(configuration: configuration, store: store, logger: logger)
        let stopped = DispatchSemaphore(value: 0)
        let task = Task {
            try? await server.run()
            stopped.signal()
        }
        let port = try server.waitUntilRunning(timeout: 30)

        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/client/v2.0/app/todo/auth/providers/anon-user/login")!)
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status = 0
        URLSession.shared.dataTask(with: request) { _, response, _ in
            status = (response as? HTTPURLResponse)?.statusCode ?? -1
            answered.signal()
        }.resume()
        XCTAssertEqual(answered.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(status, 200)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "a server on PostgreSQL makes no data directory")

        task.cancel()
        XCTAssertEqual(stopped.wait(timeout: .now() + 15), .success, "the server did not stop")
    }
}
