import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// The list transformation on its own: for every pair of concurrent edits of small
/// lists, applying one and then the other transformed gives the same list whichever
/// was integrated first (the property convergence rests on).
final class ListTransformTests: XCTestCase {
    static let object = WireObjectPath(className: "Task", primaryKey: .int(1))

    /// Applies a list instruction the way the server does (out-of-range positions are
    /// clamped for inserts and dropped for the others).
    static func apply(_ i: WireInstruction?, to list: [String]) -> [String] {
        var list = list
        switch i {
        case .listInsert(_, _, let q, .string(let v))?: list.insert(v, at: min(Int(q), list.count))
        case .listSet(_, _, let q, .string(let v))? where Int(q) < list.count: list[Int(q)] = v
        case .listErase(_, _, let q)? where Int(q) < list.count: list.remove(at: Int(q))
        case .listMove(_, _, let f, let t)? where Int(f) < list.count && Int(t) < list.count:
            let e = list.remove(at: Int(f))
            list.insert(e, at: Int(t))
        case .clearCollection?: list = []
        default: break
        }
        return list
    }

    /// Every edit of a list of `n` elements, new values named by `tag`.
    static func edits(_ n: Int, _ tag: String) -> [WireInstruction] {
        var out: [WireInstruction] = [.clearCollection(object: object, property: "tags")]
        for q in 0...n { out.append(.listInsert(object: object, property: "tags", index: UInt64(q), value: .string("\(tag)\(q)"))) }
        for q in 0..<n {
            out.append(.listSet(object: object, property: "tags", index: UInt64(q), value: .string("\(tag)=\(q)")))
            out.append(.listErase(object: object, property: "tags", index: UInt64(q)))
            for t in 0..<n where t != q { out.append(.listMove(object: object, property: "tags", from: UInt64(q), to: UInt64(t))) }
        }
        return out
    }

    func testConcurrentPairsConverge() {
        var failures: [String] = []
        for n in 0...4 {
            let start = (0..<n).map { "e\($0)" }
            for first in Self.edits(n, "a") {
                for second in Self.edits(n, "b") {
                    // `first` was integrated first; `second` is transformed against it on the
                    // server, and `first` against `second` on the client that made `second`.
                    let server = Self.apply(ListTransform.transform(second, against: first, winsTies: false),
                                            to: Self.apply(first, to: start))
                    let client = Self.apply(ListTransform.transform(first, against: second, winsTies: true),
                                            to: Self.apply(second, to: start))
                    if server != client { failures.append("n=\(n) first \(first) second \(second): server \(server) client \(client)") }
                }
            }
        }
        XCTAssertEqual(failures.count, 0, failures.prefix(40).joined(separator: " || "))
    }

    func testConcurrentInsertsAtOnePositionAllSurviveInServerOrder() {
        let a = WireInstruction.listInsert(object: Self.object, property: "tags", index: 1, value: .string("a"))
        let b = WireInstruction.listInsert(object: Self.object, property: "tags", index: 1, value: .string("b"))
        let c = WireInstruction.listInsert(object: Self.object, property: "tags", index: 1, value: .string("c"))
        // b and c were made on x, y without knowing a, integrated in the order a, b, c.
        var list = Self.apply(a, to: ["x", "y"])
        list = Self.apply(ListTransform.transform([b], against: [a]).first, to: list)
        list = Self.apply(ListTransform.transform([c], against: [a, ListTransform.transform([b], against: [a])[0]]).first, to: list)
        XCTAssertEqual(list, ["x", "a", "b", "c", "y"])
    }

    func testSequencesTransformAgainstEachOther() {
        // The incoming changeset inserts twice; the second insert's position counts the first.
        let concurrent: [WireInstruction] = [.listInsert(object: Self.object, property: "tags", index: 0, value: .string("o"))]
        let incoming: [WireInstruction] = [
            .listInsert(object: Self.object, property: "tags", index: 0, value: .string("p")),
            .listInsert(object: Self.object, property: "tags", index: 1, value: .string("q")),
            .listErase(object: Self.object, property: "tags", index: 2),
        ]
        var server = Self.apply(concurrent[0], to: ["x"])
        for i in ListTransform.transform(incoming, against: concurrent) { server = Self.apply(i, to: server) }
        XCTAssertEqual(server, ["o", "p", "q"])
        // Another list and other instructions are left alone.
        let other: [WireInstruction] = [.listInsert(object: Self.object, property: "other", index: 0, value: .string("z")),
                                        .set(object: Self.object, property: "title", value: .string("t"))]
        XCTAssertEqual(ListTransform.transform(other, against: concurrent), other)
    }

    func testPathsThroughAListFollowTheirElement() {
        let order = WireObjectRef(className: "Order", primaryKey: .int(1))
        func line(_ i: UInt64) -> WireObjectPath { WireObjectPath(order, path: [.property("lines"), .index(i)]) }
        let root = WireObjectPath(order)
        let insertFront = WireInstruction.createEmbeddedObject(object: root, property: "lines", position: .listIndex(0), values: [])
        let setQty = WireInstruction.set(object: line(1), property: "qty", value: .int(3))
        XCTAssertEqual(ListTransform.transform([setQty], against: [insertFront]),
                       [.set(object: line(2), property: "qty", value: .int(3))])
        // The element was erased (by a list erase, an erase of the object, a clear): the edit goes.
        XCTAssertEqual(ListTransform.transform([setQty], against: [.listErase(object: root, property: "lines", index: 1)]), [])
        XCTAssertEqual(ListTransform.transform([setQty], against: [.eraseObject(line(1))]), [])
        XCTAssertEqual(ListTransform.transform([setQty], against: [.clearCollection(object: root, property: "lines")]), [])
        // An erase of an element is a list erase: it shifts and is shifted.
        XCTAssertEqual(ListTransform.transform([.eraseObject(line(1))], against: [insertFront]), [.eraseObject(line(2))])
        XCTAssertEqual(ListTransform.transform([.createEmbeddedObject(object: root, property: "lines", position: .listIndex(2), values: [])],
                                               against: [.eraseObject(line(0))]),
                       [.createEmbeddedObject(object: root, property: "lines", position: .listIndex(1), values: [])])
        // Nested: a list inside a list element follows the outer element.
        let tags = WireInstruction.listInsert(object: line(1), property: "tags", index: 0, value: .string("t"))
        XCTAssertEqual(ListTransform.transform([tags], against: [insertFront]),
                       [.listInsert(object: line(2), property: "tags", index: 0, value: .string("t"))])
        // And the other way round (a client carrying a download past its own edits).
        XCTAssertEqual(ListTransform.transform(setQty, against: insertFront, winsTies: true),
                       .set(object: line(2), property: "qty", value: .int(3)))
    }
}
