import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The stored record of what a client file's bootstraps sent it whole.
final class BootstrapCopiesTests: XCTestCase {
    private func ref(_ id: Int64) -> WireObjectRef { WireObjectRef(className: "Task", primaryKey: .int(id)) }

    func testWhatABootstrapSentIsAnsweredPerObjectAndBase() {
        var copies = BootstrapCopies()
        copies.record(version: 5, sent: [ref(1), ref(2)])
        copies.record(version: 9, sent: [ref(2)])
        XCTAssertTrue(copies.sentWhole(ref(1), after: 4))
        XCTAssertFalse(copies.sentWhole(ref(1), after: 5), "a changeset based on 5 was made after that copy")
        XCTAssertTrue(copies.sentWhole(ref(2), after: 8))
        XCTAssertFalse(copies.sentWhole(ref(3), after: 0))
        XCTAssertEqual(copies.lastVersion, 9)
        copies.record(version: 12, sent: nil)
        XCTAssertTrue(copies.sentWhole(ref(3), after: 11), "a bootstrap of the whole view stands for every object")
        XCTAssertEqual(copies.objects, [:])
        copies.record(version: 14, sent: [ref(4)])
        copies.drop(through: 12)
        XCTAssertEqual(copies.wholeViewVersion, 0)
        XCTAssertEqual(copies.objects, [ref(4): 14])
    }

    func testTheStoredFormRoundTripsAndDamageIsRefused() throws {
        var copies = BootstrapCopies()
        copies.record(version: 3, sent: nil)
        copies.record(version: 7, sent: [ref(1), WireObjectRef(className: "Note", primaryKey: .string("c1-9"))])
        let bytes = try copies.encoded()
        XCTAssertEqual(BootstrapCopies(decoding: bytes), copies)
        for cut in [0, 4, 11, 12, 20, bytes.count - 1] {
            XCTAssertNil(BootstrapCopies(decoding: Array(bytes.prefix(cut))), "cut at \(cut)")
        }
        var countTooHigh = bytes
        countTooHigh[8] = 200
        XCTAssertNil(BootstrapCopies(decoding: countTooHigh))
        XCTAssertEqual(BootstrapCopies(decoding: try BootstrapCopies().encoded()), BootstrapCopies())
    }

    func testTheRecordIsKeptInTheStoreAndAnEmptyOneIsDeleted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("copies-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try AppStore(appId: "copies", directory: directory)
        var copies = BootstrapCopies()
        copies.record(version: 4, sent: [ref(1)])
        try store.environment.write { txn in try copies.write(txn, ident: 7) }
        XCTAssertEqual(try store.environment.read { txn in try BootstrapCopies.read(txn, ident: 7) }, copies)
        XCTAssertEqual(try store.environment.read { txn in try BootstrapCopies.read(txn, ident: 8) }, BootstrapCopies())
        try store.environment.write { txn in try txn.setMeta(BootstrapCopies.metaName(7), bytes: [1, 2, 3]) }
        XCTAssertThrowsError(try store.environment.read { txn in try BootstrapCopies.read(txn, ident: 7) })
        try store.environment.write { txn in try BootstrapCopies().write(txn, ident: 7) }
        XCTAssertNil(try store.environment.read { txn in try txn.metaBytes(BootstrapCopies.metaName(7)) })
    }
}
