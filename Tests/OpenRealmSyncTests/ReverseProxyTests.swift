import Foundation
import OpenRealmServer
import XCTest
@testable import OpenRealmSync
import RealmSwift
import OpenRealmTestSupport

/// openrealm-server behind real reverse proxies, as docs/DEPLOY.md sets them up: Caddy
/// and nginx (``TestProxy``, running `docs/deploy/Caddyfile` and `docs/deploy/nginx.conf`)
/// terminate TLS on loopback with a certificate of the test CA and pass HTTP and the sync
/// WebSocket to the server, started with `publicURL` = the proxy's URL and
/// `trustedProxies` = 127.0.0.1/32. A RealmSwift client that trusts the test CA syncs
/// through each; `/location` answers the public URL; the login limits key on the address
/// the proxy forwards; and a proxy that drops the upgrade fields stops the session with
/// an error that says so.
///
/// Everything runs on 127.0.0.1, so the test client's own address is the proxy's too,
/// and trusted: an `X-Forwarded-For` it sends through nginx (which appends to it) is
/// read as its address, which is how one client plays several here. The forged header
/// from an untrusted peer is `TrustedProxyTests.testAForgedForwardedForFromAnUntrustedPeerIsIgnored`.
final class ReverseProxyTests: SyncTestCase {
    var certificates: TestCertificates!
    var proxyPort = 0
    var proxy: TestProxy?
    /// The server's login bucket per address: small, so that a test can empty one.
    var loginBurst = 100

    override var serverApp: ServerAppConfiguration? {
        var config = ServerAppConfiguration.development(appId: appId)
        config.loginRateLimitPerAddress = RateLimit(burst: loginBurst, perMinute: 1)
        return config
    }

    override func setUpWithError() throws {
        certificates = try TestCertificates.make()
        proxyPort = try freeLoopbackPort()
        serverPublicURL = URL(string: "https://127.0.0.1:\(proxyPort)")
        serverTrustedProxies = [try IPNetwork("127.0.0.1/32")]
        try super.setUpWithError()
        clientTrustedRoots = certificates.caFile
    }

    override func tearDownWithError() throws {
        try super.tearDownWithError()
        proxy?.stop()
        certificates?.remove()
    }

    /// The app talks to the proxy, never to the server directly.
    override var baseURL: String { "https://127.0.0.1:\(proxyPort)" }

    /// Starts a proxy of `kind` in front of the test's server.
    func startProxy(_ kind: TestProxy.Kind, edit: (String) -> String = { $0 }) throws {
        let tls = certificates.server(.valid)
        proxy = try TestProxy(kind, port: proxyPort, upstreamPort: port, certificate: tls.certificateChainFile,
                              key: tls.privateKeyFile, directory: certificates.directory, edit: edit)
    }

    /// Restarts the server with a login bucket of `burst` per address and puts a proxy
    /// of `kind` in front of it.
    func restartWithLoginBurst(_ burst: Int, behind kind: TestProxy.Kind) throws {
        loginBurst = burst
        stopServer()
        try startServer()
        try startProxy(kind)
    }

    @MainActor
    func testSyncThroughCaddy() async throws {
        try startProxy(.caddy)
        try await assertSyncsAndLocates()
    }

    @MainActor
    func testSyncThroughNginx() async throws {
        try startProxy(.nginx)
        try await assertSyncsAndLocates()
    }

    /// Through nginx, each forwarded client address has its own login bucket: one
    /// emptied, another still logs in.
    @MainActor
    func testLoginBucketsKeyOnTheForwardedAddressThroughNginx() async throws {
        try restartWithLoginBurst(2, behind: .nginx)
        for _ in 0..<2 {
            let accepted = try await anonymousLogin(forwardedFor: "198.51.100.7")
            XCTAssertEqual(accepted.status, 200)
        }
        let refused = try await anonymousLogin(forwardedFor: "198.51.100.7")
        XCTAssertEqual(refused.status, 429)
        let message = String(decoding: refused.body, as: UTF8.self)
        XCTAssertTrue(message.contains("198.51.100.7"), message)
        let other = try await anonymousLogin(forwardedFor: "203.0.113.9")
        XCTAssertEqual(other.status, 200, "another client's bucket is its own")
    }

    /// Caddy trusts no client's `X-Forwarded-For` (docs/deploy/Caddyfile says so): what
    /// a client sends itself does not reach the server, so every claimed address shares
    /// the client's real bucket.
    @MainActor
    func testCaddyDropsTheClientsOwnForwardedFor() async throws {
        try restartWithLoginBurst(2, behind: .caddy)
        let first = try await anonymousLogin(forwardedFor: "198.51.100.7")
        let second = try await anonymousLogin(forwardedFor: "203.0.113.9")
        XCTAssertEqual([first.status, second.status], [200, 200])
        let refused = try await anonymousLogin(forwardedFor: "192.0.2.44")
        XCTAssertEqual(refused.status, 429)
        let message = String(decoding: refused.body, as: UTF8.self)
        XCTAssertTrue(message.contains("127.0.0.1"), message)
    }

