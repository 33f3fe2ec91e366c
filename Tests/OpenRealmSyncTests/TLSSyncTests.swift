import Foundation
import OpenRealmServer
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Sync across TLS, end to end: the real server serving HTTPS and WSS with certificates
/// made by `openssl` for each test (``TestCertificates``), and a RealmSwift client that
/// trusts the test CA through `AppConfiguration.trustedRootCertificatesFile`. Then each
/// way TLS must refuse, and how the app learns of it: an `AppError` for the HTTP calls,
/// a `SyncError.tlsHandshakeFailed` to the error handler that stops the session (never
/// a silent retry), each naming the server and the reason.
final class TLSSyncTests: SyncTestCase {
    var certificates: TestCertificates!

    override func setUpWithError() throws {
        certificates = try TestCertificates.make()
        try super.setUpWithError()
    }

    override func tearDownWithError() throws {
        try super.tearDownWithError()
        certificates?.remove()
    }

    /// Restarts the test's server on its port and data directory, serving TLS with a
    /// certificate of `kind`.
    func restartServer(_ kind: TestCertificates.Kind) throws {
        stopServer()
        serverTLS = certificates.server(kind)
        try startServer()
    }

    var serverAddress: String { "127.0.0.1:\(port)" }

    @MainActor
    func testLoginAndSyncOverTLSWithAPrivateCA() async throws {
        try restartServer(.valid)
        clientTrustedRoots = certificates.caFile
        XCTAssertTrue(baseURL.hasPrefix("https://"))

        let (_, a) = try await openAllTasksAndTeams("a")
        try a.write { a.add(Task(value: ["taskName": "over TLS"])) }
        try await a.syncSession!.wait(for: .upload)
        XCTAssertEqual(a.syncSession!.connectionState, .connected)
        let (_, b) = try await openAllTasksAndTeams("b")
        XCTAssertEqual(b.objects(Task.self).map(\.taskName), ["over TLS"])

        let location = try await app.state.transport.send("GET", "/api/client/v2.0/app/\(appId)/location")
        XCTAssertEqual(location.body["hostname"] as? String, "https://\(serverAddress)")
        XCTAssertEqual(location.body["ws_hostname"] as? String, "wss://\(serverAddress)")
    }

    @MainActor
    func testAnExpiredCertificateIsRefused() async throws {
        try await assertRefused(.expired, reason: "expired on")
    }

    @MainActor
    func testACertificateForAnotherNameIsRefused() async throws {
        try await assertRefused(.otherName, reason: "is for other.example.com, not 127.0.0.1")
    }

    @MainActor
    func testACertificateFromAnUntrustedCAIsRefused() async throws {
        try await assertRefused(.otherCA, reason: "issued by 'OpenRealm Other CA', which is not in the trusted roots file '\(certificates.caFile.path)'")
    }

