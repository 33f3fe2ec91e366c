import Foundation
import ORCore
import OpenRealmSyncCore
import XCTest

/// The sync core's owner of ORCore handles: an environment closes its file once, and only
/// when it opened it; a failing ORCore call comes back as an ``ORCoreError`` that keeps
/// ORCore's status.
final class ORCoreEnvironmentTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
            .appendingPathComponent("openrealm-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// How many of this process's file descriptors are open on `path`.
    func descriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    /// Writes `value` under `name` and reads it back in a new transaction.
    func roundTrip(_ environment: ORCoreEnvironment, _ name: String, _ value: UInt64) throws -> UInt64? {
        try environment.write { try $0.setMeta(name, value) }
        return try environment.read { try $0.metaUInt64(name) }
    }

    func testAnOwnedEnvironmentClosesItsFileWhenItGoes() throws {
        let file = path("owned.realm")
        var first: ORCoreEnvironment? = try ORCoreEnvironment(path: file)
        var second: ORCoreEnvironment? = try ORCoreEnvironment(path: file)
        XCTAssertTrue(first!.ownsHandle)
        XCTAssertGreaterThan(descriptors(on: file), 0)
        first = nil
        // The file is shared by both handles: closing one leaves the other working.
        XCTAssertEqual(try roundTrip(second!, "test.value", 7), 7)
        XCTAssertGreaterThan(descriptors(on: file), 0)
        second = nil
        XCTAssertEqual(descriptors(on: file), 0, "the last handle closed the file")
    }

    func testABorrowedEnvironmentLeavesClosingToTheOwner() throws {
        let file = path("borrowed.realm")
        var owner: ORCoreEnvironment? = try ORCoreEnvironment(path: file)
        var borrowed: ORCoreEnvironment? = ORCoreEnvironment(borrowing: owner!.handle, path: file, from: owner!)
        XCTAssertFalse(borrowed!.ownsHandle)
        owner = nil
        // The borrower keeps the owner, and so the handle, alive.
        XCTAssertEqual(try roundTrip(borrowed!, "test.value", 9), 9)
        XCTAssertGreaterThan(descriptors(on: file), 0)
        // Many borrowers come and go without closing the handle.
        for _ in 0..<3 {
            let again = ORCoreEnvironment(borrowing: borrowed!.handle, path: file, from: borrowed!)
            XCTAssertEqual(try again.read { try $0.metaUInt64("test.value") }, 9)
        }
        XCTAssertEqual(try roundTrip(borrowed!, "test.value", 10), 10)
        borrowed = nil
        XCTAssertEqual(descriptors(on: file), 0, "the owner closed the file when the last borrower let it go")
    }

    func testOpeningAMissingFileWithoutCreatingItKeepsTheNotFoundStatus() {
        let file = path("missing.realm")
        XCTAssertThrowsError(try ORCoreEnvironment(path: file, flags: UInt32(ORC_ENV_NO_CREATE))) { error in
            let failure = error as? ORCoreError
            XCTAssertEqual(failure?.status, ORC_ERR_NOT_FOUND)
            XCTAssertEqual(failure?.isNotFound, true)
            XCTAssertTrue(failure?.message.contains(file) == true, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }

    func testOpeningADamagedFileKeepsTheDamageStatus() throws {
        let file = path("damaged.realm")
        try Data(repeating: 0x5A, count: 64 << 10).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try ORCoreEnvironment(path: file)) { error in
            let failure = error as? ORCoreError
            XCTAssertEqual(failure?.isDamaged, true, "\(error)")
            XCTAssertTrue([ORC_ERR_NOT_A_REALM, ORC_ERR_CORRUPT].contains(failure?.status ?? 0), "\(error)")
            // Bridged to NSError, the status is the code.
            XCTAssertEqual((error as NSError).domain, "ORCore")
            XCTAssertEqual((error as NSError).code, Int(failure?.status ?? 0))
        }
    }

    func testAWriteOnAReadOnlyFileKeepsTheReadOnlyStatus() throws {
        let file = path("readonly.realm")
        do { _ = try roundTrip(try ORCoreEnvironment(path: file), "test.value", 1) }
        let readOnly = try ORCoreEnvironment(path: file, flags: UInt32(ORC_ENV_READ_ONLY))
        XCTAssertEqual(try readOnly.read { try $0.metaUInt64("test.value") }, 1)
        XCTAssertThrowsError(try readOnly.write { try $0.setMeta("test.value", 2) }) { error in
            XCTAssertEqual((error as? ORCoreError)?.status, ORC_ERR_READ_ONLY, "\(error)")
            XCTAssertEqual((error as? ORCoreError)?.isReadOnly, true)
        }
        // A write call inside a read transaction: ORCore's refusal, status and all.
        XCTAssertThrowsError(try readOnly.read { try $0.setMeta("test.value", 3) }) { error in
            let status = (error as? ORCoreError)?.status ?? 0
            XCTAssertNotEqual(status, 0, "\(error)")
            XCTAssertTrue((error as? ORCoreError)?.message.contains("write metadata 'test.value'") == true, "\(error)")
        }
    }

    func testAThrowingBodyCommitsNothingAndDropsItsDeferredWrites() throws {
        let environment = try ORCoreEnvironment(path: path("abort.realm"))
        struct Stop: Error {}
        let record = Counter(name: "test.deferred")
        XCTAssertThrowsError(try environment.write { txn in
            try txn.setMeta("test.value", 5)
            txn.deferredWrite { record }.add(1)
            throw Stop()
        })
        XCTAssertNil(try environment.read { try $0.metaUInt64("test.value") })
        XCTAssertNil(try environment.read { try $0.metaUInt64("test.deferred") })
        XCTAssertEqual(record.writes, 0)
        // One deferred write per type and transaction, written once before the commit.
        let (_, version) = try environment.writeReturningVersion { txn in
            txn.deferredWrite { Counter(name: "test.deferred") }.add(2)
            txn.deferredWrite { Counter(name: "unused") }.add(3)
        }
        XCTAssertEqual(version, try environment.committedVersion())
        XCTAssertEqual(try environment.read { try $0.metaUInt64("test.deferred") }, 5)
    }
}

/// A deferred write that sums what it is given and stores the sum once.
private final class Counter: ORCoreDeferredWrite {
    let name: String
    var sum: UInt64 = 0
    var writes = 0

    init(name: String) { self.name = name }

    func add(_ n: UInt64) { sum += n }

    func write(_ txn: ORCoreTransaction) throws {
        writes += 1
        try txn.setMeta(name, sum)
    }
}
