import Foundation
import OpenRealm
import XCTest
import OpenRealmTestSupport

final class NRandItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var score = 0
    @Persisted var tag = 0
    @Persisted var flag = false
    /// NCounts every change, so that a value set back to what it was still shows.
    @Persisted var edits = 0
}

final class NRandBag: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var items: List<NRandItem>
}

/// Follows one observed collection: applies each reported change to the previous
/// contents and checks that the result is the new contents, and that the reported
/// modifications are exactly the objects that stayed in place and changed.
final class NChangeChecker: @unchecked Sendable {
    struct Row: Equatable {
        let id: Int
        let score: Int
        let tag: Int
        let flag: Bool
        let edits: Int
    }

    let name: String
    /// Lists report a replaced element as a modification of its position: the
    /// modified positions may hold another object afterwards.
    let exactModifications: Bool
    private let lock = NSLock()
    private var rows: [Row] = []
    private var _failures: [String] = []
    private var _updates = 0
    private var _insertions = 0
    private var _initial = false

    init(_ name: String, exactModifications: Bool = true) {
        self.name = name
        self.exactModifications = exactModifications
    }

    var failures: [String] { lock.withLock { _failures } }
    var ids: [Int] { lock.withLock { rows.map(\.id) } }
    var updates: Int { lock.withLock { _updates } }
    var insertions: Int { lock.withLock { _insertions } }
    var hasInitial: Bool { lock.withLock { _initial } }

    static func rows<S: Sequence>(_ items: S) -> [Row] where S.Element == NRandItem {
        items.map { Row(id: $0.id, score: $0.score, tag: $0.tag, flag: $0.flag, edits: $0.edits) }
    }

    func initial(_ rows: [Row]) {
        lock.withLock {
            if _initial { _failures.append("\(name): a second .initial") }
            _initial = true
            self.rows = rows
        }
    }

    func update(_ new: [Row], deletions: [Int], insertions: [Int], modifications: [Int]) {
        lock.withLock {
            _updates += 1
            _insertions += insertions.count
            let old = rows
            // After a failure, follow the new contents so that later updates are checked on their own.
            defer { rows = new }
            func fail(_ message: String) {
                _failures.append("\(name), update \(_updates): \(message) (old \(old.map(\.id)), new \(new.map(\.id)), -\(deletions) +\(insertions) ~\(modifications))")
            }
            guard !deletions.isEmpty || !insertions.isEmpty || !modifications.isEmpty else { return fail("an empty update") }
            guard deletions == deletions.sorted(), insertions == insertions.sorted(), modifications == modifications.sorted(),
                  Set(deletions).count == deletions.count, Set(insertions).count == insertions.count else { return fail("unsorted or repeated indices") }
            guard deletions.allSatisfy({ $0 >= 0 && $0 < old.count }), modifications.allSatisfy({ $0 >= 0 && $0 < old.count }),
                  insertions.allSatisfy({ $0 >= 0 && $0 < new.count }) else { return fail("an index out of range") }
            // Which old positions stayed, and where their objects are now.
            let deleted = Set(deletions)
            var stayed: [Int] = []
            for index in old.indices where !deleted.contains(index) { stayed.append(index) }
            var newPositions: [Int] = []
            let inserted = Set(insertions)
            for index in new.indices where !inserted.contains(index) { newPositions.append(index) }
            guard stayed.count == newPositions.count else { return fail("deletions and insertions do not account for the sizes") }
            let newPosition = Dictionary(uniqueKeysWithValues: zip(stayed, newPositions))
            var applied = old.map(\.id)
            for index in deletions.reversed() { applied.remove(at: index) }
            for index in insertions { applied.insert(new[index].id, at: index) }
            if !exactModifications {
                for index in modifications { if let position = newPosition[index] { applied[position] = new[position].id } }
            }
            if applied != new.map(\.id) { return fail("applying the change gives \(applied)") }
            let changed = Set(zip(stayed, newPositions).filter { old[$0.0] != new[$0.1] }.map(\.0))
            if !changed.isSubset(of: Set(modifications)) {
                return fail("changed objects \(changed.sorted()) not all reported as modified")
            }
            if exactModifications && Set(modifications) != changed {
                return fail("modifications \(modifications) but changed \(changed.sorted())")
            }
            if !Set(modifications).isDisjoint(with: deleted) { return fail("a deleted position reported as modified") }
        }
    }

    func record(_ change: RealmCollectionChange<Results<NRandItem>>) {
        switch change {
        case .initial(let results): initial(Self.rows(results))
        case .update(let results, let d, let i, let m): update(Self.rows(results), deletions: d, insertions: i, modifications: m)
        case .error(let error): lock.withLock { _failures.append("\(name): \(error)") }
        }
    }

