import Foundation
import Logging
import XCTest
@testable import OpenRealmServer
import OpenRealmTestSupport

/// Start-up errors a person can act on: each names the bad input and the reason.
final class StartupErrorTests: ServerTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = try TemporaryDirectory.make("openrealm-startup", removedBy: addTeardownBlock)
    }

    func makeServer(port: Int = 0, dataDirectory: URL? = nil) throws -> SyncServer {
        var logger = Logger(label: "startup")
        logger.logLevel = .critical
        let configuration = ServerConfiguration(port: port, dataDirectory: dataDirectory ?? scratch.appendingPathComponent("data"))
        // On PostgreSQL a server given no data directory of its own serves the test's database.
        if dataDirectory == nil { return try makeServer(configuration: configuration, logger: logger) }
        return try SyncServer(configuration: configuration, logger: logger)
    }

    func assertRefused(_ body: () throws -> Any, _ words: String..., file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue(error is ServerError, "\(type(of: error)): \(error)", file: file, line: line)
            for w in words { XCTAssertTrue("\(error)".contains(w), "'\(w)' not in: \(error)", file: file, line: line) }
        }
    }

    func testAPortOutOfRangeIsRefused() {
        assertRefused({ try self.makeServer(port: 99_999) }, "port 99999 is out of range", "1–65535")
        assertRefused({ try self.makeServer(port: -1) }, "port -1 is out of range")
    }

    func testAPortInUseNamesItsProcess() async throws {
        // This test's own server holds `port`: the message names this process.
        let second = try makeServer(port: port)
        do {
            try await second.run()
            XCTFail("a second server listened on a port in use")
        } catch let error as ServerError {
            XCTAssertTrue(error.message.contains("cannot listen on 127.0.0.1:\(port): the port is in use"), error.message)
            let name = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
            XCTAssertTrue(error.message.contains("by pid \(getpid()) (\(name))"), error.message)
        }
        // The failed start released its data directory (the embedded store's).
        if database == nil { _ = try DataDirectoryLock(directory: scratch.appendingPathComponent("data"), holder: "check") }
    }

    func testADataDirectoryThatCannotBeMadeOrWrittenNamesTheReason() throws {
        try skipOnPostgres("the data directory holds the embedded store")
        let file = scratch.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        assertRefused({ try self.makeServer(dataDirectory: file.appendingPathComponent("data")) },
                      "cannot create the data directory '\(file.path)/data' ('\(file.path)'): it is not a directory")
        assertRefused({ try self.makeServer(dataDirectory: file) }, "'\(file.path)'", "it is not a directory")
        if geteuid() != 0 {
            let locked = scratch.appendingPathComponent("read-only")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: locked.path)
            assertRefused({ try self.makeServer(dataDirectory: locked) }, "the data directory '\(locked.path)' is not writable", "Permission denied")
        }
    }

    func testAnUnreadableConfigurationNamesTheOSReason() {
        let missing = scratch.appendingPathComponent("missing.json")
        assertRefused({ try ServerAppConfiguration.load(from: missing) }, "cannot read the app configuration '\(missing.path)'", "No such file or directory")
        assertRefused({ try ServerAppConfiguration.load(from: self.scratch) }, "Is a directory")
    }

    func testJSONSyntaxErrorsNameTheLineAndColumn() throws {
        let cases: [(String, String)] = [
            ("{\n  \"appId\": \"todo\",\n  \"auth\": { \"anonymous\": tru }\n}", "line 3, column 26"),
            ("{\n  \"appId\": \"todo\"\n  \"developmentMode\": true\n}", "line 3, column 3"),
            ("{\n  \"appId\": \"todo\",\n", "line 3, column 1"),
        ]
        for (text, position) in cases {
            let url = scratch.appendingPathComponent("app.json")
            try Data(text.utf8).write(to: url)
            assertRefused({ try ServerAppConfiguration.load(from: url) }, "app.json: JSON syntax error at \(position)")
        }
        assertRefused({ try ServerAppConfiguration.parse(Data("[1]".utf8), source: "app.json") }, "app.json: not a JSON object")
        XCTAssertEqual(ConfigJSON.position(of: 7, in: Data("{\n  \"é\": 1".utf8)).column, 5, "columns count characters, not bytes")
    }
}
