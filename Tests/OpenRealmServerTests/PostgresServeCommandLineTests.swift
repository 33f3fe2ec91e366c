import Foundation
import XCTest
@testable import OpenRealmServer
import OpenRealmTestSupport

/// `openrealm-server serve --store postgres://…` (or `OPENREALM_STORE`) run as an operator
/// runs it: a bad or unreachable store stops it with a message naming the store (never a
/// password), and two processes serve one database at once, sharing its users and keys.
/// On both runs of the suite: it starts its own PostgreSQL (``TestDatabase``).
final class PostgresServeCommandLineTests: XCTestCase {
    private var binary: URL { BuiltProduct.directory(holding: "openrealm-server").appendingPathComponent("openrealm-server") }

    /// Runs `openrealm-server arguments` to its end (30 s at most).
    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> BuiltProduct.Run {
        let run = try BuiltProduct.run(binary, arguments, environment: environment, timeout: 30)
        XCTAssertFalse(run.timedOut, "openrealm-server \(arguments.joined(separator: " ")) did not end within 30 s")
        return run
    }

    func testBadAndUnreachableStoresExitWithAMessageNamingThem() throws {
        var result = try run(["serve", "--port", "0", "--store", "mysql://openrealm@db/openrealm"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("--store: the store 'mysql://openrealm@db/openrealm' is not a postgres:// URL"), result.output)

        result = try run(["serve", "--port", "0"], environment: ["OPENREALM_STORE": "postgres://openrealm@db"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("OPENREALM_STORE: the store URL names no database"), result.output)

        // Nothing listens on `port`: refused at once, named without the password.
        let port = try freeLoopbackPort()
        result = try run(["serve", "--port", "0", "--store", "postgres://openrealm:hunter2@127.0.0.1:\(port)/openrealm?connect_timeout=5"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("cannot reach PostgreSQL at postgres://openrealm@127.0.0.1:\(port)/openrealm"), result.output)
        XCTAssertFalse(result.output.contains("hunter2"), result.output)

        // Options of the embedded store are refused beside it rather than ignored.
        result = try run(["serve", "--port", "0", "--data-dir", "/tmp/x", "--store", "postgres://openrealm@127.0.0.1/openrealm"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("--data-dir is the embedded store's"), result.output)
        result = try run(["serve", "--port", "0", "--signing-key-env", "KEY"], environment: ["OPENREALM_STORE": "postgres://openrealm@127.0.0.1/openrealm"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("the signing keys are the database's"), result.output)
    }

    func testTwoProcessesServeOneDatabaseWithItsUsersAndKeys() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let url = try database.url
        let directory = try TemporaryDirectory.make("openrealm-pg-serve", removedBy: addTeardownBlock)
        // One by --store, the other by the environment.
        let a = try ServerProcess(binary, ["serve", "--port", "\(try freeLoopbackPort())", "--store", url], directory: directory, name: "a")
        defer { a.stop() }
        let b = try ServerProcess(binary, ["serve", "--port", "\(try freeLoopbackPort())"], environment: ["OPENREALM_STORE": url],
                                  directory: directory, name: "b")
        defer { b.stop() }
        try a.waitUntilServing()
        try b.waitUntilServing()

        let login = try TestHTTP(port: a.port).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        XCTAssertEqual(login.status, 200, "\(login.body)")
        let token = try XCTUnwrap(login.body["access_token"] as? String)
        let refresh = try XCTUnwrap(login.body["refresh_token"] as? String)
        // B verifies A's token (one key) and knows its user and session (one database).
        XCTAssertEqual(try TestHTTP(port: b.port).request("GET", "/api/client/v2.0/auth/profile", bearer: token).status, 200)
        XCTAssertEqual(try TestHTTP(port: b.port).request("POST", "/api/client/v2.0/auth/session", bearer: refresh).status, 201)
        XCTAssertEqual(try database.sql("SELECT count(*) FROM openrealm_users WHERE app_id = 'todo'"), "1")
        XCTAssertEqual(a.stop(), 0, a.output)
        XCTAssertEqual(b.stop(), 0, b.output)
        // Nothing was written beside the processes: no data directory.
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("openrealm-data").path))
    }
}

/// An `openrealm-server` running in the background until ``stop()`` (SIGTERM), its
/// output in a file, its working directory `directory`.
final class ServerProcess: @unchecked Sendable {
    let port: Int
    private let process = Process()
    private let log: URL

    init(_ binary: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL, name: String) throws {
        port = Int(arguments[arguments.firstIndex(of: "--port")! + 1])!
        log = directory.appendingPathComponent("\(name).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits (30 s at most) until `/health` answers.
    func waitUntilServing() throws {
        let deadline = Date().addingTimeInterval(30)
        while (try? TestHTTP(port: port).get("/health").status) != 200 {
            guard process.isRunning, Date() < deadline else {
                throw TestSocket.Failure(description: "the server on port \(port) did not serve: \(output)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Stops it (SIGTERM: a graceful shutdown) and returns its exit status (SIGKILL after 15 s).
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