    func record(_ change: RealmCollectionChange<List<NRandItem>>) {
        switch change {
        case .initial(let list): initial(Self.rows(list))
        case .update(let list, let d, let i, let m): update(Self.rows(list), deletions: d, insertions: i, modifications: m)
        case .error(let error): lock.withLock { _failures.append("\(name): \(error)") }
        }
    }
}

final class NotificationRandomTests: XCTestCase {
    typealias Query = (name: String, make: (Realm) -> Results<NRandItem>)

    static var queries: [Query] { [
        ("all", { $0.objects(NRandItem.self) }),
        ("flagged", { $0.objects(NRandItem.self).where { $0.flag == true } }),
        ("by score", { $0.objects(NRandItem.self).sorted(byKeyPath: "score") }),
        ("flagged by score desc", { $0.objects(NRandItem.self).where { $0.flag }.sorted(byKeyPath: "score", ascending: false) }),
        ("by tag then id", { $0.objects(NRandItem.self).sorted(by: [SortDescriptor(keyPath: "tag"), SortDescriptor(keyPath: "id")]) }),
        ("high scores", { $0.objects(NRandItem.self).filter("score >= 50") }),
        ("first ten by score", { $0.objects(NRandItem.self).sorted(byKeyPath: "score").filter("TRUEPREDICATE LIMIT(10)") }),
    ] }

    /// One random write transaction of 1–5 operations.
    static func randomWrite(_ realm: Realm, _ random: inout SplitMix64, nextId: inout Int) {
        let items = realm.objects(NRandItem.self)
        let bag = realm.object(ofType: NRandBag.self, forPrimaryKey: 1)!
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            let count = items.count
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                nextId += 1
                realm.add(NRandItem(value: ["id": nextId, "score": Int.random(in: 0..<100, using: &random),
                                            "tag": 0, "flag": Bool.random(using: &random)]))
            case 2 where count > 0:
                realm.delete(items[Int.random(in: 0..<count, using: &random)])
            case 3 where count > 0:
                let item = items[Int.random(in: 0..<count, using: &random)]
                var score = Int.random(in: 0..<100, using: &random)
                if score == item.score { score = (score + 1) % 100 }
                item.score = score
                item.edits += 1
            case 4 where count > 0:
                let item = items[Int.random(in: 0..<count, using: &random)]
                item.tag += 1
                item.edits += 1
            case 5 where count > 0:
                let item = items[Int.random(in: 0..<count, using: &random)]
                item.flag.toggle()
                item.edits += 1
            case 6 where count > 0:
                bag.items.insert(items[Int.random(in: 0..<count, using: &random)], at: Int.random(in: 0...bag.items.count, using: &random))
            case 7 where bag.items.count > 0:
                bag.items.remove(at: Int.random(in: 0..<bag.items.count, using: &random))
            case 8 where bag.items.count > 1:
                bag.items.move(from: Int.random(in: 0..<bag.items.count, using: &random), to: Int.random(in: 0..<bag.items.count, using: &random))
            case 9 where bag.items.count > 0 && count > 0:
                bag.items.replace(index: Int.random(in: 0..<bag.items.count, using: &random), object: items[Int.random(in: 0..<count, using: &random)])
            default:
                break
            }
        }
    }

    func testRandomWritesOnAnotherThreadAreReportedExactly() throws {
        let config = makeInMemoryConfiguration([NRandItem.self, NRandBag.self])
        let realm = try Realm(configuration: config)
        try realm.write {
            realm.add(NRandBag(value: ["id": 1]))
            for i in 1...20 { realm.add(NRandItem(value: ["id": i, "score": (i * 37) % 100, "flag": i % 3 == 0])) }
        }
        let queue = DispatchQueue(label: "random-observers")
        var checkers: [NChangeChecker] = []
        var tokens: [NotificationToken] = []
        for query in Self.queries {
            let onMain = NChangeChecker("\(query.name) (main thread)")
            tokens.append(query.make(realm).observe { onMain.record($0) })
            let onQueue = NChangeChecker("\(query.name) (queue)")
            tokens.append(query.make(realm).observe(on: queue) { onQueue.record($0) })
            checkers += [onMain, onQueue]
        }
        let bag = realm.object(ofType: NRandBag.self, forPrimaryKey: 1)!
        let listChecker = NChangeChecker("bag.items", exactModifications: false)
        tokens.append(bag.items.observe { listChecker.record($0) })
        checkers.append(listChecker)
        pollUntil("initial notifications") { checkers.allSatisfy(\.hasInitial) }

        let seed = UInt64.random(in: 0..<UInt64.max)
        let done = NBox(false)
        let writer = Thread {
            var random = SplitMix64(seed: seed)
            let other = try! Realm(configuration: config)
            var nextId = 20
            for _ in 0..<300 {
                try! other.write { Self.randomWrite(other, &random, nextId: &nextId) }
            }
            done.value = true
        }
        writer.start()
        pollUntil("the writer", timeout: 60) { done.value }
        let final = try Realm(configuration: config)
        final.refresh()
        let expected = Self.queries.map { query in query.make(final).map(\.id) }
        let expectedList = final.object(ofType: NRandBag.self, forPrimaryKey: 1)!.items.map(\.id)
        pollUntil("observers to reach the last version", timeout: 30) {
            zip(expected, stride(from: 0, to: checkers.count - 1, by: 2)).allSatisfy { ids, i in
                checkers[i].ids == ids && checkers[i + 1].ids == ids
            } && listChecker.ids == expectedList
        }
        for checker in checkers {
            XCTAssertEqual(checker.failures, [], "seed \(seed)")
            XCTAssertGreaterThan(checker.updates, 0, checker.name)
        }
        tokens.forEach { $0.invalidate() }
    }

    func testConcurrentWritersLoseAndRepeatNothing() throws {
        let config = makeInMemoryConfiguration([NRandItem.self, NRandBag.self])
        let realm = try Realm(configuration: config)
        let onMain = NChangeChecker("main")
        let onQueue = NChangeChecker("queue")
        let sorted = NChangeChecker("sorted queue")
        let tokens = [
            realm.objects(NRandItem.self).observe { onMain.record($0) },
            realm.objects(NRandItem.self).observe(on: DispatchQueue(label: "race-1")) { onQueue.record($0) },
            realm.objects(NRandItem.self).sorted(byKeyPath: "score", ascending: false)
                .observe(on: DispatchQueue(label: "race-2")) { sorted.record($0) },
        ]
        pollUntil("initial") { onMain.hasInitial && onQueue.hasInitial && sorted.hasInitial }
        let writers = 4, commits = 50
        let finished = NCounts()
        for w in 0..<writers {
            Thread {
                let other = try! Realm(configuration: config)
                for c in 0..<commits {
                    try! other.write { other.add(NRandItem(value: ["id": w * 1000 + c, "score": (w * 31 + c * 7) % 97])) }
                }
                finished.append(w)
            }.start()
        }
        pollUntil("writers", timeout: 60) { finished.values.count == writers }
        let total = writers * commits
        pollUntil("every insertion", timeout: 30) {
            onMain.ids.count == total && onQueue.ids.count == total && sorted.ids.count == total
        }
        for checker in [onMain, onQueue, sorted] {
            XCTAssertEqual(checker.failures, [])
            XCTAssertEqual(checker.insertions, total, "\(checker.name): every insertion reported once")
        }
        XCTAssertEqual(onMain.ids, realm.objects(NRandItem.self).map(\.id))
        tokens.forEach { $0.invalidate() }
    }
}

