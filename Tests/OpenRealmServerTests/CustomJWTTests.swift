import Crypto
import Foundation
import XCTest
@testable import OpenRealmServer

/// Custom JWT login, verified with the app's configured key.
final class CustomJWTTests: ServerTestCase {
    static let key = "a-shared-secret-of-at-least-32-bytes!"

    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.customJWT = CustomJWTConfiguration(key: Self.key, audience: "todo-app") }
    }

    /// An HS256 token over `claims`, signed with `key`.
    func token(_ claims: [String: Any], key: String = CustomJWTTests.key, alg: String = "HS256") throws -> String {
        let header = JSONWebToken.base64url(try JSONSerialization.data(withJSONObject: ["alg": alg, "typ": "JWT"]))
        let payload = JSONWebToken.base64url(try JSONSerialization.data(withJSONObject: claims))
        let input = header + "." + payload
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return input + "." + JSONWebToken.base64url(Data(mac))
    }

    func login(_ token: String) throws -> TestHTTP.Reply {
        try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/custom-token/login", json: ["token": token])
    }

    func testCustomJWTLogin() throws {
        let now = Int(Date().timeIntervalSince1970)
        let good: [String: Any] = ["sub": "ext-42", "aud": "todo-app", "exp": now + 600, "email": "x@corp.example"]
        let first = try login(try token(good))
        XCTAssertEqual(first.status, 200, "\(first.body)")
        let userId = try XCTUnwrap(first.body["user_id"] as? String)
        // The same subject is the same user; the tokens work like any other.
        XCTAssertEqual(try login(try token(good)).body["user_id"] as? String, userId)
        let profile = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: try XCTUnwrap(first.body["access_token"] as? String))
        XCTAssertEqual(profile.body["user_id"] as? String, userId)
        XCTAssertEqual((profile.body["data"] as? [String: Any])?["email"] as? String, "x@corp.example")
        let refreshed = try http.request("POST", "/api/client/v2.0/auth/session", bearer: try XCTUnwrap(first.body["refresh_token"] as? String))
        XCTAssertEqual(refreshed.status, 201)
        let (_, ident) = try boundClient(token: try XCTUnwrap(first.body["access_token"] as? String))
        XCTAssertGreaterThan(ident.fileIdentity.ident, 0)

        let refused: [(String, String, String)] = [
            (try token(good, key: "another-secret-of-at-least-32-bytes!!"), "InvalidSession", "signature"),
            (try token(good, alg: "none"), "InvalidSession", "HS256"),
            (try token(["sub": "ext-42", "aud": "todo-app", "exp": now - 5]), "TokenExpired", "expired"),
            (try token(["sub": "ext-42", "aud": "other", "exp": now + 600]), "InvalidSession", "'aud'"),
            (try token(["aud": "todo-app", "exp": now + 600]), "InvalidSession", "'sub'"),
            (try token(["sub": "ext-42", "aud": "todo-app"]), "InvalidSession", "'exp'"),
            (try token(["sub": "ext-42", "aud": "todo-app", "exp": now + 600, "nbf": now + 300]), "InvalidSession", "not valid before"),
            ("not.a.jwt!", "InvalidSession", "not a JWT"),
            // Valid for more than the app's most (an hour by default).
            (try token(["sub": "ext-42", "aud": "todo-app", "exp": now + 86_400 * 365]), "InvalidSession", "more than the app's most, 3600 s"),
        ]
        for (bad, code, words) in refused {
            let reply = try login(bad)
            XCTAssertEqual(reply.status, 401, "\(words): \(reply.body)")
            XCTAssertEqual(reply.errorCode, code, words)
            XCTAssertTrue(reply.message.contains(words), "\(words): \(reply.message)")
        }
    }

    func testTheIssuerIsCheckedWhenConfigured() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let settings = CustomJWTConfiguration(key: Self.key, issuer: "https://id.example.com", maxLifetime: 600)
        XCTAssertEqual(try settings.verify(try token(["sub": "s", "exp": now + 600, "iss": "https://id.example.com"]), now: now).subject, "s")
        for (claims, words) in [(["sub": "s", "exp": now + 60, "iss": "https://evil.example.com"], "'iss'"),
                                (["sub": "s", "exp": now + 60], "'iss'"), (["sub": "s", "exp": now + 601, "iss": "https://id.example.com"], "601 s")]
            as [([String: Any], String)] {
            XCTAssertThrowsError(try settings.verify(try token(claims), now: now)) { error in
                XCTAssertTrue("\(error)".contains(words), "\(error)")
            }
        }
        let parsed = try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": {"key": "0123456789abcdef0123456789abcdef", "issuer": "i", "maxLifetimeSeconds": 60}}}"#.utf8))
        XCTAssertEqual(parsed.customJWT, CustomJWTConfiguration(key: "0123456789abcdef0123456789abcdef", issuer: "i", maxLifetime: 60))
    }

    func testConfigurationOfTheProvider() throws {
        let config = try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": {"key": "0123456789abcdef0123456789abcdef", "audience": "x"}}}"#.utf8))
        XCTAssertEqual(config.customJWT, CustomJWTConfiguration(key: "0123456789abcdef0123456789abcdef", audience: "x"))
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": {"key": "short"}}}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("auth.customJWT.key"), "\($0)")
        }
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": {"secret": "x"}}}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("auth.customJWT.secret"), "\($0)")
        }
    }
}

/// Without a key the provider is disabled.
final class CustomJWTDisabledTests: ServerTestCase {
    func testWithoutAKeyTheProviderIsDisabled() throws {
        let reply = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/custom-token/login", json: ["token": "a.b.c"])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.errorCode, "ProviderDisabled")
    }
}
