import XCTest
import OpenRealmSyncCore
import OpenRealmWire
import OpenRealmTestSupport

/// `ListTransform.integrateDownload` leaves out pairs of instructions on different
/// top-level objects (they cannot move each other). The result must be exactly what
/// meeting every pair gives, here computed by the plain algorithm over random downloads
/// and pending changesets spread over several owners, with embedded-object paths
/// through lists and erases of list elements.
final class ListDownloadOwnerSkipTests: XCTestCase {
    /// Every downloaded instruction against every pending one, as before the skip.
    static func meetingEveryPair(_ downloaded: [WireInstruction], pending: inout [[WireInstruction]]) -> [WireInstruction] {
        var out: [WireInstruction] = []
        for instruction in downloaded {
            var current: WireInstruction? = instruction
            for c in pending.indices {
                var rewritten: [WireInstruction] = []
                for p in pending[c] {
                    guard let d = current else { rewritten.append(p); continue }
                    current = ListTransform.transform(d, against: p, winsTies: true)
                    if let p2 = ListTransform.transform(p, against: d, winsTies: false) { rewritten.append(p2) }
                }
                pending[c] = rewritten
            }
            if let current { out.append(current) }
        }
        return out
    }

    static func instruction(_ g: inout SplitMix64) -> WireInstruction {
        let owner = WireObjectPath(className: ["Log", "Team"][g.next(2)], primaryKey: .int(Int64(g.next(3))))
        let index = UInt64(g.next(4))
        // Sometimes the path goes through an element of the owner's `lines` list.
        let object = g.next(3) == 0 ? WireObjectPath(owner.root, path: [.property("lines"), .index(UInt64(g.next(4)))]) : owner
        switch g.next(9) {
        case 0: return .listInsert(object: object, property: "entries", index: index, value: .string("v\(g.next(100))"))
        case 1: return .listSet(object: object, property: "entries", index: index, value: .string("s\(g.next(100))"))
        case 2: return .listErase(object: object, property: "entries", index: index)
        case 3: return .listMove(object: object, property: "entries", from: index, to: UInt64(g.next(4)))
        case 4: return .eraseObject(WireObjectPath(owner.root, path: [.property("lines"), .index(index)]))
        case 5: return .set(object: object, property: "text", value: .string("t"))
        case 6: return .createObject(className: "Note", primaryKey: .int(Int64(g.next(5))), values: [])
        // A clear drops the other side's edits of the list: the pending changesets left
        // without an instruction on the owner stop meeting its later instructions.
        case 7: return .clearCollection(object: object, property: "entries")
        default: return .listInsert(object: owner, property: "lines", index: index, value: .string("l"))
        }
    }

    func testSkippingOtherOwnersGivesWhatMeetingEveryPairGives() {
        var g = SplitMix64(seed: 2026)
        for _ in 0..<400 {
            let downloaded = (0..<(1 + g.next(6))).map { _ in Self.instruction(&g) }
            let pending = (0..<(1 + g.next(5))).map { _ in (0..<(1 + g.next(4))).map { _ in Self.instruction(&g) } }
            var expectedPending = pending
            let expected = Self.meetingEveryPair(downloaded, pending: &expectedPending)
            var actualPending = pending
            let actual = ListTransform.integrateDownload(downloaded, pending: &actualPending)
            XCTAssertEqual(actual, expected, "downloaded \(downloaded) pending \(pending)")
            XCTAssertEqual(actualPending, expectedPending, "downloaded \(downloaded) pending \(pending)")
        }
    }
}