final class NSpeedItem: Object {
    @Persisted var value = 0
    @Persisted var even = false
    @Persisted var label = ""
}

final class NotificationSpeedTests: XCTestCase {
    /// A one-object change in 100,000 objects is found from the changeset, not by
    /// reading every object: the delivery takes a small fraction of re-evaluating.
    func testOneChangeInALargeResultsIsCheap() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([NSpeedItem.self]))
        let count = 100_000
        try realm.write {
            for i in 0..<count { realm.add(NSpeedItem(value: ["value": i, "even": i % 2 == 0, "label": "item"])) }
        }
        let all = realm.objects(NSpeedItem.self)
        let filtered = all.where { $0.even == true }
        let logs = (NChangeLog<Results<NSpeedItem>>(), NChangeLog<Results<NSpeedItem>>())
        let tokens = [all.observe { logs.0.record($0) }, filtered.observe { logs.1.record($0) }]
        realm.refresh()   // delivers the initial notifications on this thread
        pollUntil("initials") { logs.0.initials == 1 && logs.1.initials == 1 }
        XCTAssertEqual(filtered.count, count / 2)

        let target = all[count / 2]
        let start = Date()
        try realm.write { target.label = "changed" }   // delivered before write returns
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(logs.0.updates.last?.modifications, [count / 2])
        XCTAssertEqual(logs.1.updates.last?.modifications, [count / 4])

        // For comparison: running the filtered query again over every object (in C).
        let rerunStart = Date()
        for _ in 0..<3 { _ = realm.objects(NSpeedItem.self).where { $0.even == true }.count }
        let rerun = Date().timeIntervalSince(rerunStart) / 3
        print("one change in \(count) objects: write and delivery \(elapsed * 1000) ms; one query run \(rerun * 1000) ms")
        XCTAssertLessThan(elapsed, rerun, "the delivery must cost less than evaluating the query once")

        // An object leaving and one entering the filtered results.
        try realm.write {
            all[2].even = false
            realm.add(NSpeedItem(value: ["value": count, "even": true]))
        }
        XCTAssertEqual(logs.1.updates.last?.deletions, [1])
        XCTAssertEqual(logs.1.updates.last?.insertions, [count / 2 - 1])
        tokens.forEach { $0.invalidate() }
    }
}
