import Foundation
import Logging
import OpenRealmServer
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Starts a real `SyncServer` in development mode on a free loopback port for each
/// test, with its own data directory, and gives the test an app id of its own and a
/// temporary sync root directory.
class SyncTestCase: XCTestCase {
    var dataDirectory: URL!
    var rootDirectory: URL!
    var server: SyncServer!
    var port = 0
    var appId = ""
    private var runTask: _Concurrency.Task<Void, Never>?
    private let stopped = DispatchSemaphore(value: 0)

    override func setUpWithError() throws {
        let unique = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-sync-server-\(unique)")
        rootDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-sync-client-\(unique)")
        appId = "test-\(unique.prefix(12))"
        try startServer()
    }

    /// The server's app configuration; nil (the default) runs it in development mode for
    /// any app id. A subclass returns one for `appId` to test a configured app.
    var serverApp: ServerAppConfiguration? { nil }

    /// What sends the server's mails (confirmations, password resets); nil: none.
    var serverMailer: (any MailSender)? { nil }
    /// TLS for the next `startServer()`: nil serves plain HTTP (the default), else HTTPS
    /// and WSS, and `baseURL` says `https://`.
    var serverTLS: ServerTLSConfiguration?
    /// The client's ``AppConfiguration/trustedRootCertificatesFile`` (nil: the system's trust store).
    var clientTrustedRoots: URL?
    /// The server's ``ServerConfiguration/publicURL`` and ``ServerConfiguration/trustedProxies``
    /// for the next `startServer()` (a reverse proxy in front).
    var serverPublicURL: URL?
    var serverTrustedProxies: [IPNetwork] = []

    func startServer() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: port, dataDirectory: dataDirectory, app: serverApp)
        configuration.tls = serverTLS
        configuration.publicURL = serverPublicURL
        configuration.trustedProxies = serverTrustedProxies
        configuration.passwordHashRounds = 1024
        configuration.mailer = serverMailer
        var logger = Logging.Logger(label: "openrealm-sync-test-server")
        logger.logLevel = .critical
        let server = try SyncServer(configuration: configuration, logger: logger)
        self.server = server
        let stopped = self.stopped
        runTask = _Concurrency.Task {
            do { try await server.run() } catch {}
            stopped.signal()
        }
        port = try server.waitUntilRunning(timeout: 30)
    }

    func stopServer() {
        runTask?.cancel()
        XCTAssertEqual(stopped.wait(timeout: .now() + 15), .success, "the server did not stop")
        runTask = nil
    }

    override func tearDownWithError() throws {
        for user in app.allUsers.values { SyncSessionRegistry.shared.stopSessions(of: user) }
        if runTask != nil { stopServer() }
        try? FileManager.default.removeItem(at: dataDirectory)
        try? FileManager.default.removeItem(at: rootDirectory)
    }

    var baseURL: String { "\(serverTLS == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// The test's app, pointing at the test's server.
    var app: App {
        App(id: appId, configuration: OpenRealmSync.AppConfiguration(baseURL: baseURL, rootDirectory: rootDirectory,
                                                                     trustedRootCertificatesFile: clientTrustedRoots))
    }

    /// Registers and logs in a new email/password user.
    nonisolated(nonsending) func newUser(_ name: String = "user") async throws -> User {
        let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com"
        try await app.emailPasswordAuth.registerUser(email: email, password: "password1")
        return try await app.login(credentials: .emailPassword(email: email, password: "password1"))
    }

    /// A flexible sync configuration of `user` for the seed's model.
    func flexConfig(_ user: User) -> Realm.Configuration {
        var config = user.flexibleSyncConfiguration()
        config.objectTypes = [Task.self, Team.self]
        return config
    }

    /// Waits until `condition` holds, failing after `timeout` seconds.
    nonisolated(nonsending) func waitUntil(_ what: String, timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line,
                   _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else {
                XCTFail("timed out waiting for \(what)", file: file, line: line)
                throw SyncError(.timedOut, "timed out waiting for \(what)")
            }
            try await _Concurrency.Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Suspends `realm`'s session and waits until it has disconnected; returns the session.
    @discardableResult
    nonisolated(nonsending) func suspendSession(of realm: Realm) async throws -> SyncSession {
        let session = try XCTUnwrap(realm.syncSession)
        session.suspend()
        try await waitUntil("the session to disconnect") { session.connectionState == .disconnected }
        return session
    }
}

/// The seed's model.
class Task: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
    @Persisted var dueDate: Date
}

class Team: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<Task>
    @Persisted var members: List<String>
}
