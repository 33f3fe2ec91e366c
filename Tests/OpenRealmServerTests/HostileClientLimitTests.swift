import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// What one client can make the server keep or write: sessions per connection, new
/// client files per user, log lines, and the store's file modes.
final class HostileClientLimitTests: ServerTestCase {
    let sink = LogSink()

    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.clientFileRateLimit = RateLimit(burst: 5, perMinute: 1) }
    }

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncMaxSessionsPerConnection = 3
    }

    override func makeLogger() -> Logger {
        let sink = self.sink
        var logger = Logger(label: "openrealm-server-limits") { label in CapturingLogHandler(label: label, sink: sink) }
        logger.logLevel = .info
        return logger
    }

    func bind(_ client: TestSyncClient, session: UInt64, token: String) throws -> WireMessage {
        try client.send(.bind(WireBind(session: session, appId: "todo", accessToken: token)))
        return try client.waitFor("bind \(session)'s answer") { message -> WireMessage? in
            switch message {
            case .ident(let i) where i.session == session: return message
            case .error(let e) where e.session == session: return message
            default: return nil
            }
        }
    }

    func testAConnectionBindsAtMostItsSessionsAndAUserMakesFilesAtABoundedRate() throws {
        let user = try anonymousUser()
        let client = try TestSyncClient(port: port, appId: "todo")
        for session in UInt64(1)...3 {
            guard case .ident = try bind(client, session: session, token: user.token) else { return XCTFail("bind \(session) refused") }
        }
        guard case .error(let tooMany) = try bind(client, session: 4, token: user.token) else { return XCTFail("a 4th session bound") }
        XCTAssertEqual(tooMany.code, .limitsExceeded)
        XCTAssertTrue(tooMany.message.contains("3 sessions"), tooMany.message)
        // The connection goes on: an unbind makes room.
        try client.send(.unbind(WireUnbind(session: 1)))
        guard case .ident = try bind(client, session: 5, token: user.token) else { return XCTFail("no room after an unbind") }

        // Four new files so far; the fifth fits the burst, the sixth does not.
        let other = try TestSyncClient(port: port, appId: "todo")
        guard case .ident = try bind(other, session: 1, token: user.token) else { return XCTFail("the 5th file was refused") }
        guard case .error(let flood) = try bind(other, session: 2, token: user.token) else { return XCTFail("a 6th file was made") }
        XCTAssertEqual(flood.code, .limitsExceeded)
        XCTAssertTrue(flood.message.contains("too many new client files"), flood.message)
        if let database {
            XCTAssertEqual(try database.sql("SELECT count(*) FROM openrealm_client_files WHERE app_id = 'todo'"), "5")
        } else {
            let files = try server.auth.apps.app("todo").store.environment.read { txn in try txn.allRows("__client_files").count }
            XCTAssertEqual(files, 5)
        }
        // Another user is not held back by the first.
        guard case .ident = try bind(other, session: 3, token: try anonymousUser().token) else { return XCTFail("another user refused") }
    }

    func testAClientsErrorTextCannotForgeLogLines() throws {
        let (client, _) = try boundClient()
        let forged = "oops\nopenrealm-server: critical: admin logged in\u{1B}[31m\u{202E}"
        try client.send(.error(WireErrorMessage(session: 1, code: .otherSessionError, message: forged, isFatal: false)))
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !sink.lines.contains(where: { $0.contains("client reported an error") }) { usleep(10_000) }
        let line = try XCTUnwrap(sink.lines.first { $0.contains("client reported an error") })
        XCTAssertFalse(line.contains("\n"), line)
        XCTAssertFalse(line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, line)
        XCTAssertTrue(line.contains(#"oops\u{a}openrealm-server: critical: admin logged in\u{1b}[31m\u{202e}"#), line)
        XCTAssertEqual(ClientText.forLog(String(repeating: "a", count: 600)).count, 513)
    }

    func testTheStoreIsPrivateToTheServersUser() throws {
        try skipOnPostgres("the modes of the data directory's files (PostgreSQL's are its own)")
        _ = try anonymousUser()
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1) & 0o777
        }
        let appDirectory = dataDirectory.appendingPathComponent("apps/todo").path
        XCTAssertEqual(try mode(dataDirectory.path), 0o700)
        XCTAssertEqual(try mode(dataDirectory.appendingPathComponent("apps").path), 0o700)
        XCTAssertEqual(try mode(appDirectory), 0o700)
        XCTAssertEqual(try mode(storePath), 0o600)
        XCTAssertEqual(try mode(storePath + "-lock"), 0o600)
        XCTAssertEqual(try mode(dataDirectory.appendingPathComponent("signing.key").path), 0o600)
        // A store an earlier build left readable by others is tightened when opened.
        stopServer()
        chmod(appDirectory, 0o755)
        chmod(storePath, 0o644)
        try startServer()
        _ = try anonymousUser()
        XCTAssertEqual(try mode(appDirectory), 0o700)
        XCTAssertEqual(try mode(storePath), 0o600)
        // Only the store's own directory is tightened, never the one it was made in.
        let parent = dataDirectory.appendingPathComponent("shared-parent")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        chmod(parent.path, 0o1777)
        _ = try AppStore(appId: "elsewhere", directory: parent.appendingPathComponent("store"))
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: parent.path)[.posixPermissions] as? Int ?? -1) & 0o7777, 0o1777)
    }
}
