import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmTestSupport

/// What an upload is transformed against (``ConcurrentEdits/instructions(_:origin:after:through:on:index:memo:)``),
/// worked out per top-level object and extended from a session's memo as the history
/// grows, must be what the whole history says: checked against a plain reading of it
/// (every version read again, every object's instructions together) over random
/// histories of three clients editing the lists of three objects.
final class ConcurrentRangeTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try skipOnPostgres("reads histories written straight into embedded stores")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("concurrent-range-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private static func object(_ n: Int64) -> WireObjectPath { WireObjectPath(className: "Task", primaryKey: .int(n)) }

    private static func randomInstruction(_ rng: inout SplitMix64) -> WireInstruction {
        let path = object(Int64(rng.next() % 3 + 1))
        let index = rng.next() % 6
        switch rng.next() % 8 {
        case 0, 1, 2: return .listInsert(object: path, property: "tags", index: index, value: .string("v\(rng.next() % 1000)"))
        case 3: return .listErase(object: path, property: "tags", index: index)
        case 4: return .listSet(object: path, property: "tags", index: index, value: .string("s\(rng.next() % 1000)"))
        case 5: return .listMove(object: path, property: "tags", from: index, to: rng.next() % 6)
        case 6: return .set(object: path, property: "title", value: .string("t"))
        default: return .eraseObject(path)
        }
    }

    func testRangesPerObjectFromAMemoMatchTheWholeHistory() throws {
        for seed in 1...12 {
            try checkRandomHistory(seed: UInt64(seed))
        }
    }

    private func checkRandomHistory(seed: UInt64) throws {
        let store = try AppStore(appId: "ranges-\(seed)", directory: directory.appendingPathComponent("\(seed)"))
        var rng = SplitMix64(seed: seed * 7919)
        let origin: UInt64 = 1
        let memo = ConcurrentEdits.Memo()
        let index = HistoryIndex()
        var version: UInt64 = 0
        var originBase: UInt64 = 0
        var clientVersion: UInt64 = 0
        var checks = 0
        for _ in 0..<60 {
            // A few more versions of history: the origin's own changesets (made at a base
            // that never decreases) and the others'.
            try store.environment.write { txn in
                for _ in 0..<Int(rng.next() % 4 + 1) {
                    version += 1
                    let instructions = (0..<Int(rng.next() % 3 + 1)).map { _ in Self.randomInstruction(&rng) }
                    let byOrigin = rng.next() % 3 == 0
                    if byOrigin {
                        clientVersion += 1
                        // Mostly a little behind, now and then far behind.
                        let lag = rng.next() % 5 == 0 ? rng.next() % 40 : rng.next() % 6
                        originBase = max(originBase, version - 1 - min(version - 1, lag))
                    }
                    let listEdits = instructions.filter { ListTransform.list(of: $0) != nil }
                    try AppStore.appendHistory(txn, HistoryEntry(
                        serverVersion: version, originFileIdent: byOrigin ? origin : 2 + rng.next() % 2,
                        originClientVersion: byOrigin ? clientVersion : version,
                        timestamp: WireHybridTimestamp(milliseconds: 1_000 + version), integratedAt: 0,
                        changeset: try WireChangeset(instructions).encoded(), compensation: [],
                        uploadedListEdits: byOrigin && !listEdits.isEmpty ? try WireChangeset(listEdits).encoded() : [],
                        originServerVersion: byOrigin ? originBase : nil))
                }
            }
            // What an upload of the origin made at its base now is transformed against.
            let objects: Set<WireObjectRef> = Set((1...3).filter { _ in rng.next() % 2 == 0 }.map { Self.object(Int64($0)).root })
            try store.environment.read { txn in
                let fromMemo = try ConcurrentEdits.instructions(txn, origin: origin, after: originBase, through: version,
                                                                          on: objects, index: index, memo: memo)
                // A fresh index and memo (a restarted server), read for the same range.
                let fresh = try ConcurrentEdits.instructions(txn, origin: origin, after: originBase, through: version,
                                                                       on: objects, index: HistoryIndex())
                let expected = try Self.wholeHistory(txn, origin: origin, after: originBase, through: version)
                for ref in objects {
                    XCTAssertEqual(fromMemo.filter { $0.topLevelObject == ref }, expected.filter { $0.topLevelObject == ref },
                                   "seed \(seed), after \(originBase) through \(version), \(ref)")
                    XCTAssertEqual(fresh.filter { $0.topLevelObject == ref }, expected.filter { $0.topLevelObject == ref },
                                   "fresh index: seed \(seed), after \(originBase) through \(version), \(ref)")
                }
                XCTAssertTrue(fromMemo.allSatisfy { $0.topLevelObject.map(objects.contains) ?? false })
                checks += 1
            }
        }
        XCTAssertEqual(checks, 60)
        XCTAssertFalse(memo.isEmpty)
        memo.clear()
        XCTAssertTrue(memo.isEmpty)
    }

    /// Versions read in a write transaction that was then aborted are forgotten, and
    /// read again as committed; versions at or below a new history floor are dropped.
    func testTheIndexForgetsAbortedVersionsAndDropsTrimmedOnes() throws {
        let store = try AppStore(appId: "index", directory: directory.appendingPathComponent("index"))
        let index = HistoryIndex()
        let tags = Self.object(1)
        func entry(_ version: UInt64, _ value: String) throws -> HistoryEntry {
            HistoryEntry(serverVersion: version, originFileIdent: 2, originClientVersion: version,
                         timestamp: WireHybridTimestamp(milliseconds: version), integratedAt: 0,
                         changeset: try WireChangeset([.listInsert(object: tags, property: "tags", index: 0, value: .string(value))]).encoded())
        }
        try store.environment.write { txn in
            for v in UInt64(1)...3 { try AppStore.appendHistory(txn, try entry(v, "committed\(v)")) }
        }
        struct Abort: Error {}
        XCTAssertThrowsError(try store.environment.write { txn in
            try AppStore.appendHistory(txn, try entry(4, "aborted"))
            try index.cover(after: 0, through: 4, floor: 0, txn)
            XCTAssertEqual(index.items(tags.root, 1, 4).count, 4)
            throw Abort()
        })
        index.forget(after: 3)
        XCTAssertEqual(index.coveredVersions, 1...3)
        try store.environment.write { txn in try AppStore.appendHistory(txn, try entry(4, "committed4")) }
        try store.environment.read { txn in
            try index.cover(after: 0, through: 4, floor: 0, txn)
            XCTAssertEqual(index.items(tags.root, 1, 4).map { $0.changeset.first }, (1...4).map {
                .listInsert(object: tags, property: "tags", index: 0, value: .string("committed\($0)"))
            })
            // The history trimmed through version 2: versions 1 and 2 leave the index.
            try index.cover(after: 2, through: 4, floor: 2, txn)
            XCTAssertEqual(index.coveredVersions, 3...4)
            XCTAssertEqual(index.items(tags.root, 0, 4).map(\.version), [3, 4])
        }
    }

    /// The history after `after` read from scratch, every object at once: the others'
    /// instructions that can move list indices, carried past each of the origin's own
    /// changesets (its list edits as it uploaded them, themselves carried from the
    /// version it made them at).
    private static func wholeHistory(_ txn: StoreTransaction, origin: UInt64, after: UInt64,
                                     through last: UInt64) throws -> [WireInstruction] {
        var out: [WireInstruction] = []
        guard after < last else { return out }
        for version in (after + 1)...last {
            let entry = try XCTUnwrap(try AppStore.historyEntry(txn, version))
            if entry.originFileIdent == origin {
                guard !entry.uploadedListEdits.isEmpty, !out.isEmpty else { continue }
                var edits = try WireChangeset(decoding: entry.uploadedListEdits).instructions
                if let madeAt = entry.originServerVersion, madeAt < after {
                    edits = ListTransform.transform(edits, against: try wholeHistory(txn, origin: origin, after: madeAt, through: after))
                }
                out = ListTransform.transform(out, against: edits, incomingWinsTies: true)
                continue
            }
            out += try WireChangeset(decoding: entry.changeset).instructions.filter(HistoryIndex.movesListIndices)
        }
        return out
    }
}
