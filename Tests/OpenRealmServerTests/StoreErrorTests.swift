import Foundation
import ORCore
import XCTest
import OpenRealmSyncCore
@testable import OpenRealmServer

/// The store's failures are the sync core's ``ORCoreError`` (``StoreError`` is its name
/// here) and keep ORCore's status from the call that failed.
final class StoreErrorTests: XCTestCase {
    override func setUpWithError() throws {
        try skipOnPostgres("ORCore's errors on damaged store files (PostgreSQL's errors: DatabasePoolTests)")
    }

    /// An app directory of its own, removed when the test ends.
    func appDirectory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-errors-\(UUID().uuidString)/\(name)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        return url
    }

    func testADamagedStoreFailsToOpenWithItsStatus() throws {
        let appDirectory = appDirectory("damaged")
        try FileManager.default.createDirectory(at: appDirectory, withIntermediateDirectories: true)
        let file = appDirectory.appendingPathComponent("server.realm")
        try Data(repeating: 0xA5, count: 64 << 10).write(to: file)
        XCTAssertThrowsError(try AppStore(appId: "damaged", directory: appDirectory)) { error in
            guard let failure = error as? StoreError else { return XCTFail("not a StoreError: \(error)") }
            XCTAssertTrue(error is ORCoreError)
            XCTAssertTrue(failure.isDamaged, "\(failure)")
            XCTAssertTrue([ORC_ERR_NOT_A_REALM, ORC_ERR_CORRUPT].contains(failure.status), "\(failure)")
            XCTAssertTrue(failure.message.contains(file.path), failure.message)
        }
    }

    func testTheOperatorsReadOnlyOpenKeepsORCoresStatuses() throws {
        let appDirectory = appDirectory("app")
        let path = appDirectory.appendingPathComponent("server.realm").path
        do { _ = try AppStore(appId: "app", directory: appDirectory) }
        XCTAssertThrowsError(try StoreFile(path: appDirectory.appendingPathComponent("missing.realm").path)) { error in
            XCTAssertEqual((error as? StoreError)?.status, ORC_ERR_NOT_FOUND, "\(error)")
            XCTAssertEqual((error as? StoreError)?.isNotFound, true)
        }
        let readOnly = try ORCoreEnvironment.openExistingStore(path: path, verify: true)
        XCTAssertNotNil(try readOnly.read { try $0.findClass("__history") })
        XCTAssertThrowsError(try readOnly.write { try $0.setMeta("server.version", 1) }) { error in
            XCTAssertEqual((error as? StoreError)?.status, ORC_ERR_READ_ONLY, "\(error)")
        }
        let file = try StoreFile(path: path)
        XCTAssertNil(file.check())
        XCTAssertThrowsError(try file.copy(to: path)) { error in
            XCTAssertEqual((error as? StoreError)?.status, ORC_ERR_EXISTS, "\(error)")
        }
    }
}
