import Foundation
import XCTest
@testable import OpenRealmServer
import OpenRealmTestSupport

/// The built `openrealm-server` run as a person runs it: exit statuses and messages of
/// the operator commands and of start-up errors, and a backup taken by another process
/// while this test's server writes.
final class OperatorCommandLineTests: ServerTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = try TemporaryDirectory.make("openrealm-cli", removedBy: addTeardownBlock)
    }

    /// The built `openrealm-server` (SwiftPM puts the executable next to the tests).
    private var binary: URL { BuiltProduct.directory(holding: "openrealm-server").appendingPathComponent("openrealm-server") }

    /// Runs `openrealm-server arguments` (as user and group id `user` through setpriv when given) and
    /// returns its status and output; a run past 30 s is killed and fails the test.
    @discardableResult
    func run(_ arguments: [String], as user: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            XCTFail("openrealm-server is not built next to the tests (looked for \(binary.path))", file: file, line: line)
            return (-1, "")
        }
        let run = if let user {
            try BuiltProduct.run(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                 ["--reuid", user, "--regid", user, "--clear-groups", binary.path] + arguments, timeout: 30)
        } else {
            try BuiltProduct.run(binary, arguments, timeout: 30)
        }
        if run.timedOut {
            XCTFail("openrealm-server \(arguments.joined(separator: " ")) did not end within 30 s", file: file, line: line)
        }
        return (run.status, run.output)
    }

    func testVersion() throws {
        let result = try run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), OpenRealmVersion.current)
    }

    func testStartUpErrorsExitWithAMessage() throws {
        let data = scratch.appendingPathComponent("data").path
        var result = try run(["serve", "--port", "99999", "--data-dir", data])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("port 99999 is out of range"), result.output)

        result = try run(["serve", "--port", "\(port)", "--data-dir", data])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("the port is in use by pid \(getpid())"), result.output)

        let config = scratch.appendingPathComponent("app.json")
        try Data("{\n  \"appId\": \"todo\",\n  \"auth\": {,}\n}".utf8).write(to: config)
        result = try run(["serve", "--port", "0", "--data-dir", data, "--config", config.path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("app.json: JSON syntax error at line 3, column"), result.output)
        XCTAssertFalse(result.output.contains("NSCocoaErrorDomain"), result.output)
    }

    /// A bad `--trusted-proxy` or `--public-url` stops `serve` before it listens, naming it.
    func testBadProxyOptionsExitWithAMessage() throws {
        let data = scratch.appendingPathComponent("data").path
        var result = try run(["serve", "--port", "0", "--data-dir", data, "--trusted-proxy", "127.0.0.1/32", "--trusted-proxy", "10.0.0.1/8"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("trusted proxy '10.0.0.1/8'") && result.output.contains("the network is 10.0.0.0/8"), result.output)

        result = try run(["serve", "--port", "0", "--data-dir", data, "--public-url", "https://sync.example.com/realm"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("the public URL 'https://sync.example.com/realm' (--public-url)"), result.output)
    }

    func testAnUnreadableConfigurationSaysPermissionDenied() throws {
        let config = scratch.appendingPathComponent("app.json")
        try Data(#"{"appId": "todo"}"#.utf8).write(to: config)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: config.path)
        // Root reads any file: run as nobody when this test runs as root.
        let user: String? = geteuid() == 0 ? "65534" : nil
        if user != nil, !FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            throw XCTSkip("running as root without setpriv to drop privileges")
        }
        let result = try run(["serve", "--port", "0", "--data-dir", scratch.appendingPathComponent("data").path, "--config", config.path], as: user)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("cannot read the app configuration '\(config.path)': Permission denied"), result.output)
    }

    func testALockedDataDirectoryIsRefusedAndBackupWorksBesideTheServer() throws {
        try skipOnPostgres("the data directory's lock and its backup")
        _ = try anonymousToken()
        // This test's server holds the directory.
        var result = try run(["serve", "--port", "0", "--data-dir", dataDirectory.path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("the data directory '\(dataDirectory.path)' is in use by openrealm-server serve (pid \(getpid()))"),
                      result.output)
        for command in [["check"], ["users", "list", "--app", "todo"], ["apikeys", "list", "--app", "todo"]] {
            result = try run(command + ["--data-dir", dataDirectory.path])
            XCTAssertNotEqual(result.status, 0, command.joined(separator: " "))
            XCTAssertTrue(result.output.contains("is in use by openrealm-server serve"), result.output)
        }

        // Another process backs the directory up while the server writes.
        // (A Dispatch thread, not a task: the test blocks its thread while the command runs.)
        let writer = DispatchGroup()
        let port = self.port
        DispatchQueue.global().async(group: writer) {
            for _ in 0..<20 {
                _ = try? TestHTTP(port: port).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
            }
        }
        let backup = scratch.appendingPathComponent("backup").path
        result = try run(["backup", "--data-dir", dataDirectory.path, "--to", backup])
        writer.wait()
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("app 'todo': server version"), result.output)
        result = try run(["check", "--data-dir", backup])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("ok       app 'todo'"), result.output)
        result = try run(["users", "list", "--app", "todo", "--data-dir", backup])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("anon-user"), result.output)
    }

    func testCheckExitsNonZeroOnADamagedStore() throws {
        try skipOnPostgres("checks the data directory's store files")
        _ = try anonymousToken()
        stopServer()
        var result = try run(["check", "--data-dir", dataDirectory.path])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("no problems"), result.output)
        let store = try FileHandle(forWritingTo: URL(fileURLWithPath: storePath))
        try store.truncate(atOffset: 4096)
        try store.close()
        result = try run(["check", "--data-dir", dataDirectory.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("DAMAGED  app 'todo'"), result.output)
    }

    /// `schema show` prints the stored schema in the configuration's format, `schema
    /// apply` adds it to another app; both refuse a directory a server holds.
    func testSchemaShowAndApplyAndAHeldDirectoryIsRefused() throws {
        let (client, _) = try boundClient()
        try upload(client, clientVersion: 1, PermissionTests.noteSchema + Self.taskSchema)
        _ = try anonymousToken(appId: "other")
        let file = scratch.appendingPathComponent("schema.json")
        try Data(#"{"Note": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}}}}"#.utf8).write(to: file)
        // The commands' store: the data directory, or on PostgreSQL the test's database,
        // which they work on beside the running server (nothing is held).
        let store: [String]
        if let database {
            store = ["--store", try database.url]
        } else {
            store = ["--data-dir", dataDirectory.path]
            for command in [["schema", "show", "--app", "todo"], ["schema", "apply", "--app", "other", "--file", file.path]] {
                let result = try run(command + store)
                XCTAssertNotEqual(result.status, 0, command.joined(separator: " "))
                XCTAssertTrue(result.output.contains("the data directory '\(dataDirectory.path)' is in use by openrealm-server serve"), result.output)
            }
            stopServer()
        }

        var result = try run(["schema", "show", "--app", "todo"] + store)
        XCTAssertEqual(result.status, 0, result.output)
        let shown = try AppSchema.parseFile(Data(result.output.utf8), source: "output")
        XCTAssertEqual(shown.classes.map(\.schema.name), ["Note", "Task"])
        try Data(result.output.utf8).write(to: file)
        result = try run(["schema", "apply", "--app", "other", "--file", file.path] + store)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("app 'other': added class 'Note', class 'Task', property 'Note.editor'"), result.output)
        result = try run(["schema", "show", "--app", "other"] + store)
        XCTAssertEqual(try AppSchema.parseFile(Data(result.output.utf8), source: "output"), shown)

        // A conflicting file is refused, naming the property.
        try Data(#"{"Note": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}, "owner": {"type": "int"}}}}"#.utf8).write(to: file)
        result = try run(["schema", "apply", "--app", "other", "--file", file.path] + store)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("property 'Note.owner' exists with another type (stored: string, schema: int)"), result.output)
    }
}
