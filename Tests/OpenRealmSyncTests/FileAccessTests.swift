import Foundation
import ORCore
import XCTest
import OpenRealmSyncCore
@testable import OpenRealmSync
import RealmSwift

/// The sync client's transactions on a realm file (``FileAccess``): over the handle the
/// file's coordinator owns, which only the coordinator closes; an ORCore failure is
/// reported as a `SyncError` that keeps ORCore's status in its underlying error.
final class FileAccessTests: XCTestCase {
    /// The test's realm file, in a directory removed when the test ends.
    lazy var fileURL: URL = {
        let url = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
            .appendingPathComponent("openrealm-file-access-\(UUID().uuidString).realm")
        addTeardownBlock { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: url)) }
        return url
    }()

    func configuration(readOnly: Bool = false) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL)
        config.objectTypes = [BulkItem.self, BulkNote.self]
        config.readOnly = readOnly
        return config
    }

    /// How many of this process's file descriptors are open on `path`.
    func descriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    func testAFailingEngineCallIsASyncErrorThatKeepsTheStatus() throws {
        do { _ = try Realm(configuration: configuration()) }
        let realm = try Realm(configuration: configuration(readOnly: true))
        let file = FileAccess(coordinator: realm._coordinator)
        XCTAssertThrowsError(try file.write { try $0.setMeta(SyncProgressStore.uploadBaseKey, 1) }) { error in
            guard let syncError = error as? SyncError else { return XCTFail("not a SyncError: \(error)") }
            XCTAssertEqual(syncError.code, .otherError)
            XCTAssertTrue(syncError.message.contains(file.path), syncError.message)
            let underlying = syncError.underlyingError as? ORCoreError
            XCTAssertEqual(underlying?.status, ORC_ERR_READ_ONLY, "\(error)")
            XCTAssertEqual(syncError.underlyingError.map { $0 as NSError }?.code, Int(ORC_ERR_READ_ONLY))
        }
        // A failure inside the body (a write in a read transaction) is reported the same way.
        XCTAssertThrowsError(try file.read { try $0.setMeta(SyncProgressStore.uploadBaseKey, 1) }) { error in
            let status = ((error as? SyncError)?.underlyingError as? ORCoreError)?.status ?? 0
            XCTAssertNotEqual(status, 0, "\(error)")
        }
    }

    func testTheRealmsHandleIsClosedOnceByItsCoordinator() throws {
        let path = configuration().fileURL!.path
        do {
            let realm = try Realm(configuration: configuration())
            for i in 0..<3 {
                let file = FileAccess(coordinator: realm._coordinator)
                let (_, version) = try file.write { try $0.setMeta(SyncProgressStore.uploadBaseKey, uint64s: [UInt64(i)]) }
                XCTAssertEqual(file.latestVersion(), version)
            }
            // Each FileAccess went without closing the coordinator's handle.
            XCTAssertGreaterThan(descriptors(on: path), 0)
            try realm.write { realm.add(BulkItem(value: ["_id": 1])) }
            XCTAssertEqual(realm.objects(BulkItem.self).count, 1)
            let file = FileAccess(coordinator: realm._coordinator)
            XCTAssertEqual(try file.read { try $0.metaUInt64s(SyncProgressStore.uploadBaseKey) }, [2])
        }
        XCTAssertEqual(descriptors(on: path), 0, "the coordinator closed the file when the realm went")
    }
}