    /// Without `trustedRootCertificatesFile` the system's trust store decides, and it
    /// does not know the test CA: nothing falls back to an unverified connection.
    @MainActor
    func testTheSystemTrustStoreIsTheDefault() async throws {
        try restartServer(.valid)
        clientTrustedRoots = nil
        do {
            _ = try await newUser()
            XCTFail("registering with a server the system does not trust succeeded")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .httpRequestFailed)
            assertNames(error.message, "issued by 'OpenRealm Test CA', which is not in the system's trust store")
        }
    }

    /// An `https://` base URL for a server that serves plain HTTP: login and sync each
    /// say that the server does not speak TLS, and the session stops.
    @MainActor
    func testTLSToAPlainServerIsAClearError() async throws {
        let errors = ErrorLog()
        app.syncManager.errorHandler = { error, _ in errors.append(error) }
        defer { app.syncManager.errorHandler = nil }
        let (_, realm) = try await openAllTasksAndTeams("a")
        let session = realm.syncSession!
        XCTAssertEqual(session.connectionState, .connected)

        let tlsApp = App(id: appId, configuration: OpenRealmSync.AppConfiguration(
            baseURL: "https://\(serverAddress)", rootDirectory: rootDirectory, trustedRootCertificatesFile: certificates.caFile))
        do {
            try await tlsApp.emailPasswordAuth.registerUser(email: "tls@example.com", password: "password1")
            XCTFail("registering over TLS with a plain server succeeded")
        } catch let error as AppError {
            assertNames(error.message, "does not speak TLS")
        }
        session.simulateConnectionLoss()
        try await waitUntil("the session to stop with a TLS error", timeout: 30) { errors.tls != nil }
        assertNames(errors.tls!.message, "does not speak TLS")
        XCTAssertEqual(session.state, .inactive)
    }

    /// A trusted roots file that cannot be read is named, for HTTP and for sync.
    @MainActor
    func testAMissingTrustedRootsFileIsNamed() async throws {
        defer { app.syncManager.errorHandler = nil }
        let (_, session, errors) = try await openTrustingTheTestCA()

        let missing = certificates.directory.appendingPathComponent("missing-ca.pem")
        clientTrustedRoots = missing
        do {
            try await app.emailPasswordAuth.registerUser(email: "late@example.com", password: "password1")
            XCTFail("registering with an unreadable trusted roots file succeeded")
        } catch let error as AppError {
            XCTAssertTrue(error.message.contains(missing.path) && error.message.contains("No such file or directory"), error.message)
        }
        session.simulateConnectionLoss()
        try await waitUntil("the session to stop with a TLS error", timeout: 30) { errors.tls != nil }
        XCTAssertTrue(errors.tls!.message.contains(missing.path), errors.tls!.message)
    }

    /// Logs in and syncs over TLS, then restarts the server with a certificate of `kind`:
    /// an HTTP call fails with an `AppError`, and the session stops with a `SyncError`

    /// A realm of user "a" synced over TLS with the test CA trusted, its session, and the
    /// sync errors the app reports from now on (the caller resets the handler).
    @MainActor
    private func openTrustingTheTestCA() async throws -> (Realm, SyncSession, ErrorLog) {
        try restartServer(.valid)
        clientTrustedRoots = certificates.caFile
        let errors = ErrorLog()
        app.syncManager.errorHandler = { error, _ in errors.append(error) }
        let (_, realm) = try await openAllTasksAndTeams("a")
        return (realm, realm.syncSession!, errors)
    }
    /// given to the error handler and to the wait in progress, each naming the server
    /// and `reason`.
    @MainActor
    private func assertRefused(_ kind: TestCertificates.Kind, reason: String, file: StaticString = #filePath,
                               line: UInt = #line) async throws {
        defer { app.syncManager.errorHandler = nil }
        let (realm, session, errors) = try await openTrustingTheTestCA()
        XCTAssertEqual(session.connectionState, .connected, file: file, line: line)

        try restartServer(kind)
        do {
            try await app.emailPasswordAuth.registerUser(email: "late@example.com", password: "password1")
            XCTFail("registering with a refused certificate succeeded", file: file, line: line)
        } catch let error as AppError {
            XCTAssertEqual(error.code, .httpRequestFailed, file: file, line: line)
            assertNames(error.message, reason, file: file, line: line)
        }

        // A write made now waits for its upload; the refused certificate must end the wait.
        try realm.write { realm.add(Task(value: ["taskName": "never uploaded"])) }
        let upload = _Concurrency.Task { () -> Error? in
            do { try await session.wait(for: .upload); return nil } catch { return error }
        }
        session.reconnect()
        try await waitUntil("the session to stop with a TLS error", timeout: 30, file: file, line: line) { errors.tls != nil }
        assertNames(errors.tls!.message, reason, file: file, line: line)
        XCTAssertEqual(session.state, .inactive, file: file, line: line)
        let waitError = await upload.value as? SyncError
        XCTAssertEqual(waitError?.code, .tlsHandshakeFailed, file: file, line: line)
        XCTAssertEqual(errors.all.compactMap { $0 as? SyncError }.filter { $0.code == .tlsHandshakeFailed }.count, 1,
                       "reported once, not on every retry", file: file, line: line)
    }

    /// Checks that `message` names the test's server and `reason`.
    private func assertNames(_ message: String, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(message.contains(serverAddress), "'\(message)' does not name \(serverAddress)", file: file, line: line)
        XCTAssertTrue(message.contains(reason), "'\(message)' does not say '\(reason)'", file: file, line: line)
    }
}

extension ErrorLog {
    /// The first TLS failure reported.
    var tls: SyncError? { all.compactMap { $0 as? SyncError }.first { $0.code == .tlsHandshakeFailed } }
}
