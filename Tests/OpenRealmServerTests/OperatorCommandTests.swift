import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The operator commands through the library: users and API keys changed offline, the
/// check of a good and a damaged directory, and a backup taken while the server runs.
final class OperatorCommandTests: ServerTestCase {
    let userpass = "/api/client/v2.0/app/todo/auth/providers/local-userpass"

    /// Registers `email`; returns its login's access token and user id.
    func register(_ email: String) throws -> (token: String, id: String) {
        XCTAssertEqual(try http.request("POST", "\(userpass)/register", json: ["email": email, "password": "secret1"]).status, 201)
        let login = try http.request("POST", "\(userpass)/login", json: ["username": email, "password": "secret1"])
        return (try XCTUnwrap(login.body["access_token"] as? String), try XCTUnwrap(login.body["user_id"] as? String))
    }

    func testUsersAndAPIKeysAreListedAndRemovedOffline() throws {
        let ann = try register("ann@example.com")
        let bob = try register("bob@example.com")
        let created = try http.request("POST", "/api/client/v2.0/auth/api_keys", json: ["name": "ci"], bearer: bob.token)
        let keyId = try XCTUnwrap(created.body["_id"] as? String)
        let key = try XCTUnwrap(created.body["key"] as? String)
        stopServer()

        let admin = try administration("todo")
        XCTAssertEqual(try admin.users().map(\.email), ["ann@example.com", "bob@example.com"])
        XCTAssertEqual(try admin.users().map(\.provider), ["local-userpass", "local-userpass"])
        let keys = try admin.apiKeys()
        XCTAssertEqual(keys.map(\.id), [keyId])
        XCTAssertEqual(keys.first?.userId, bob.id)
        XCTAssertEqual(keys.first?.name, "ci")
        XCTAssertEqual(try admin.apiKeys(userId: ann.id), [])
        XCTAssertThrowsError(try admin.removeUser("nobody@example.com")) { XCTAssertTrue("\($0)".contains("no user"), "\($0)") }
        XCTAssertThrowsError(try admin.revokeAPIKey(id: "000000000000000000000000")) { XCTAssertTrue("\($0)".contains("no API key"), "\($0)") }
        XCTAssertEqual(try admin.revokeAPIKey(id: keyId).userId, bob.id)
        XCTAssertEqual(try admin.removeUser("Ann@Example.com ").id, ann.id)
        XCTAssertEqual(try admin.users().map(\.id), [bob.id])
        admin.close()

        try startServer()
        let annLogin = try http.request("POST", "\(userpass)/login", json: ["username": "ann@example.com", "password": "secret1"])
        XCTAssertEqual(annLogin.errorCode, "InvalidPassword", "the removed user no longer logs in")
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/auth/profile", bearer: ann.token).status, 401,
                       "the removed user's access token is refused")
        let keyLogin = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/api-key/login", json: ["key": key])
        XCTAssertEqual(keyLogin.errorCode, "InvalidSession", "the revoked key no longer logs in")
        XCTAssertEqual(try http.request("POST", "\(userpass)/login", json: ["username": "bob@example.com", "password": "secret1"]).status, 200)
    }

    func testAnUnknownAppIsRefusedNamingTheAppsThere() throws {
        try skipOnPostgres("names the apps of the data directory, and that no store file is made there")
        _ = try anonymousToken()
        stopServer()
        XCTAssertThrowsError(try AppAdministration(dataDirectory: dataDirectory, appId: "tood")) {
            XCTAssertTrue("\($0)".contains("has no app 'tood' (apps: todo)"), "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("apps/tood").path),
                       "no store is made for a mistyped app")
    }

    func testCheckPassesAGoodDirectoryAndReportsADamagedStore() throws {
        try skipOnPostgres("checks the data directory's store files (PostgreSQL checks its own)")
        _ = try anonymousToken()
        _ = try anonymousToken(appId: "other")
        stopServer()
        let good = try DataDirectoryCheck.run(dataDirectory: dataDirectory)
        XCTAssertTrue(good.isHealthy, good.text)
        XCTAssertEqual(good.findings.map(\.subject), ["signing.key", "app 'other'", "app 'todo'"])

        // Damage: the store cut to its first page (as a disk that lost the rest would).
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: dataDirectory, to: copy)
        let store = copy.appendingPathComponent("apps/todo/server.realm")
        let handle = try FileHandle(forWritingTo: store)
        try handle.truncate(atOffset: 4096)
        try handle.close()
        let damaged = try DataDirectoryCheck.run(dataDirectory: copy)
        XCTAssertFalse(damaged.isHealthy)
        let bad = try XCTUnwrap(damaged.findings.first { $0.problems > 0 })
        XCTAssertEqual(bad.subject, "app 'todo'")
        XCTAssertTrue(damaged.text.contains("DAMAGED  app 'todo'"), damaged.text)
        XCTAssertTrue(damaged.text.contains("ok       app 'other'"), damaged.text)
    }

    func testBackupWhileTheServerRunsIsACompleteDirectoryThatServes() throws {
        try skipOnPostgres("backs the data directory up (a database is backed up by PostgreSQL's means)")
        let ann = try register("ann@example.com")
        let (client, ident) = try boundClient(token: ann.token)
        try subscribeToAllTasks(client)
        try upload(client, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "one", status: "open")])

        let backup = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: backup) }
        let report = try DataDirectoryBackup.run(dataDirectory: dataDirectory, to: backup)
        XCTAssertTrue(report.signingKey)
        XCTAssertEqual(report.apps.map(\.appId), ["todo"])
        XCTAssertEqual(report.apps.first?.clientFiles, 1)
        XCTAssertGreaterThan(report.apps.first?.serverVersion ?? 0, 0)
        XCTAssertThrowsError(try DataDirectoryBackup.run(dataDirectory: dataDirectory, to: backup)) {
            XCTAssertTrue("\($0)".contains("already exists"), "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: backup.path + ".partial"))
        XCTAssertTrue(try DataDirectoryCheck.run(dataDirectory: backup).isHealthy)
        XCTAssertEqual(FileManager.default.contents(atPath: backup.appendingPathComponent("signing.key").path),
                       FileManager.default.contents(atPath: dataDirectory.appendingPathComponent("signing.key").path))

        // A server on the backup: the same users (and tokens: the same key), the same objects.
        stopServer()
        try FileManager.default.removeItem(at: dataDirectory)
        try FileManager.default.copyItem(at: backup, to: dataDirectory)
        try startServer()
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/auth/profile", bearer: ann.token).status, 200)
        let (again, reboundIdent) = try boundClient(token: ann.token)
        XCTAssertNotEqual(reboundIdent.fileIdentity, ident.fileIdentity, "a new file gets a new identity")
        let bootstrap = try subscribeToAllTasks(again)
        XCTAssertTrue(bootstrap.contains { if case .createObject("Task", .int(1), _) = $0 { return true } else { return false } },
                      "\(bootstrap)")
        _ = client
    }
}
