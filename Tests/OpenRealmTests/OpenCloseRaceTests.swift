import Foundation
import OpenRealm
import XCTest

final class OpenCloseCounter: Object {
    @Persisted(primaryKey: true) var id: String
    @Persisted var thread: Int
    @Persisted var round: Int
    @Persisted var payload: String
}

/// Threads that open, write, read and close one file over and over, so that one
/// thread's open often meets another's close: the file must only ever have one ORCore
/// environment in the process, and every commit must be there afterwards.
final class OpenCloseRaceTests: XCTestCase {
    func testOpeningWhileAnotherThreadClosesKeepsEveryCommit() throws {
        let configuration = try makeFileConfiguration([OpenCloseCounter.self])
        let threads = 3, rounds = 150
        let failures = Failures()
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for r in 0..<rounds {
                    do {
                        let realm = try Realm(configuration: configuration)
                        try realm.write {
                            realm.add(OpenCloseCounter(value: ["id": "\(t)-\(r)", "thread": t, "round": r,
                                                               "payload": String(repeating: "x", count: 100 + r)]))
                        }
                        let mine = realm.objects(OpenCloseCounter.self).where { $0.thread == t }.count
                        if mine != r + 1 { failures.add("thread \(t) round \(r) saw \(mine) of its objects") }
                    } catch {
                        failures.add("thread \(t) round \(r): \(error)")
                    }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the threads did not finish within 120 s")
        XCTAssertEqual(failures.all, [])
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(realm.objects(OpenCloseCounter.self).count, threads * rounds)
        for t in 0..<threads {
            let rounds = realm.objects(OpenCloseCounter.self).where { $0.thread == t }.sorted(byKeyPath: "round").map(\.round)
            XCTAssertEqual(Array(rounds), Array(0..<rounds.count))
        }
    }
}

private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ s: String) { lock.withLock { list.append(s) } }
    var all: [String] { lock.withLock { list } }
}
