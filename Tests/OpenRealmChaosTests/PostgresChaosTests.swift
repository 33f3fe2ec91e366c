import Foundation
import XCTest

/// `crash --store postgres` (three servers on one PostgreSQL database the run starts
/// itself): the options are checked before anything starts. Runs of it are not part of the suite:
/// even two cycles on debug builds take minutes (docs/RELIABILITY.md).
final class PostgresChaosTests: XCTestCase {
    func testStoreOptionsAreChecked() throws {
        XCTAssertTrue(try runChaos(["crash", "--target", "postgres", "--store", "embedded"], expectingStatus: 64)
            .contains("does not run with --store embedded"))
        XCTAssertTrue(try runChaos(["crash", "--target", "client", "--store", "postgres"], expectingStatus: 64)
            .contains("--store postgres applies to --target server and postgres, not client"))
        XCTAssertTrue(try runChaos(["crash", "--target", "server", "--store", "mysql"], expectingStatus: 64).contains("mysql"))
    }
}
