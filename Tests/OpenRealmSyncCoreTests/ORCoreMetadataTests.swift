import Foundation
import ORCore
import OpenRealmSyncCore
import XCTest

/// The metadata values both sides keep in their files (``ORCoreTransaction`` metadata).
final class ORCoreMetadataTests: XCTestCase {
    var directory: URL!
    var environment: ORCoreEnvironment!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-meta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        environment = try ORCoreEnvironment(path: directory.appendingPathComponent("meta.realm").path)
    }

    override func tearDownWithError() throws {
        environment = nil
        try? FileManager.default.removeItem(at: directory)
    }

    func testValuesReadBackAsWritten() throws {
        struct Doc: Codable, Equatable { var name: String }
        try environment.write { txn in
            try txn.setMeta("t.one", 42)
            try txn.setMeta("t.list", uint64s: [1, .max, 3])
            try txn.setMeta("t.bytes", bytes: [9, 8, 7])
            try txn.setMeta("t.json", json: Doc(name: "x"))
        }
        try environment.read { txn in
            XCTAssertEqual(try txn.metaUInt64("t.one"), 42)
            XCTAssertEqual(try txn.metaUInt64s("t.one"), [42])
            XCTAssertEqual(try txn.metaUInt64s("t.list"), [1, .max, 3])
            XCTAssertEqual(try txn.metaBytes("t.bytes"), [9, 8, 7])
            XCTAssertEqual(try txn.metaJSON("t.json", as: Doc.self), Doc(name: "x"))
            XCTAssertNil(try txn.metaUInt64("t.absent"))
            XCTAssertNil(try txn.metaBytes("t.absent"))
            XCTAssertEqual(try txn.metaUInt64s("t.absent"), [])
            XCTAssertNil(try txn.metaJSON("t.absent", as: Doc.self))
        }
    }

    func testEmptyValuesDeleteAndDeletingTwiceIsFine() throws {
        try environment.write { txn in
            try txn.setMeta("t.bytes", bytes: [1])
            try txn.setMeta("t.list", uint64s: [1])
        }
        try environment.write { txn in
            try txn.setMeta("t.bytes", bytes: [])
            try txn.setMeta("t.list", uint64s: [])
            try txn.deleteMeta("t.list")
            try txn.deleteMeta("t.never")
        }
        XCTAssertNil(try environment.read { try $0.metaBytes("t.bytes") })
        XCTAssertNil(try environment.read { try $0.metaBytes("t.list") })
    }

    func testAValueOfTheWrongSizeIsAnErrorNamingIt() throws {
        try environment.write { try $0.setMeta("t.odd", bytes: [1, 2, 3]) }
        try environment.read { txn in
            XCTAssertThrowsError(try txn.metaUInt64("t.odd")) { error in
                XCTAssertEqual((error as? ORCoreError)?.status, 0)
                XCTAssertEqual((error as? ORCoreError)?.message, "metadata 't.odd' holds 3 bytes, not 8")
            }
            XCTAssertThrowsError(try txn.metaUInt64s("t.odd")) { error in
                XCTAssertEqual((error as? ORCoreError)?.message, "metadata 't.odd' holds 3 bytes, not a multiple of 8")
            }
        }
    }

    func testReservedNamesAreRefusedWithORCoresStatus() throws {
        XCTAssertThrowsError(try environment.write { try $0.setMeta("orc.reserved", 1) }) { error in
            XCTAssertEqual((error as? ORCoreError)?.status, ORC_ERR_INVALID_ARG, "\(error)")
        }
    }
}
