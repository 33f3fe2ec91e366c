import XCTest
import OpenRealmSyncCore
import OpenRealmWire
import OpenRealmTestSupport

/// `ListTransform.integrateDownload`, the client's half of list convergence: a client
/// that applied its own edits and then transforms a download against them must end
/// with the list the server computes (the download applied first, the client's edits
/// transformed against it), and its edits as rewritten must give that list too.
final class ListDownloadTransformTests: XCTestCase {
    static let team = WireObjectPath(className: "Team", primaryKey: .int(1))

    static func apply(_ i: WireInstruction, to list: inout [String]) {
        switch i {
        case .listInsert(_, _, let q, .string(let v)): list.insert(v, at: min(Int(q), list.count))
        case .listSet(_, _, let q, .string(let v)): list[Int(q)] = v
        case .listErase(_, _, let q): list.remove(at: Int(q))
        case .listMove(_, _, let f, let t): list.insert(list.remove(at: Int(f)), at: Int(t))
        case .clearCollection: list = []
        default: break
        }
    }

    /// `count` random edits valid one after the other from `list`, new values named by `tag`.
    static func edits(_ count: Int, from list: [String], _ tag: String, _ g: inout SplitMix64) -> [WireInstruction] {
        var list = list
        var out: [WireInstruction] = []
        for k in 0..<count {
            let n = list.count
            let i: WireInstruction
            switch g.next(n == 0 ? 1 : 20) {
            case 0..<7: i = .listInsert(object: team, property: "members", index: UInt64(g.next(n + 1)), value: .string("\(tag)\(k)"))
            case 7..<11: i = .listSet(object: team, property: "members", index: UInt64(g.next(n)), value: .string("\(tag)=\(k)"))
            case 11..<16: i = .listErase(object: team, property: "members", index: UInt64(g.next(n)))
            case 16..<19 where n >= 2:
                i = .listMove(object: team, property: "members", from: UInt64(g.next(n)), to: UInt64(g.next(n)))
            case 19: i = .clearCollection(object: team, property: "members")
            default: i = .listErase(object: team, property: "members", index: UInt64(g.next(n)))
            }
            apply(i, to: &list)
            out.append(i)
        }
        return out
    }

    func testClientAndServerComputeTheSameList() {
        var g = SplitMix64(seed: 42)
        for round in 0..<3000 {
            let base = (0..<g.next(5)).map { "e\($0)" }
            let local = [Self.edits(1 + g.next(3), from: base, "c", &g)]
            let downloaded = Self.edits(1 + g.next(3), from: base, "s", &g)
            // The server: the download was integrated first, the upload transformed after it.
            var server = base
            for i in downloaded { Self.apply(i, to: &server) }
            for i in ListTransform.transform(local[0], against: downloaded) { Self.apply(i, to: &server) }
            // The client: its edits first, then the download transformed against them.
            var client = base
            for i in local[0] { Self.apply(i, to: &client) }
            var pending = local
            for i in ListTransform.integrateDownload(downloaded, pending: &pending) { Self.apply(i, to: &client) }
            XCTAssertEqual(client, server, "round \(round): base \(base), local \(local[0]), downloaded \(downloaded)")
            // The rewritten pending edits are what the server applies after the download.
            var replay = base
            for i in downloaded + pending[0] { Self.apply(i, to: &replay) }
            XCTAssertEqual(replay, server, "round \(round): rewritten \(pending[0])")
            if client != server || replay != server { return }
        }
    }

    func testDownloadsWithoutListEditsPassUnchanged() {
        let set = WireInstruction.set(object: Self.team, property: "teamName", value: .string("Docs"))
        var pending: [[WireInstruction]] = [[.listInsert(object: Self.team, property: "members", index: 0, value: .string("a"))]]
        let before = pending
        XCTAssertEqual(ListTransform.integrateDownload([set], pending: &pending), [set])
        XCTAssertEqual(pending, before)
    }

    func testTheDownloadedInsertStaysFirstOnATie() {
        var pending: [[WireInstruction]] = [[.listInsert(object: Self.team, property: "members", index: 0, value: .string("local"))]]
        let downloaded = ListTransform.integrateDownload(
            [.listInsert(object: Self.team, property: "members", index: 0, value: .string("remote"))], pending: &pending)
        XCTAssertEqual(downloaded, [.listInsert(object: Self.team, property: "members", index: 0, value: .string("remote"))])
        XCTAssertEqual(pending, [[.listInsert(object: Self.team, property: "members", index: 1, value: .string("local"))]])
    }
}

extension SplitMix64 {
    /// A number below `bound`: the next value modulo `bound`, the draw the recorded
    /// cases were found with.
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
