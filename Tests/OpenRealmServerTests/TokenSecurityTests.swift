import Crypto
import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Forged, foreign, revoked and stale tokens are refused over HTTP and on the sync
/// WebSocket, each with a message naming the cause.
final class TokenSecurityTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? { ServerAppConfiguration.development(appId: "todo") }

    struct Login {
        var access: String
        var refresh: String
        var id: String
    }

    func emailLogin(_ email: String) throws -> Login {
        let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        XCTAssertEqual(try http.request("POST", "\(base)/register", json: ["email": email, "password": "secret1"]).status, 201)
        let reply = try http.request("POST", "\(base)/login", json: ["username": email, "password": "secret1"])
        return Login(access: try XCTUnwrap(reply.body["access_token"] as? String), refresh: try XCTUnwrap(reply.body["refresh_token"] as? String),
                     id: try XCTUnwrap(reply.body["user_id"] as? String))
    }

    var signer: JSONWebToken { get throws { JSONWebToken(key: try masterSigningKey()) } }

    /// A token with `header` and `claims`, signed with `key` (nil: an empty signature).
    func token(header: [String: Any], claims: TokenClaims, key: SymmetricKey?) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let input = JSONWebToken.base64url(try JSONSerialization.data(withJSONObject: header)) + "."
            + JSONWebToken.base64url(try encoder.encode(claims))
        guard let key else { return input + "." }
        return input + "." + JSONWebToken.base64url(Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key)))
    }

    /// Binds with `token` and returns the session's error.
    func bindError(_ token: String) throws -> WireErrorMessage {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        return try client.waitFor("the bind's error") { if case .error(let e) = $0 { return e } else { return nil } }
    }

    func testRefreshTokensOfAnotherUserOrRevokedAreRefused() throws {
        let ann = try emailLogin("ann@example.com")
        let bob = try emailLogin("bob@example.com")
        // Ann's refresh token record, claimed for Bob (signed with the server's own key,
        // as only a leaked key would allow): the record's user does not match.
        var claims = try signer.verify(ann.refresh, kind: "refresh", now: 0)
        claims.sub = bob.id
        let crossed = try http.request("POST", "/api/client/v2.0/auth/session", bearer: try signer.sign(claims))
        XCTAssertEqual(crossed.status, 401)
        XCTAssertEqual(crossed.errorCode, "InvalidSession")
        XCTAssertTrue(crossed.message.contains("unknown"), crossed.message)
        // Bob cannot log Ann out with his own token either: logout revokes only the token given.
        XCTAssertEqual(try http.request("DELETE", "/api/client/v2.0/auth/session", bearer: bob.refresh).status, 204)
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/auth/session", bearer: ann.refresh).status, 201)
        let revoked = try http.request("POST", "/api/client/v2.0/auth/session", bearer: bob.refresh)
        XCTAssertEqual(revoked.errorCode, "InvalidSession")
        XCTAssertTrue(revoked.message.contains("revoked"), revoked.message)
        // A refresh token does not authenticate as an access token.
        let asAccess = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: ann.refresh)
        XCTAssertEqual(asAccess.errorCode, "InvalidSession")
        XCTAssertEqual(try bindError(ann.refresh).code, .badAuthentication)
    }

    func testForgedForeignStaleAndOrphanedAccessTokensAreRefused() throws {
        let ann = try emailLogin("ann@example.com")
        let gone = try emailLogin("gone@example.com")
        let key = try masterSigningKey()
        let claims = try signer.verify(ann.access, kind: "access", now: 0)
        let hs256: [String: Any] = ["alg": "HS256", "typ": "JWT"]
        var foreign = claims
        foreign.aud = "other-app"
        var expired = claims
        expired.iat = 1_000
        expired.exp = 2_000
        try server.auth.apps.app("todo").storage.accounts.removeUser(id: gone.id)

        let cases: [(String, String, String, String, SyncErrorCode)] = [
            ("bad signature", try token(header: hs256, claims: claims, key: SymmetricKey(size: .bits256)), "InvalidSession", "signature", .badAuthentication),
            ("alg none", try token(header: ["alg": "none", "typ": "JWT"], claims: claims, key: nil), "InvalidSession", "HS256", .badAuthentication),
            ("alg none, server key", try token(header: ["alg": "none"], claims: claims, key: key), "InvalidSession", "HS256", .badAuthentication),
            ("wrong audience", try token(header: hs256, claims: foreign, key: key), "InvalidSession", "other-app", .badAuthentication),
            ("expired", try token(header: hs256, claims: expired, key: key), "TokenExpired", "expired", .tokenExpired),
            ("removed user", gone.access, "InvalidSession", "does not exist", .badAuthentication),
        ]
        for (what, bad, code, words, syncCode) in cases {
            let reply = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: bad)
            XCTAssertEqual(reply.status, 401, "\(what): \(reply.body)")
            XCTAssertEqual(reply.errorCode, code, what)
            XCTAssertTrue(reply.message.contains(words), "\(what): \(reply.message)")
            let error = try bindError(bad)
            XCTAssertEqual(error.code, syncCode, "\(what): \(error.message)")
            XCTAssertTrue(error.message.contains(words), "\(what): \(error.message)")
            XCTAssertTrue(error.isFatal, what)
        }
        // The removed user's refresh token is revoked, and the genuine token still works.
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/auth/session", bearer: gone.refresh).errorCode, "InvalidSession")
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/auth/profile", bearer: ann.access).status, 200)
        let (_, ident) = try boundClient(token: ann.access)
        XCTAssertGreaterThan(ident.fileIdentity.ident, 0)
    }
}

