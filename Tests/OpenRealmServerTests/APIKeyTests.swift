import Foundation
import XCTest
@testable import OpenRealmServer

/// User API keys over HTTP: created, listed, used to log in, disabled, enabled and
/// deleted by their user only, and stored hashed.
final class APIKeyTests: ServerTestCase {
    let keys = "/api/client/v2.0/auth/api_keys"

    /// Registers and logs in an email user; returns the access token and the user id.
    func emailUser(_ email: String) throws -> (token: String, id: String) {
        let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        XCTAssertEqual(try http.request("POST", "\(base)/register", json: ["email": email, "password": "secret1"]).status, 201)
        let login = try http.request("POST", "\(base)/login", json: ["username": email, "password": "secret1"])
        return (try XCTUnwrap(login.body["access_token"] as? String), try XCTUnwrap(login.body["user_id"] as? String))
    }

    func keyLogin(_ key: String) throws -> TestHTTP.Reply {
        try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/api-key/login", json: ["key": key])
    }

    func testCreateListLoginDisableEnableDelete() throws {
        let ann = try emailUser("ann@example.com")
        let created = try http.request("POST", keys, json: ["name": "build-server"], bearer: ann.token)
        XCTAssertEqual(created.status, 201, "\(created.body)")
        let id = try XCTUnwrap(created.body["_id"] as? String)
        let key = try XCTUnwrap(created.body["key"] as? String)
        XCTAssertEqual(key.count, 64)
        XCTAssertEqual(created.body["name"] as? String, "build-server")
        XCTAssertEqual(created.body["disabled"] as? Bool, false)

        // The key is shown only at creation.
        let list = try http.request("GET", keys, bearer: ann.token)
        XCTAssertEqual(list.status, 200)
        XCTAssertEqual(list.list.map { $0["_id"] as? String }, [id])
        XCTAssertNil(list.list.first?["key"])
        let one = try http.request("GET", "\(keys)/\(id)", bearer: ann.token)
        XCTAssertEqual(one.body["name"] as? String, "build-server")
        XCTAssertNil(one.body["key"])
        let twice = try http.request("POST", keys, json: ["name": "build-server"], bearer: ann.token)
        XCTAssertEqual(twice.status, 409)
        XCTAssertEqual(twice.errorCode, "APIKeyAlreadyExists")

        // The key logs in as its user, with tokens that work like any other.
        let login = try keyLogin(key)
        XCTAssertEqual(login.status, 200, "\(login.body)")
        XCTAssertEqual(login.body["user_id"] as? String, ann.id)
        let profile = try http.request("GET", "/api/client/v2.0/auth/profile", bearer: try XCTUnwrap(login.body["access_token"] as? String))
        XCTAssertEqual(profile.body["user_id"] as? String, ann.id)

        XCTAssertEqual(try http.request("PUT", "\(keys)/\(id)/disable", bearer: ann.token).status, 204)
        XCTAssertEqual(try http.request("GET", "\(keys)/\(id)", bearer: ann.token).body["disabled"] as? Bool, true)
        let disabled = try keyLogin(key)
        XCTAssertEqual(disabled.status, 401)
        XCTAssertEqual(disabled.errorCode, "InvalidSession")
        XCTAssertTrue(disabled.message.contains("disabled"), disabled.message)

        XCTAssertEqual(try http.request("PUT", "\(keys)/\(id)/enable", bearer: ann.token).status, 204)
        XCTAssertEqual(try keyLogin(key).status, 200)

        XCTAssertEqual(try http.request("DELETE", "\(keys)/\(id)", bearer: ann.token).status, 204)
        let deleted = try keyLogin(key)
        XCTAssertEqual(deleted.status, 401)
        XCTAssertTrue(deleted.message.contains("unknown"), deleted.message)
        XCTAssertEqual(try http.request("GET", keys, bearer: ann.token).list.count, 0)
        XCTAssertEqual(try http.request("GET", "\(keys)/\(id)", bearer: ann.token).errorCode, "APIKeyNotFound")
    }

    func testAUserCannotSeeOrChangeAnotherUsersKeys() throws {
        let ann = try emailUser("ann@example.com")
        let bob = try emailUser("bob@example.com")
        let created = try http.request("POST", keys, json: ["name": "ann's"], bearer: ann.token)
        let id = try XCTUnwrap(created.body["_id"] as? String)
        let key = try XCTUnwrap(created.body["key"] as? String)

        XCTAssertEqual(try http.request("GET", keys, bearer: bob.token).list.count, 0)
        for (method, path) in [("GET", "\(keys)/\(id)"), ("DELETE", "\(keys)/\(id)"), ("PUT", "\(keys)/\(id)/disable"),
                               ("PUT", "\(keys)/\(id)/enable")] {
            let reply = try http.request(method, path, bearer: bob.token)
            XCTAssertEqual(reply.status, 404, "\(method) \(path): \(reply.body)")
            XCTAssertEqual(reply.errorCode, "APIKeyNotFound")
        }
        // Ann's key is untouched and still logs in as Ann.
        XCTAssertEqual(try keyLogin(key).body["user_id"] as? String, ann.id)
        XCTAssertEqual(try http.request("GET", keys, bearer: ann.token).list.first?["disabled"] as? Bool, false)
        // Without a valid access token nothing is served.
        XCTAssertEqual(try http.request("GET", keys).errorCode, "InvalidSession")
        XCTAssertEqual(try http.request("GET", keys, bearer: "x.y.z").status, 401)
    }

    func testKeysAreStoredHashedAndAnonymousUsersHaveNone() throws {
        let ann = try emailUser("ann@example.com")
        let key = try XCTUnwrap(try http.request("POST", keys, json: ["name": "k"], bearer: ann.token).body["key"] as? String)
        if let database {
            let rows = try database.sql("SELECT t::text FROM openrealm_api_keys t").split(separator: "\n")
            XCTAssertFalse(rows.isEmpty)
            for row in rows { XCTAssertFalse(row.contains(key), "the store holds the key itself: \(row)") }
            XCTAssertEqual(try database.sql("SELECT key_hash FROM openrealm_api_keys"), StorageConventions.apiKeyHash(key))
        } else {
            let store = try server.auth.apps.app("todo").store
            let rows = try store.environment.read { txn in try txn.allRows("__api_keys") + txn.allRows("__api_key_hashes") }
            XCTAssertFalse(rows.isEmpty)
            for row in rows {
                for value in row.values { XCTAssertFalse("\(value)".contains(key), "the store holds the key itself: \(row)") }
            }
            XCTAssertEqual(rows.first?.string("keyHash"), AppStore.apiKeyHash(key))
        }

        let anonymous = try http.request("POST", keys, json: ["name": "k"], bearer: try anonymousToken())
        XCTAssertEqual(anonymous.status, 400)
        XCTAssertTrue(anonymous.message.contains("anonymous"), anonymous.message)
        let empty = try http.request("POST", keys, json: ["name": ""], bearer: ann.token)
        XCTAssertEqual(empty.errorCode, "BadRequest")
    }
}

/// An app that turned API keys off.
final class APIKeyDisabledTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.apiKeyAuth = false }
    }

    func testTheProviderIsDisabled() throws {
        let login = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/api-key/login", json: ["key": "x"])
        XCTAssertEqual(login.errorCode, "ProviderDisabled")
        let create = try http.request("POST", "/api/client/v2.0/auth/api_keys", json: ["name": "k"], bearer: try anonymousToken())
        XCTAssertEqual(create.errorCode, "ProviderDisabled")
        XCTAssertEqual(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"apiKeys": false}}"#.utf8)).apiKeyAuth, false)
    }
}
