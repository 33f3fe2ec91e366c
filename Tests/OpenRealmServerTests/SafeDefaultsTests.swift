import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// A configured app is production mode unless it says otherwise: no schema changes from
/// clients, no anonymous login, classes without rules denied.
final class SafeDefaultsTests: ServerTestCase {
    /// What the server runs with; the test starts in development mode to give the app
    /// its schema, then restarts with the configuration under test.
    var configuration: ServerAppConfiguration? = .development(appId: "todo")
    override var appConfiguration: ServerAppConfiguration? { configuration }

    func emailUser(_ email: String) throws -> (token: String, id: String) {
        let base = "/api/client/v2.0/app/todo/auth/providers/local-userpass"
        XCTAssertEqual(try http.request("POST", "\(base)/register", json: ["email": email, "password": "secret1"]).status, 201)
        let login = try http.request("POST", "\(base)/login", json: ["username": email, "password": "secret1"])
        return (try XCTUnwrap(login.body["access_token"] as? String), try XCTUnwrap(login.body["user_id"] as? String))
    }

    /// The schema (Note and Task) and one note and one task, written in development mode.
    func seed() throws {
        let (client, _) = try boundClient()
        _ = try query(client, version: 1, ["Note": "TRUEPREDICATE", "Task": "TRUEPREDICATE"]).get()
        try upload(client, clientVersion: 1, PermissionTests.noteSchema + Self.taskSchema
                   + [PermissionTests.note(1, owner: "someone", text: "hello"), Self.task(1, title: "t", status: "open")])
    }

    func testTheDefaultsOfAConfigurationFile() throws {
        let config = try ServerAppConfiguration.parse(Data(#"{"appId": "shop"}"#.utf8))
        XCTAssertFalse(config.developmentMode)
        XCTAssertFalse(config.anonymousAuth)
        XCTAssertTrue(config.emailPasswordAuth)
        let rules = try AppRules(config).bound(userId: "u", email: nil)
        XCTAssertEqual(rules.readRule("Anything"), .falsePredicate)
        XCTAssertEqual(rules.writeRule("Anything"), .falsePredicate)
        let open = try ServerAppConfiguration.parse(Data(#"{"appId": "shop", "rules": {"*": {"read": "TRUEPREDICATE", "write": "TRUEPREDICATE"}, "Note": {"write": "owner == %user.id"}}}"#.utf8))
        let bound = try AppRules(open).bound(userId: "u", email: nil)
        XCTAssertNil(bound.readRule("Anything"))
        XCTAssertNil(bound.readRule("Note"), "a rule the entry lacks is the \"*\" entry's")
        XCTAssertEqual("\(try XCTUnwrap(bound.writeRule("Note")))", "owner == \"u\"")
    }

    func testAProductionAppRefusesAnonymousLoginSchemaChangesAndUnruledClasses() throws {
        try seed()
        configuration = ServerAppConfiguration(appId: "todo")
        configuration?.permissions["Note"] = ClassPermissions(read: "TRUEPREDICATE", write: "owner == %user.id")
        try restartServer()

        let anonymous = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(anonymous.errorCode, "ProviderDisabled")

        let ann = try emailUser("ann@example.com")
        let (client, _) = try boundClient(token: ann.token)
        // Task has no rules: its objects are not sent, its writes are refused.
        let bootstrap = try query(client, version: 1, ["Note": "TRUEPREDICATE", "Task": "TRUEPREDICATE"]).get()
        XCTAssertTrue(bootstrap.contains(PermissionTests.note(1, owner: "someone", text: "hello")), "\(bootstrap)")
        XCTAssertFalse(bootstrap.contains { if case .createObject("Task", _, _) = $0 { return true } else { return false } })
        // Declaring the schema the app has is accepted, as clients do on every start.
        try upload(client, clientVersion: 1, PermissionTests.noteSchema + Self.taskSchema + [PermissionTests.note(2, owner: ann.id)])
        let (error, _) = try uploadRefused(client, clientVersion: 2, [Self.task(2, title: "mine", status: "open")])
        XCTAssertEqual(error.compensatingWrite?.writes.map(\.object), [Self.path(2).root])

        // Anything new in the schema is refused, whoever sends it.
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 3, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_000),
            instructions: [.addProperty(className: "Note", property: WirePropertySchema(name: "owner2", type: .int))])])))
        let refusal = try client.waitFor("the schema change's refusal") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(refusal.code, .invalidSchemaChange)
        XCTAssertTrue(refusal.message.contains("property 'Note.owner2' is not in the app's schema"), refusal.message)
    }

    func testDevelopmentModeListensOnLoopbackOnlyUnlessAllowed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-dev-\(UUID().uuidString)")
        var remote = ServerConfiguration(host: "0.0.0.0", port: 0, dataDirectory: directory)
        XCTAssertThrowsError(try remote.validate()) { error in
            XCTAssertTrue("\(error)".contains("loopback"), "\(error)")
            XCTAssertTrue("\(error)".contains("--allow-remote-development"), "\(error)")
        }
        remote.allowRemoteDevelopment = true
        XCTAssertNoThrow(try remote.validate())
        for host in ["127.0.0.1", "127.8.0.2", "localhost", "::1", "[::1]"] {
            XCTAssertNoThrow(try ServerConfiguration(host: host, port: 0, dataDirectory: directory).validate(), host)
        }
        XCTAssertNoThrow(try ServerConfiguration(host: "0.0.0.0", port: 0, dataDirectory: directory,
                                                 app: ServerAppConfiguration(appId: "a")).validate())
    }
}

/// Development mode makes an app for each new id only up to its limit.
final class DevelopmentAppLimitTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.maxDevelopmentApps = 3
    }

    func testNewAppIdsPastTheLimitAreRefusedAndTheOthersServed() throws {
        // setUp's server made none yet.
        for id in ["a1", "a2", "a3"] {
            XCTAssertEqual(try http.request("GET", "/api/client/v2.0/app/\(id)/location").status, 200, id)
        }
        let refused = try http.request("GET", "/api/client/v2.0/app/a4/location")
        XCTAssertEqual(refused.status, 404)
        XCTAssertEqual(refused.errorCode, "AppNotFound")
        XCTAssertTrue(refused.message.contains("--max-development-apps"), refused.message)
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/a5/auth/providers/anon-user/login", json: [:]).errorCode, "AppNotFound")
        let apps = try database.map { try $0.sql("SELECT app_id FROM openrealm_apps").split(separator: "\n").map(String.init) }
            ?? FileManager.default.contentsOfDirectory(atPath: dataDirectory.appendingPathComponent("apps").path)
        XCTAssertEqual(apps.sorted(), ["a1", "a2", "a3"])
        // The apps it holds are still served, after a restart too.
        try restartServer()
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/app/a2/location").status, 200)
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/app/a4/location").errorCode, "AppNotFound")
    }
}