/// Login attempts are limited per email and per remote address (token buckets).
final class LoginRateLimitTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp {
            $0.loginRateLimitPerEmail = RateLimit(burst: 3, perMinute: 1)
            $0.loginRateLimitPerAddress = RateLimit(burst: 8, perMinute: 1)
        }
    }

    func login(_ email: String, _ password: String) throws -> TestHTTP.Reply {
        try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/login",
                         json: ["username": email, "password": password])
    }

    func testAttemptsPastTheLimitsGet429WithRetryAfter() throws {
        // One registration: one token from the address's bucket (7 left).
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/register",
                                         json: ["email": "ann@example.com", "password": "secret1"]).status, 201)
        for _ in 0..<3 { XCTAssertEqual(try login("ann@example.com", "guess-1").errorCode, "InvalidPassword") }
        // Ann's bucket is empty: even the right password waits.
        let limited = try login("ann@example.com", "secret1")
        XCTAssertEqual(limited.status, 429, "\(limited.body)")
        XCTAssertEqual(limited.errorCode, "TooManyRequests")
        XCTAssertTrue(limited.message.contains("'ann@example.com'"), limited.message)
        XCTAssertTrue(limited.message.contains("retry in"), limited.message)
        let retryAfter = limited.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("retry-after:") }
        let seconds = Int(retryAfter?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
        XCTAssertNotNil(seconds, limited.head)
        XCTAssertGreaterThanOrEqual(seconds ?? 0, 1)
        // The same spelling in other case is the same email.
        XCTAssertEqual(try login("ANN@example.com", "secret1").status, 429)

        // Other emails go on from this address until its bucket (8) is empty: 6 used
        // so far (the registration, and the refused attempts took the address's tokens too).
        for i in 0..<2 { XCTAssertEqual(try login("user\(i)@example.com", "guess-1").errorCode, "InvalidPassword") }
        let address = try login("zed@example.com", "guess-1")
        XCTAssertEqual(address.status, 429)
        XCTAssertTrue(address.message.contains("127.0.0.1"), address.message)
        // Every provider counts against the address.
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:]).status, 429)
    }

    func testTheLimitsAreConfigurable() throws {
        let config = try ServerAppConfiguration.parse(Data(#"""
            {"appId": "a", "rateLimits": {"loginPerAddress": {"burst": 5, "perMinute": 2}, "loginPerEmail": {"burst": 2, "perMinute": 1}}}
            """#.utf8))
        XCTAssertEqual(config.loginRateLimitPerAddress, RateLimit(burst: 5, perMinute: 2))
        XCTAssertEqual(config.loginRateLimitPerEmail, RateLimit(burst: 2, perMinute: 1))
        XCTAssertEqual(ServerAppConfiguration.development(appId: "a").loginRateLimitPerEmail, RateLimit(burst: 10, perMinute: 10))
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "rateLimits": {"loginPerEmail": {"burst": 0, "perMinute": 1}}}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("rateLimits.loginPerEmail.burst"), "\($0)")
        }
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "rateLimits": {"loginPerEmail": {"burst": 2}}}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("perMinute"), "\($0)")
        }
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "rateLimits": {"signups": {}}}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("rateLimits.signups"), "\($0)")
        }
    }

    func testTheBucketRefills() {
        let limiter = LoginRateLimiter()
        let limit = RateLimit(burst: 2, perMinute: 60)
        XCTAssertNil(limiter.take("k", limit: limit, now: 100))
        XCTAssertNil(limiter.take("k", limit: limit, now: 100))
        XCTAssertEqual(limiter.take("k", limit: limit, now: 100), 1)
        XCTAssertNil(limiter.take("other", limit: limit, now: 100))
        XCTAssertNil(limiter.take("k", limit: limit, now: 101))
        XCTAssertNotNil(limiter.take("k", limit: limit, now: 101))
    }
}
