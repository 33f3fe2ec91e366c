import Foundation
import Logging
import XCTest
@testable import OpenRealmServer

/// The data directory's lock: one server, or one offline command, at a time; a backup
/// beside a running server.
final class DataDirectoryLockTests: ServerTestCase {
    override func setUpWithError() throws {
        try skipOnPostgres("the data directory's lock (on PostgreSQL nothing is locked: several servers serve one database)")
        try super.setUpWithError()
    }

    /// A second server on the running server's directory.
    func secondServer() throws -> SyncServer {
        var logger = Logger(label: "second")
        logger.logLevel = .critical
        return try SyncServer(configuration: ServerConfiguration(port: 0, dataDirectory: dataDirectory), logger: logger)
    }

    func testASecondServerOnTheSameDirectoryIsRefusedNamingIt() async throws {
        let second = try secondServer()
        do {
            try await second.run()
            XCTFail("a second server ran on a locked data directory")
        } catch let error as ServerError {
            XCTAssertTrue(error.message.contains("'\(dataDirectory.path)' is in use"), error.message)
            XCTAssertTrue(error.message.contains("openrealm-server serve (pid \(getpid()))"), error.message)
        }
        // The first still serves.
        XCTAssertEqual(try http.get("/health").status, 200)
    }

    func testOfflineCommandsAreRefusedWhileAServerRunsAndWorkOnceItStopped() throws {
        _ = try anonymousToken()
        XCTAssertThrowsError(try AppAdministration(dataDirectory: dataDirectory, appId: "todo")) { error in
            XCTAssertTrue("\(error)".contains("'\(dataDirectory.path)' is in use by openrealm-server serve"), "\(error)")
        }
        XCTAssertThrowsError(try DataDirectoryLock(directory: dataDirectory, holder: "check")) { error in
            XCTAssertTrue("\(error)".contains("is in use"), "\(error)")
        }
        stopServer()
        let admin = try AppAdministration(dataDirectory: dataDirectory, appId: "todo")
        XCTAssertEqual(try admin.users().count, 1)
        // While the command holds it, no server starts.
        let waiting = try secondServer()
        let refused = expectation(description: "the server is refused")
        Task {
            do { try await waiting.run() } catch let error as ServerError where error.message.contains("openrealm-server admin") {
                refused.fulfill()
            } catch {}
        }
        wait(for: [refused], timeout: 10)
        admin.close()
        try startServer()
        XCTAssertEqual(try http.get("/health").status, 200)
    }

    func testTheLockIsReleasedWhenTheServerStops() throws {
        stopServer()
        let lock = try DataDirectoryLock(directory: dataDirectory, holder: "check")
        lock.release()
        try startServer()
        XCTAssertEqual(try http.get("/health").status, 200)
    }
}
