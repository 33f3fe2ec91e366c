import Foundation
import XCTest

/// Short runs of `crash --store postgres`: three servers on one PostgreSQL database the
/// run starts itself (Debian's `postgresql`: `initdb` and `pg_ctl`), one of them killed
/// (`--target server`) or the database restarted under them (`--target postgres`).
final class PostgresChaosTests: XCTestCase {
    override func setUpWithError() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let directories = versions.map { "/usr/lib/postgresql/\($0)/bin" } + path
        try XCTSkipUnless(directories.contains { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") },
                          "PostgreSQL (initdb, pg_ctl) is not installed: scripts/setup installs Debian's postgresql")
    }

    func testKilledServerOfThreeOnPostgresLosesNoAcknowledgedUpload() throws {
        let text = try runChaos(["crash", "--target", "server", "--store", "postgres", "--cycles", "2", "--clients", "3",
                                 "--max-delay-ms", "200", "--seed", "7"], expectingStatus: 0)
        XCTAssertTrue(text.contains("server kills: 2 "), text)
        XCTAssertTrue(text.contains("lost: 0, applied twice: 0, diverged: 0"), text)
        XCTAssertGreaterThan(try figure(#"uploads acknowledged: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"history in PostgreSQL: (\d+) versions, contiguous"#, in: text), 0, text)
    }

    func testRestartedPostgresLosesNoAcknowledgedUpload() throws {
        let text = try runChaos(["crash", "--target", "postgres", "--cycles", "2", "--clients", "2", "--max-delay-ms", "200",
                                 "--seed", "7"], expectingStatus: 0)
        XCTAssertTrue(text.contains("PostgreSQL restarts (immediate shutdown): 2"), text)
        XCTAssertTrue(text.contains("lost: 0, applied twice: 0, diverged: 0"), text)
        XCTAssertGreaterThan(try figure(#"uploads acknowledged: (\d+)"#, in: text), 0, text)
    }

    func testStoreOptionsAreChecked() throws {
        XCTAssertTrue(try runChaos(["crash", "--target", "postgres", "--store", "embedded"], expectingStatus: 64)
            .contains("does not run with --store embedded"))
        XCTAssertTrue(try runChaos(["crash", "--target", "client", "--store", "postgres"], expectingStatus: 64)
            .contains("--store postgres applies to --target server and postgres, not client"))
        XCTAssertTrue(try runChaos(["crash", "--target", "server", "--store", "mysql"], expectingStatus: 64).contains("mysql"))
    }
}
