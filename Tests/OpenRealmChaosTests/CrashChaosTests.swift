import Foundation
import OpenRealm
import XCTest
import OpenRealmTestSupport
@testable import openrealm_chaos

/// Runs a short `openrealm-chaos crash` (five SIGKILLs of a local-realm writer, both
/// durability modes) as CI does, and checks that it finds nothing lost.
final class CrashChaosTests: XCTestCase {
    func testFiveKilledWritersLoseNothing() throws {
        let text = try runChaos(["crash", "--cycles", "5", "--max-delay-ms", "150"], expectingStatus: 0)
        XCTAssertTrue(text.contains("result: nothing lost"), text)
        XCTAssertTrue(text.contains("durability full: 3 kills"), text)
        XCTAssertTrue(text.contains("durability skipMetaSync: 2 kills"), text)
        XCTAssertFalse(text.contains("FAILED"), text)
    }

    /// The checker must be able to fail: an item changed outside a writer transaction
    /// (its marker's digest no longer matches, as after a partial transaction) makes the
    /// next run exit non-zero, naming the mismatch.
    func testAnItemChangedBehindTheMarkersFailsTheRun() throws {
        let directory = try TemporaryDirectory.make("chaos-test", removedBy: addTeardownBlock)
        _ = try runChaos(["crash", "--cycles", "1", "--durability", "full", "--directory", directory.path], expectingStatus: 0)
        let file = directory.appendingPathComponent("crash-full.realm")
        try tamper(with: file)
        let text = try runChaos(["crash", "--cycles", "1", "--durability", "full", "--directory", directory.path], expectingStatus: 1)
        XCTAssertTrue(text.contains("FAILED: partialTransaction"), text)
        XCTAssertTrue(text.contains("is not that of the last committed txn"), text)
    }

    /// A damaged file (cut to its first page) fails the run instead of passing it.
    func testATruncatedFileFailsTheRun() throws {
        let directory = try TemporaryDirectory.make("chaos-test", removedBy: addTeardownBlock)
        _ = try runChaos(["crash", "--cycles", "1", "--durability", "full", "--directory", directory.path], expectingStatus: 0)
        let handle = try FileHandle(forWritingTo: directory.appendingPathComponent("crash-full.realm"))
        try handle.truncate(atOffset: 4096)
        try handle.close()
        let text = try runChaos(["crash", "--cycles", "1", "--durability", "full", "--directory", directory.path], expectingStatus: 1)
        XCTAssertTrue(text.contains("FAILED: engineCheck"), text)
    }

    /// Adds an item, in one committed transaction, without a marker.
    private func tamper(with file: URL) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: file, objectTypes: [ChaosItem.self, ChaosCommit.self]))
        try realm.write {
            let item = ChaosItem()
            item.id = 1_000_000
            item.text = "written behind the writer's back"
            realm.add(item)
        }
    }

    func testBadArgumentsAreRefused() throws {
        let text = try runChaos(["crash", "--cycles", "0"], expectingStatus: 64)
        XCTAssertTrue(text.contains("--cycles must be at least 1"), text)
    }
}
