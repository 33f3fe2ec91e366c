import Foundation
import Logging
import XCTest
@testable import OpenRealmServer

/// `--trusted-proxy` and `--public-url` without a proxy: the CIDR parser, how
/// `X-Forwarded-For` is read, that only a trusted peer's header counts for the login rate
/// limits and the sync logs, what `/location` answers, and the `426` a sync request
/// without an upgrade gets. `ReverseProxyTests` (OpenRealmSyncTests) runs the same through
/// real Caddy and nginx.
final class TrustedProxyTests: ServerTestCase {
    /// The networks the test's server trusts (set before `restartServer()`).
    var trusted: [IPNetwork] = []
    var publicURL: URL?
    var bindTimeout: Double = 30
    let logs = LogSink()

    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.loginRateLimitPerAddress = RateLimit(burst: 2, perMinute: 1) }
    }

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.trustedProxies = trusted
        configuration.publicURL = publicURL
        configuration.syncBindTimeout = bindTimeout
    }

    override func makeLogger() -> Logger {
        let sink = logs
        var logger = Logger(label: "openrealm-server-proxy") { label in CapturingLogHandler(label: label, sink: sink) }
        logger.logLevel = .info
        return logger
    }

    func testTrustedProxyNetworksParseStrictly() throws {
        for (text, canonical) in [("127.0.0.1/32", "127.0.0.1/32"), ("10.0.0.0/8", "10.0.0.0/8"), ("192.0.2.7", "192.0.2.7/32"),
                                  ("0.0.0.0/0", "0.0.0.0/0"), ("::1", "::1/128"), ("fd00::/8", "fd00::/8"),
                                  ("2001:DB8::/32", "2001:db8::/32"), ("::ffff:10.0.0.0/104", "10.0.0.0/8")] {
            XCTAssertEqual(try IPNetwork(text).description, canonical, text)
        }
        for (text, reason) in [("10.0.0.1/8", "the network is 10.0.0.0/8"), ("fd00::1/8", "the network is fd00::/8"),
                               ("10.0.0.0/33", "from 0 to 32"), ("fd00::/129", "from 0 to 128"), ("10.0.0.0/", "from 0 to 32"),
                               ("10.0.0.0/-1", "from 0 to 32"), ("10.0.0.0/ 8", "from 0 to 32"), ("10.0.0.0/0x8", "from 0 to 32"),
                               ("10.0.0.0/8/9", "from 0 to 32"), ("10.0.0", "is not an IPv4 or IPv6 address"),
                               ("010.0.0.0/8", "is not an IPv4 or IPv6 address"), ("localhost", "is not an IPv4 or IPv6 address"),
                               ("fe80::1%eth0", "is not an IPv4 or IPv6 address"), ("", "is not an IPv4 or IPv6 address"),
                               (" 10.0.0.0/8", "is not an IPv4 or IPv6 address"), ("::ffff:10.0.0.0/8", "at least 96 bits")] {
            XCTAssertThrowsError(try IPNetwork(text), text) { error in
                let message = (error as? ServerError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains("'\(text)'") && message.contains(reason), "\(text): \(message)")
            }
        }
        let loopback = try IPNetwork("127.0.0.0/8")
        XCTAssertTrue(loopback.contains(try XCTUnwrap(IPAddress("127.9.9.9"))))
        XCTAssertTrue(loopback.contains(try XCTUnwrap(IPAddress("::ffff:127.0.0.1"))), "a mapped address is its IPv4 address")
        XCTAssertFalse(loopback.contains(try XCTUnwrap(IPAddress("128.0.0.1"))))
        XCTAssertFalse(try IPNetwork("::/0").contains(try XCTUnwrap(IPAddress("127.0.0.1"))))
    }

    func testForwardedForIsReadFromTheRightPastTrustedProxies() throws {
        let resolver = ForwardedClient(trustedProxies: [try IPNetwork("127.0.0.1/32"), try IPNetwork("10.0.0.0/8")])
        let cases: [(peer: String, fields: [String], client: String, why: String)] = [
            ("203.0.113.9", ["198.51.100.7"], "203.0.113.9", "an untrusted peer's header is ignored"),
            ("::ffff:203.0.113.9", [], "203.0.113.9", "a mapped peer is its IPv4 address"),
            ("127.0.0.1", [], "127.0.0.1", "a trusted peer without the header is the client"),
            ("127.0.0.1", ["198.51.100.7"], "198.51.100.7", "the proxy's client"),
            ("::ffff:127.0.0.1", ["198.51.100.7"], "198.51.100.7", "a trusted peer through a dual-stack socket"),
            ("127.0.0.1", ["1.1.1.1, 198.51.100.7, 10.0.0.5"], "198.51.100.7", "the right-most untrusted; a forged entry is left of it"),
            ("127.0.0.1", ["1.1.1.1", "198.51.100.7 ,10.1.2.3"], "198.51.100.7", "several fields are one list"),
            ("127.0.0.1", ["10.0.0.1, 10.0.0.2"], "10.0.0.1", "all trusted: the left-most"),
            ("127.0.0.1", ["198.51.100.7, unknown, 10.0.0.2"], "10.0.0.2", "garbage ends the walk at the trusted hop"),
            ("127.0.0.1", ["garbage"], "127.0.0.1", "garbage from the proxy itself leaves the peer"),
            ("127.0.0.1", ["[2001:db8::1]:4711"], "2001:db8::1", "a bracketed IPv6 address with a port"),
            ("127.0.0.1", ["198.51.100.7:4711"], "198.51.100.7", "an IPv4 address with a port"),
            ("127.0.0.1", ["2001:DB8::1"], "2001:db8::1", "canonical text"),
        ]
        for c in cases {
            XCTAssertEqual(resolver.clientAddress(peer: c.peer, forwardedFor: c.fields), c.client, c.why)
        }
        XCTAssertEqual(ForwardedClient(trustedProxies: []).clientAddress(peer: "127.0.0.1", forwardedFor: ["198.51.100.7"]), "127.0.0.1",
                       "no trusted proxies: the header means nothing")
    }

    /// From a trusted peer each forwarded address has its own login bucket: one emptied,
    /// another still logs in.
    func testLoginBucketsKeyOnTheForwardedAddressFromATrustedPeer() throws {
        trusted = [try IPNetwork("127.0.0.1/32")]
        try restartServer()
        for _ in 0..<2 { XCTAssertEqual(try anonymousLogin(from: "198.51.100.7").status, 200) }
        let refused = try anonymousLogin(from: "198.51.100.7")
        XCTAssertEqual(refused.status, 429)
        XCTAssertTrue(refused.message.contains("198.51.100.7"), refused.message)
        XCTAssertEqual(try anonymousLogin(from: "203.0.113.9").status, 200, "another client's bucket is its own")
        XCTAssertEqual(try anonymousLogin(from: "1.1.1.1, 203.0.113.9").status, 200, "a forged entry left of the client is not its key")
    }

    /// From a peer outside the trusted networks a forged header is ignored: every
    /// request takes from the peer's own bucket, whatever address it claims.
    func testAForgedForwardedForFromAnUntrustedPeerIsIgnored() throws {
        trusted = [try IPNetwork("10.0.0.0/8")]
        try restartServer()
        XCTAssertEqual(try anonymousLogin(from: "198.51.100.7").status, 200)
        XCTAssertEqual(try anonymousLogin(from: "203.0.113.9").status, 200)
        let refused = try anonymousLogin(from: "192.0.2.44")
        XCTAssertEqual(refused.status, 429)
        XCTAssertTrue(refused.message.contains("127.0.0.1") && !refused.message.contains("192.0.2.44"), refused.message)
    }

    /// A sync connection's log lines name its client: the forwarded address from a
    /// trusted proxy, the peer otherwise.
    func testSyncLogLinesNameTheClient() throws {
        bindTimeout = 0.2
        trusted = [try IPNetwork("127.0.0.1/32")]
        try restartServer()
        try assertUnboundConnectionLogged(forwarding: "198.51.100.7", as: "198.51.100.7")

        trusted = [try IPNetwork("10.0.0.0/8")]
        try restartServer()
        try assertUnboundConnectionLogged(forwarding: "192.0.2.44", as: "127.0.0.1")
    }

    func testLocationAnswersThePublicURL() throws {
        publicURL = URL(string: "https://sync.example.com")
        try restartServer()
        var reply = try http.request("GET", "/api/client/v2.0/app/todo/location")
        XCTAssertEqual(reply.body["hostname"] as? String, "https://sync.example.com")
        XCTAssertEqual(reply.body["ws_hostname"] as? String, "wss://sync.example.com")

        publicURL = URL(string: "http://sync.example.com:8080/")
        try restartServer()
        reply = try http.request("GET", "/api/client/v2.0/app/todo/location")
        XCTAssertEqual(reply.body["hostname"] as? String, "http://sync.example.com:8080")
        XCTAssertEqual(reply.body["ws_hostname"] as? String, "ws://sync.example.com:8080")

        publicURL = nil
        try restartServer()
        reply = try http.request("GET", "/api/client/v2.0/app/todo/location")
        XCTAssertEqual(reply.body["hostname"] as? String, "http://127.0.0.1:\(port)", "without one, the listening address")
    }

    func testABadPublicURLStopsTheServerAtStart() throws {
        for (text, reason) in [("ftp://sync.example.com", "must start with https://"), ("sync.example.com", "must start with https://"),
                               ("https://", "has no host"), ("https://sync.example.com/realm", "no path, query or user"),
                               ("https://sync.example.com/?a=1", "no path, query or user"),
                               ("https://ann:pw@sync.example.com", "no path, query or user")] {
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, app: appConfiguration)
            configuration.publicURL = URL(string: text)
            XCTAssertThrowsError(try configuration.validate(), text) { error in
                let message = (error as? ServerError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains("'\(text)'") && message.contains("--public-url") && message.contains(reason), message)
            }
        }
    }

    /// Without a public URL, a server listening on every address answers with the address
    /// the client asked for (the `Host` field) when it is well formed.
    func testAWildcardListenerAnswersTheRequestedHost() {
        let location = PublicLocation(publicURL: nil, host: "0.0.0.0", secure: true)
        XCTAssertEqual(location.urls(port: 8443, requestHost: "sync.internal:8443").http, "https://sync.internal:8443")
        XCTAssertEqual(location.urls(port: 8443, requestHost: "[fd00::5]:8443").ws, "wss://[fd00::5]:8443")
        XCTAssertEqual(location.urls(port: 8443, requestHost: "evil.com/x?").http, "https://0.0.0.0:8443", "a malformed Host is not echoed")
        XCTAssertEqual(PublicLocation(publicURL: nil, host: "::1", secure: false).urls(port: 9090, requestHost: nil).ws, "ws://[::1]:9090")
    }

    /// A GET of the sync endpoint without `Upgrade: websocket` (what a proxy that drops
    /// the upgrade fields sends) is answered 426, naming the missing fields.
    func testASyncRequestWithoutAnUpgradeIsAnswered426() throws {
        let reply = try http.get("/api/client/v2.0/app/todo/realm-sync")
        XCTAssertEqual(reply.status, 426, reply.head)
        XCTAssertTrue(reply.body.contains("Upgrade: websocket") && reply.body.contains("proxy_set_header Upgrade"), reply.body)
        XCTAssertTrue(reply.head.lowercased().contains("upgrade: websocket"), reply.head)
    }

    private func anonymousLogin(from forwardedFor: String) throws -> TestHTTP.Reply {
        try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:],
                         headers: ["X-Forwarded-For: \(forwardedFor)"])
    }

    /// Opens a sync WebSocket claiming `forwardedFor` and binds nothing: the server's
    /// "did not bind in time" line must carry `client=<logged>`.
    private func assertUnboundConnectionLogged(forwarding forwardedFor: String, as logged: String,
                                               file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try TestSyncClient(port: port, appId: "todo", headers: ["X-Forwarded-For: \(forwardedFor)"])
        _ = try client.waitForClose()
        let deadline = Date().addingTimeInterval(10)
        var lines: [String] = []
        while Date() < deadline {
            lines = logs.lines.filter { $0.contains("did not bind in time") }
            if lines.contains(where: { $0.contains("client=\(logged)") }) { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTFail("no 'did not bind in time' line with client=\(logged): \(lines)", file: file, line: line)
    }
}
