import Foundation
import XCTest
@testable import OpenRealm

/// A model with only `@Persisted` fields, so that iteration re-points one accessor.
final class IRItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var minutes: Int
    @Persisted var note: String?
}

/// A linked list of nodes: a loop over one class that reads other rows of it.
final class IRNode: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var label: String
    @Persisted var next: IRNode?
}

/// Property reads of accessors handed out by iterating `Results` (the fast read path:
/// transaction and table kept on the accessor, no reference counting): values stay
/// current across writes and snapshot changes, and each realm reads its own file.
final class IterationReadTests: XCTestCase {
    private func fill(_ realm: Realm, count: Int, prefix: String) throws {
        try realm.write {
            for i in 0..<count {
                realm.add(IRItem(value: ["id": i, "name": "\(prefix)\(i)", "minutes": i * 10]))
            }
        }
    }

    func testWritesInsideAWriteTransactionAreSeenByLaterReads() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([IRItem.self]))
        try fill(realm, count: 20, prefix: "n")
        var seen: [String] = []
        try realm.write {
            for item in realm.objects(IRItem.self) {
                XCTAssertEqual(item.minutes, item.id * 10)
                item.minutes += 1
                XCTAssertEqual(item.minutes, item.id * 10 + 1)
                // Change the next row before iteration reaches it.
                if let next = realm.object(ofType: IRItem.self, forPrimaryKey: item.id + 1) {
                    next.name = "changed\(next.id)"
                }
                seen.append(item.name)
            }
        }
        XCTAssertEqual(seen, ["n0"] + (1..<20).map { "changed\($0)" })
        XCTAssertEqual(Array(realm.objects(IRItem.self).map(\.minutes)), (0..<20).map { $0 * 10 + 1 })
    }

    func testAWriteInsideTheLoopMovesLaterReadsToTheNewVersion() throws {
        let realm = try Realm(configuration: makeFileConfiguration([IRItem.self]))
        try fill(realm, count: 10, prefix: "n")
        var names: [String] = []
        var minutes: [Int] = []
        for item in realm.objects(IRItem.self) {
            let before = item.name
            if item.id == 3 {
                // The read snapshot ends; the write's transaction, then the next snapshot, are read.
                try realm.write {
                    item.minutes = -1
                    realm.object(ofType: IRItem.self, forPrimaryKey: 4)!.name = "four"
                    XCTAssertEqual(item.minutes, -1)
                }
                XCTAssertEqual(item.name, before)
            }
            names.append(item.name)
            minutes.append(item.minutes)
        }
        XCTAssertEqual(names, ["n0", "n1", "n2", "n3", "four", "n5", "n6", "n7", "n8", "n9"])
        XCTAssertEqual(minutes, [0, 10, 20, -1, 40, 50, 60, 70, 80, 90])
    }

    func testAnotherThreadsCommitIsSeenAfterRefreshInsideTheLoop() throws {
        let configuration = try makeFileConfiguration([IRItem.self])
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        try fill(realm, count: 6, prefix: "n")
        var names: [String] = []
        for item in realm.objects(IRItem.self) {
            if item.id == 2 {
                try writeOnAnotherThread(configuration) { other in
                    for row in other.objects(IRItem.self) { row.name = "other\(row.id)" }
                }
                // Not refreshed yet: the old snapshot is still read.
                XCTAssertEqual(item.name, "n2")
                XCTAssertTrue(realm.refresh())
            }
            names.append(item.name)
        }
        XCTAssertEqual(names, ["n0", "n1", "other2", "other3", "other4", "other5"])
    }

    func testDeletedObjectsAreInvalidatedAndTheRestStillRead() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([IRItem.self]))
        try fill(realm, count: 10, prefix: "n")
        var kept: [IRItem] = []
        for item in realm.objects(IRItem.self) where item.id % 3 == 0 {
            kept.append(item)
        }
        try realm.write { realm.delete(kept[1]) }
        XCTAssertTrue(kept[1].isInvalidated)
        XCTAssertFalse(kept[0].isInvalidated)
        var ids: [Int] = []
        for item in realm.objects(IRItem.self) { ids.append(item.id) }
        XCTAssertEqual(ids, [0, 1, 2, 4, 5, 6, 7, 8, 9])
        XCTAssertEqual(kept[2].name, "n6")
        XCTAssertEqual(kept[3].minutes, 90)
    }

    func testReadsAfterInvalidateOpenANewSnapshot() throws {
        let realm = try Realm(configuration: makeFileConfiguration([IRItem.self]))
        try fill(realm, count: 5, prefix: "n")
        var kept: [IRItem] = []
        for item in realm.objects(IRItem.self) {
            XCTAssertEqual(item.name, "n\(item.id)")
            kept.append(item)
        }
        // As in the Realm Swift SDK, what was read before is invalidated; reading the
        // realm again opens a new snapshot.
        realm.invalidate()
        XCTAssertTrue(kept.allSatisfy(\.isInvalidated))
        XCTAssertEqual(realm.objects(IRItem.self).map(\.minutes), [0, 10, 20, 30, 40])
    }

    func testTwoRealmsIteratedTogetherEachReadTheirOwnRows() throws {
        let first = try Realm(configuration: makeInMemoryConfiguration([IRItem.self]))
        let second = try Realm(configuration: makeFileConfiguration([IRItem.self]))
        try fill(first, count: 30, prefix: "a")
        try fill(second, count: 25, prefix: "b")
        try second.write {
            for item in second.objects(IRItem.self) { item.minutes = -item.id }
        }
        var pairs = 0
        for (a, b) in zip(first.objects(IRItem.self), second.objects(IRItem.self)) {
            XCTAssertEqual(a.name, "a\(a.id)")
            XCTAssertEqual(b.name, "b\(b.id)")
            XCTAssertEqual(a.minutes, a.id * 10)
            XCTAssertEqual(b.minutes, -b.id)
            XCTAssertNil(a.note)
            pairs += 1
        }
        XCTAssertEqual(pairs, 25)
    }

    func testFrozenAndLiveIterationsReadTheirOwnVersions() throws {
        let realm = try Realm(configuration: makeFileConfiguration([IRItem.self]))
        try fill(realm, count: 8, prefix: "n")
        let frozen = realm.freeze()
        try realm.write {
            for item in realm.objects(IRItem.self) { item.name = "live\(item.id)" }
        }
        for (old, new) in zip(frozen.objects(IRItem.self), realm.objects(IRItem.self)) {
            XCTAssertEqual(old.name, "n\(old.id)")
            XCTAssertEqual(new.name, "live\(new.id)")
        }
        // A frozen realm's objects may be read on another thread (one at a time).
        let names = try readOnAnotherThread { frozen.objects(IRItem.self).map(\.name) }
        XCTAssertEqual(names, (0..<8).map { "n\($0)" })
    }

    func testAnotherThreadsOwnRealmIteratesItsOwnSnapshot() throws {
        let configuration = try makeFileConfiguration([IRItem.self])
        let realm = try Realm(configuration: configuration)
        try fill(realm, count: 12, prefix: "n")
        let total = try readOnAnotherThread {
            let own = try! Realm(configuration: configuration)
            return own.objects(IRItem.self).reduce(0) { $0 + $1.minutes }
        }
        XCTAssertEqual(total, (0..<12).reduce(0) { $0 + $1 * 10 })
        XCTAssertEqual(realm.objects(IRItem.self).reduce(0) { $0 + $1.minutes }, total)
    }

    // MARK: Whole-class loops walk the table

    func testAWholeClassLoopRefreshedMidwayShowsTheNewVersionForTheRest() throws {
        let configuration = try makeFileConfiguration([IRItem.self])
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        try fill(realm, count: 8, prefix: "n")
        var ids: [Int] = []
        for item in realm.objects(IRItem.self) {
            ids.append(item.id)
            if item.id == 2 {
                try writeOnAnotherThread(configuration) { other in
                    other.delete(other.object(ofType: IRItem.self, forPrimaryKey: 3)!)
                    other.delete(other.object(ofType: IRItem.self, forPrimaryKey: 6)!)
                    other.add(IRItem(value: ["id": 100, "name": "late", "minutes": 1]))
                }
                XCTAssertTrue(realm.refresh())
            }
        }
        // Erased rows ahead of the loop are not reached; the new one (the highest key) is.
        XCTAssertEqual(ids, [0, 1, 2, 4, 5, 7, 100])
    }

    func testALoopInsideAWriteKeepsTheObjectsOfWhenItBegan() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([IRItem.self]))
        try fill(realm, count: 5, prefix: "n")
        var ids: [Int] = []
        try realm.write {
            for item in realm.objects(IRItem.self) {
                ids.append(item.id)
                // Each step adds an object and erases the object just read.
                realm.add(IRItem(value: ["id": 1000 + item.id, "name": "added", "minutes": 0]))
                realm.delete(item)
            }
        }
        XCTAssertEqual(ids, [0, 1, 2, 3, 4])
        XCTAssertEqual(realm.objects(IRItem.self).map(\.id).sorted(), [1000, 1001, 1002, 1003, 1004])
    }

    func testReadingOtherObjectsInsideTheLoopDoesNotLoseItsPlace() throws {
        let realm = try Realm(configuration: makeFileConfiguration([IRItem.self, IRNode.self]))
        try realm.write {
            var previous: IRNode?
            for i in 0..<300 {
                let node = IRNode(value: ["id": i, "label": "node \(i)"])
                realm.add(node)
                node.next = previous
                previous = node
                realm.add(IRItem(value: ["id": i, "name": "item \(i)", "minutes": i]))
            }
        }
        var labels: [String] = [], seen: [Int] = []
        for node in realm.objects(IRNode.self) {
            // Rows of the same table far away, another table, then this row again.
            labels.append(node.next?.next?.label ?? "-")
            if node.id % 7 == 0 { XCTAssertEqual(realm.object(ofType: IRItem.self, forPrimaryKey: 299 - node.id)?.minutes, 299 - node.id) }
            seen.append(node.id)
            XCTAssertEqual(node.label, "node \(node.id)")
        }
        XCTAssertEqual(seen, Array(0..<300))
        XCTAssertEqual(labels, ["-", "-"] + (0..<298).map { "node \($0)" })
        var names: [String] = []
        for item in realm.objects(IRItem.self) { names.append(item.name) }
        XCTAssertEqual(names, (0..<300).map { "item \($0)" })
        // An empty class and a class with one object.
        try realm.write { realm.delete(realm.objects(IRItem.self)) }
        XCTAssertEqual(Array(realm.objects(IRItem.self)).count, 0)
        try realm.write { realm.add(IRItem(value: ["id": 7, "name": "one", "minutes": 1])) }
        XCTAssertEqual(realm.objects(IRItem.self).map(\.name), ["one"])
    }

    /// Commits `body` in a realm of its own on a new thread, and waits (with a deadline).
    private func writeOnAnotherThread(_ configuration: Realm.Configuration, _ body: @escaping (Realm) -> Void) throws {
        let committed = try readOnAnotherThread { () -> Bool in
            let other = try! Realm(configuration: configuration)
            try! other.write { body(other) }
            return true
        }
        XCTAssertTrue(committed)
    }

    /// Runs `body` on a new thread and waits (with a deadline) for its result.
    private func readOnAnotherThread<T>(_ body: @escaping () -> T) throws -> T {
        let box = IRResultBox<T>()
        nonisolated(unsafe) let run = body
        Thread {
            box.value = run()
            box.done.signal()
        }.start()
        XCTAssertEqual(box.done.wait(timeout: .now() + 30), .success)
        return try XCTUnwrap(box.value)
    }
}

/// A result handed from a helper thread back to the test (written before `done` is signalled).
private final class IRResultBox<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}