    /// nginx without `proxy_set_header Upgrade/Connection` (the most common proxy
    /// mistake): logging in works, and the sync session stops with a
    /// `SyncError.connectionFailed` to the error handler and the waits, naming the status
    /// and the missing fields, reported once — not a retry at a hidden log level.
    @MainActor
    func testAProxyThatDropsTheUpgradeFieldsIsAClearError() async throws {
        try startProxy(.nginx) { site in
            site.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.contains("proxy_set_header Upgrade") && !$0.contains("proxy_set_header Connection") }
                .joined(separator: "\n")
        }
        let errors = ErrorLog()
        app.syncManager.errorHandler = { error, _ in errors.append(error) }
        defer { app.syncManager.errorHandler = nil }
        let user = try await newUser("a")
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { $0.append(QuerySubscription<Task>()) })
        config.objectTypes = [Task.self, Team.self]
        let realm = try await Realm(configuration: config)
        let session = try XCTUnwrap(realm.syncSession)
        try realm.write { realm.add(Task(value: ["taskName": "waits for its upload"])) }
        let upload = _Concurrency.Task { () -> Error? in
            do { try await session.wait(for: .upload); return nil } catch { return error }
        }
        try await waitUntil("the session to stop with an error", timeout: 30) { errors.upgrade != nil }
        let error = try XCTUnwrap(errors.upgrade)
        for part in ["127.0.0.1:\(proxyPort)", "HTTP 426", "'Upgrade: websocket'", "proxy_set_header Upgrade"] {
            XCTAssertTrue(error.message.contains(part), "'\(error.message)' does not say '\(part)'")
        }
        XCTAssertEqual(session.state, .inactive)
        let waitError = await upload.value as? SyncError
        XCTAssertEqual(waitError?.code, .connectionFailed)
        XCTAssertEqual(errors.all.count, 1, "reported once, not on every retry: \(errors.all)")
    }

    /// Two users sync a task through the proxy (HTTPS calls and the WSS upgrade), and
    /// `/location`, asked through the proxy, answers the public URL.
    @MainActor
    private func assertSyncsAndLocates(file: StaticString = #filePath, line: UInt = #line) async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        try a.write { a.add(Task(value: ["taskName": "through \(proxy!.kind)"])) }
        try await a.syncSession!.wait(for: .upload)
        XCTAssertEqual(a.syncSession!.connectionState, .connected, file: file, line: line)
        let (_, b) = try await openAllTasksAndTeams("b")
        XCTAssertEqual(b.objects(Task.self).map(\.taskName), ["through \(proxy!.kind)"], file: file, line: line)

        let location = try await app.state.transport.send("GET", "/api/client/v2.0/app/\(appId)/location")
        XCTAssertEqual(location.body["hostname"] as? String, "https://127.0.0.1:\(proxyPort)", file: file, line: line)
        XCTAssertEqual(location.body["ws_hostname"] as? String, "wss://127.0.0.1:\(proxyPort)", file: file, line: line)
        let metrics = try await request("GET", "/metrics")
        XCTAssertEqual(metrics.status, 403, "the proxy keeps the counters private", file: file, line: line)
    }

    /// docs/DEPLOY.md shows the files these tests run, as they are.
    func testDeployGuideShowsTheTestedFiles() throws {
        let guide = try String(contentsOf: TestProxy.deployDirectory.appendingPathComponent("../DEPLOY.md").standardized, encoding: .utf8)
        for name in ["Caddyfile", "nginx.conf", "openrealm-server.service"] {
            let file = try String(contentsOf: TestProxy.deployDirectory.appendingPathComponent(name), encoding: .utf8)
            XCTAssertTrue(guide.contains("\n" + file + "```"), "docs/DEPLOY.md does not show docs/deploy/\(name) as it is")
        }
    }

    /// An anonymous login through the proxy with `X-Forwarded-For: forwardedFor`.
    private nonisolated(nonsending) func anonymousLogin(forwardedFor: String) async throws -> HTTPSClient.Answer {
        try await request("POST", "/api/client/v2.0/app/\(appId)/auth/providers/anon-user/login",
                          headers: [("Content-Type", "application/json"), ("X-Forwarded-For", forwardedFor)], body: Data("{}".utf8))
    }

    /// One request through the proxy, trusting the test CA.
    private nonisolated(nonsending) func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: Data? = nil) async throws
        -> HTTPSClient.Answer {
        let configuration = app.state.configuration
        return try await HTTPSClient.send(method: method, url: try XCTUnwrap(URL(string: baseURL + path)), headers: headers, body: body,
                                          timeout: 10, tls: try configuration.tlsContext(), trust: configuration.trustDescription)
    }
}

extension ErrorLog {
    /// The first refused upgrade reported.
    var upgrade: SyncError? { all.compactMap { $0 as? SyncError }.first { $0.code == .connectionFailed } }
}
