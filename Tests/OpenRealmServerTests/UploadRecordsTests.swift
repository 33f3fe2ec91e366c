import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmTestSupport

/// A client file's upload base (what history its later uploads may need), recorded per
/// integrated changeset and written once per transaction (``UploadRecords``), must be
/// what the plain rule gives after every transaction: checked against a reference that
/// keeps the whole list and applies the rule changeset by changeset.
final class UploadRecordsTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try skipOnPostgres("the records as the embedded store writes them (SyncUnitContractTests holds PostgreSQL's to the same answers)")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-records-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The rule, plainly: the hold is the new base, lowered to the base of the first own
    /// upload integrated after it, repeatedly; uploads at or below the hold are dropped.
    private struct Reference {
        var hold: UInt64?
        var uploads: [(version: UInt64, base: UInt64)] = []

        mutating func record(base: UInt64, version: UInt64) {
            var hold = self.hold ?? base
            if base > 0 {
                uploads.append((version, base))
                hold = base
                while let first = uploads.first(where: { $0.version > hold }), first.base < hold { hold = first.base }
            }
            uploads.removeAll { $0.version <= hold }
            self.hold = hold
        }
    }

    private func stored(_ store: AppStore, _ ident: UInt64) throws -> (hold: UInt64?, uploads: [UInt64]) {
        try store.environment.read { txn in
            let row = try XCTUnwrap(try txn.readRow("__client_files", .int(Int64(ident))))
            let file = try UploadRecords.read(txn, ident: ident, row: row)
            return (file.hold, file.live.flatMap { [$0.version, $0.base] })
        }
    }

    func testTheUploadBaseFollowsTheRuleAcrossTransactions() throws {
        for seed in 1...20 {
            let store = try AppStore(appId: "records-\(seed)", directory: directory.appendingPathComponent("\(seed)"))
            let files = try (0..<3).map { _ in try store.newClientFile(userId: "u") }
            var references = try files.map { file in
                Reference(hold: try stored(store, file.ident).hold)
            }
            var rng = SplitMix64(seed: UInt64(seed) * 104_729)
            var version: UInt64 = 10
            var bases: [UInt64] = [1, 1, 1]
            for _ in 0..<80 {
                try store.environment.write { txn in
                    // Long runs on one old base (a backlog), then a jump: the shape that
                    // made the list long; now and then a base 0 or a lower base.
                    for _ in 0..<Int(rng.next() % 40 + 1) {
                        let f = Int(rng.next() % 3)
                        version += 1
                        switch rng.next() % 20 {
                        case 0: bases[f] = 0
                        case 1: bases[f] = max(1, bases[f] / 2)
                        case 2, 3: bases[f] = max(1, version - 1 - min(version - 2, rng.next() % 30))
                        default: if bases[f] == 0 { bases[f] = version - 1 }
                        }
                        try AppStore.recordUpload(txn, ident: files[f].ident, base: bases[f], version: version)
                        references[f].record(base: bases[f], version: version)
                    }
                }
                for (f, file) in files.enumerated() {
                    let (hold, uploads) = try stored(store, file.ident)
                    XCTAssertEqual(hold, references[f].hold, "seed \(seed), file \(f)")
                    XCTAssertEqual(uploads, references[f].uploads.flatMap { [$0.version, $0.base] }, "seed \(seed), file \(f)")
                }
            }
            XCTAssertEqual(try store.environment.read { txn in
                try files.map { try AppStore.uploadBase(txn, ident: $0.ident) }
            }, references.map { $0.hold ?? 0 })
        }
    }

    /// An aborted transaction leaves the record as it was.
    func testAnAbortedTransactionRecordsNothing() throws {
        let store = try AppStore(appId: "abort", directory: directory.appendingPathComponent("abort"))
        let file = try store.newClientFile(userId: "u")
        try store.environment.write { txn in try AppStore.recordUpload(txn, ident: file.ident, base: 3, version: 5) }
        struct Abort: Error {}
        XCTAssertThrowsError(try store.environment.write { txn in
            try AppStore.recordUpload(txn, ident: file.ident, base: 3, version: 6)
            try AppStore.recordUpload(txn, ident: file.ident, base: 6, version: 7)
            throw Abort()
        })
        let (hold, uploads) = try stored(store, file.ident)
        XCTAssertEqual(hold, 3)
        XCTAssertEqual(uploads, [5, 3])
    }

    /// A store written before kept the pairs as text in `uploadsAfterBase`: they are read,
    /// moved to the metadata value, and the column cleared.
    func testPairsAnOlderStoreKeptAsTextAreMoved() throws {
        let store = try AppStore(appId: "legacy", directory: directory.appendingPathComponent("legacy"))
        let file = try store.newClientFile(userId: "u")
        try store.environment.write { txn in
            try txn.updateRow("__client_files", .int(Int64(file.ident)),
                              ["uploadBase": .int(4), "uploadsAfterBase": .string("6:4,9:5,12:8")])
        }
        try store.environment.write { txn in try AppStore.recordUpload(txn, ident: file.ident, base: 10, version: 13) }
        var reference = Reference(hold: 4, uploads: [(6, 4), (9, 5), (12, 8)])
        reference.record(base: 10, version: 13)
        let (hold, uploads) = try stored(store, file.ident)
        XCTAssertEqual(hold, reference.hold)
        XCTAssertEqual(hold, 4, "lowered through 12:8, 9:5 and 6:4")
        XCTAssertEqual(uploads, reference.uploads.flatMap { [$0.version, $0.base] })
        try store.environment.read { txn in
            let row = try XCTUnwrap(try txn.readRow("__client_files", .int(Int64(file.ident))))
            XCTAssertEqual(row.string("uploadsAfterBase") ?? "", "")
            XCTAssertEqual(try txn.metaBytes(UploadRecords.metaName(file.ident))?.count, 64)
        }
    }

    /// A damaged record is an error, not a guess.
    func testADamagedRecordIsAnError() throws {
        let store = try AppStore(appId: "damaged", directory: directory.appendingPathComponent("damaged"))
        let file = try store.newClientFile(userId: "u")
        try store.environment.write { txn in try txn.setMeta(UploadRecords.metaName(file.ident), bytes: [1, 2, 3]) }
        XCTAssertThrowsError(try store.environment.write { txn in
            try AppStore.recordUpload(txn, ident: file.ident, base: 1, version: 2)
        }) { error in
            XCTAssertTrue("\(error)".contains("not pairs of 16"), "\(error)")
        }
    }
}
