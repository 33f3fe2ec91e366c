import Foundation
import XCTest
@testable import OpenRealmPostgres
@testable import OpenRealmServer

/// An app that follows its first client decides its sync mode once: on both stores the
/// first decision stands, and on PostgreSQL one process of many deciding at once wins.
final class SyncModeStoreTests: PostgresTestCase {
    func testTheFirstDecisionStands() throws {
        let stores: [(String, any SyncModeStore)] = [
            ("embedded", try AppStore(appId: "app", directory: directory.appendingPathComponent("embedded"))),
            ("postgres", PostgresApp(database: try pool(try makeDatabase()), appId: "app")),
        ]
        for (name, store) in stores {
            XCTAssertNil(try store.decidedPartitioned(), name)
            XCTAssertEqual(try store.decide(partitioned: true).partitioned, true, name)
            XCTAssertEqual(try store.decide(partitioned: true).decidedNow, false, "\(name): decided once")
            let later = try store.decide(partitioned: false)
            XCTAssertEqual(later.partitioned, true, "\(name): a later flexible client does not change it")
            XCTAssertFalse(later.decidedNow, name)
            XCTAssertEqual(try store.decidedPartitioned(), true, name)
        }
    }

    func testOneOfManyProcessesDecides() throws {
        let location = try makeDatabase()
        let processes = try (0..<6).map { _ in PostgresApp(database: try pool(location), appId: "app") }
        let decisions = Decisions()
        DispatchQueue.concurrentPerform(iterations: processes.count) { i in
            if let outcome = try? processes[i].decide(partitioned: i % 2 == 0) { decisions.add(outcome) }
        }
        let all = decisions.all
        XCTAssertEqual(all.count, 6)
        XCTAssertEqual(all.filter(\.decidedNow).count, 1, "one process decided")
        XCTAssertEqual(Set(all.map(\.partitioned)).count, 1, "all agree on the mode")
    }
}

private final class Decisions: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [(partitioned: Bool, decidedNow: Bool)] = []
    func add(_ outcome: (partitioned: Bool, decidedNow: Bool)) { lock.withLock { outcomes.append(outcome) } }
    var all: [(partitioned: Bool, decidedNow: Bool)] { lock.withLock { outcomes } }
}
