import Foundation
import XCTest
@testable import OpenRealmServer

/// The HTTP auth routes against a real server on a loopback port.
final class AuthTests: ServerTestCase {
    func testHealth() throws {
        let reply = try http.request("GET", "/health")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.body["status"] as? String, "ok")
    }

    func testAnonymousLoginGivesTokensThatAuthenticate() throws {
        let login = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(login.status, 200)
        let access = try XCTUnwrap(login.body["access_token"] as? String)
        let userId = try XCTUnwrap(login.body["user_id"] as? String)
        XCTAssertNotNil(login.body["refresh_token"] as? String)

        let profile = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: access)
        XCTAssertEqual(profile.status, 200)
        XCTAssertEqual(profile.body["user_id"] as? String, userId)
        XCTAssertEqual(profile.body["app_id"] as? String, "todo")
    }

    func testRegisterLoginRefreshLogout() throws {
        let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        XCTAssertEqual(try http.request("POST", "\(base)/register", json: ["email": "Ann@Example.com", "password": "secret1"]).status, 201)

        let again = try http.request("POST", "\(base)/register", json: ["email": "ann@example.com", "password": "another1"])
        XCTAssertEqual(again.status, 409)
        XCTAssertEqual(again.errorCode, "AccountNameInUse")
        XCTAssertTrue(again.message.contains("ann@example.com"), again.message)

        let wrong = try http.request("POST", "\(base)/login", json: ["username": "ann@example.com", "password": "wrong-one"])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(wrong.errorCode, "InvalidPassword")
        let unknown = try http.request("POST", "\(base)/login", json: ["username": "bob@example.com", "password": "secret1"])
        XCTAssertEqual(unknown.errorCode, "InvalidPassword")

        let login = try http.request("POST", "\(base)/login", json: ["username": "ann@example.com", "password": "secret1"])
        XCTAssertEqual(login.status, 200, "\(login.body)")
        let access = try XCTUnwrap(login.body["access_token"] as? String)
        let refresh = try XCTUnwrap(login.body["refresh_token"] as? String)
        let profile = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: access)
        XCTAssertEqual((profile.body["data"] as? [String: Any])?["email"] as? String, "ann@example.com")

        let refreshed = try http.request("POST", "/api/client/v2.0/auth/session", bearer: refresh)
        XCTAssertEqual(refreshed.status, 201)
        let newAccess = try XCTUnwrap(refreshed.body["access_token"] as? String)
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/auth/profile", bearer: newAccess).status, 200)

        let accessAsRefresh = try http.request("POST", "/api/client/v2.0/auth/session", bearer: access)
        XCTAssertEqual(accessAsRefresh.status, 401)
        XCTAssertEqual(accessAsRefresh.errorCode, "InvalidSession")

        XCTAssertEqual(try http.request("DELETE", "/api/client/v2.0/auth/session", bearer: refresh).status, 204)
        let afterLogout = try http.request("POST", "/api/client/v2.0/auth/session", bearer: refresh)
        XCTAssertEqual(afterLogout.status, 401)
        XCTAssertEqual(afterLogout.errorCode, "InvalidSession")
        XCTAssertTrue(afterLogout.message.contains("revoked"), afterLogout.message)
    }

    func testBadRequestsAreRefusedWithNamedCauses() throws {
        let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        let short = try http.request("POST", "\(base)/register", json: ["email": "a@b.c", "password": "123"])
        XCTAssertEqual(short.status, 400)
        XCTAssertEqual(short.errorCode, "BadRequest")
        XCTAssertTrue(short.message.contains("password"), short.message)

        let noEmail = try http.request("POST", "\(base)/register", json: ["email": "nobody", "password": "secret1"])
        XCTAssertEqual(noEmail.errorCode, "BadRequest")

        let badApp = try http.request("POST", "/api/client/v2.0/app/..bad/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(badApp.status, 400)
    }

    func testBadAndExpiredTokensAreRefused() throws {
        let garbage = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: "not-a-token")
        XCTAssertEqual(garbage.status, 401)
        XCTAssertEqual(garbage.errorCode, "InvalidSession")

        let access = try anonymousToken()
        var parts = access.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let tampered = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: parts.joined(separator: "."))
        XCTAssertEqual(tampered.errorCode, "InvalidSession")
        XCTAssertTrue(tampered.message.contains("signature"), tampered.message)

        let missing = try http.request("GET", "/api/client/v2.0/auth/profile")
        XCTAssertEqual(missing.errorCode, "InvalidSession")

        // A token signed with the server's own key but already expired.
        let key = try masterSigningKey()
        let claims = try JSONWebToken(key: key).verify(access, kind: "access", now: 0)
        var old = claims
        old.iat = 1_000
        old.exp = 2_000
        let expired = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: JSONWebToken(key: key).sign(old))
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(expired.errorCode, "TokenExpired")
    }
}

/// A server with an app configuration.
final class ConfiguredAppTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp("shop") { $0.anonymousAuth = false }
    }

    func testOnlyTheConfiguredAppAndProvidersAreServed() throws {
        let other = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(other.status, 404)
        XCTAssertEqual(other.errorCode, "AppNotFound")
        let anon = try http.request("POST", "/api/client/v2.0/app/shop/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(anon.errorCode, "ProviderDisabled")
        let base = "/api/client/v2.0/app/shop/auth/providers/local-userpass"
        XCTAssertEqual(try http.request("POST", "\(base)/register", json: ["email": "a@b.c", "password": "secret1"]).status, 201)
    }

    func testConfigurationErrorsNameTheKey() throws {
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId":"a","colour":1}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("'colour'"), "\(error)")
        }
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId":"a","auth":{"anonymous":"yes"}}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("'auth.anonymous'"), "\(error)")
        }
        XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"auth":{}}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("'appId'"), "\(error)")
        }
        let config = try ServerAppConfiguration.parse(Data(#"""
            {"appId":"shop","auth":{"anonymous":false},"queryableFields":{"Task":["status"]},
             "tokens":{"accessTokenLifetimeSeconds":60},"limits":{"maxQueryBytes":1000}}
            """#.utf8))
        XCTAssertFalse(config.anonymousAuth)
        XCTAssertEqual(config.accessTokenLifetime, 60)
        XCTAssertEqual(config.rules.queryableFields?["Task"], ["status"])
        XCTAssertEqual(config.rules.maxQueryBytes, 1000)
    }
}
