import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmTestSupport

/// Randomized concurrent list edits (inserts, sets, erases, moves) of one list by
/// several clients. Each client applies its edits at once, uploads them with the last
/// server version it integrated (without waiting for the previous upload's
/// acknowledgement), and transforms what it downloads against its edits the server had
/// not integrated yet (`docs/CONFLICTS.md`); every client must end with the server's list.
final class ListConvergenceTests: ServerTestCase {
    /// A client's copy of `Task[1].tags`.
    struct ListReplica {
        var list: [String]
        /// Its own changesets not acknowledged yet (client version, instructions as the
        /// client now sees them).
        var pending: [(UInt64, [WireInstruction])] = []
        var lastServerVersion: UInt64

        mutating func applyLocal(_ clientVersion: UInt64, _ instructions: [WireInstruction]) {
            for i in instructions { list = ListTransformTests.apply(i, to: list) }
            pending.append((clientVersion, instructions))
        }

        /// A downloaded instruction (integrated before every pending one).
        /// This is what `OpenRealmSync` does (`ListTransform.integrateDownload`).
        mutating func applyDownloaded(_ instruction: WireInstruction) {
            var groups = pending.map(\.1)
            for i in ListTransform.integrateDownload([instruction], pending: &groups) {
                list = ListTransformTests.apply(i, to: list)
            }
            for g in pending.indices { pending[g].1 = groups[g] }
        }

        /// Forgets the changesets the server has integrated.
        mutating func acknowledge(_ clientVersion: UInt64) {
            pending.removeAll { $0.0 <= clientVersion }
        }

        mutating func handle(_ d: WireDownload) {
            for c in d.changesets {
                acknowledge(c.lastIntegratedClientVersion)
                for i in c.instructions { applyDownloaded(i) }
            }
            acknowledge(d.progress.lastIntegratedClientVersion)
            lastServerVersion = max(lastServerVersion, d.progress.serverVersion)
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var replicas: [Int: ListReplica] = [:]
        private var failures: [String] = []
        func set(_ i: Int, _ r: ListReplica) { lock.lock(); replicas[i] = r; lock.unlock() }
        func get(_ i: Int) -> ListReplica? { lock.lock(); defer { lock.unlock() }; return replicas[i] }
        func fail(_ s: String) { lock.lock(); failures.append(s); lock.unlock() }
        var allFailures: [String] { lock.lock(); defer { lock.unlock() }; return failures }
    }

    func testRandomConcurrentListEditsConverge() throws {
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        let initial = ["x", "y", "z"]
        try upload(setup, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "s")]
            + initial.enumerated().map { .listInsert(object: Self.path(1), property: "tags", index: UInt64($0.offset), value: .string($0.element)) })

        let clientCount = 4
        let steps = 20
        // Each client's bootstrap brings it to the server version of its view.
        let (clients, startVersions) = try subscribedClients(clientCount)
        let shared = ClientsBox(clients)
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: clientCount) { index in
            let (client, _) = shared.clients[index]
            var rng = SplitMix64(seed: UInt64(index + 3) * 104_729)
            var replica = ListReplica(list: initial, lastServerVersion: startVersions[index])
            let tags = Self.path(1)
            do {
                // Uploads are pipelined: each one is sent before the previous one is
                // acknowledged, so others' changesets get integrated between a client's own.
                func waitForAck(_ version: UInt64) throws {
                    _ = try client.waitFor("ack \(version)") { m -> Bool? in
                        if case .error(let e) = m { results.fail("client \(index): \(e.message)"); return true }
                        guard case .download(let d) = m else { return nil }
                        replica.handle(d)
                        return d.progress.lastIntegratedClientVersion >= version ? true : nil
                    }
                }
                for step in 1...steps {
                    var instructions: [WireInstruction] = []
                    for k in 0..<Int(rng.next() % 3 + 1) {
                        var count = UInt64(replica.list.count)
                        for i in instructions {
                            switch i {
                            case .listInsert: count += 1
                            case .listErase: count -= 1
                            default: break
                            }
                        }
                        let choice = count == 0 ? 0 : rng.next() % 5
                        switch choice {
                        case 0, 1:
                            instructions.append(.listInsert(object: tags, property: "tags", index: rng.next() % (count + 1),
                                                            value: .string("c\(index)s\(step)k\(k)")))
                        case 2:
                            instructions.append(.listErase(object: tags, property: "tags", index: rng.next() % count))
                        case 3:
                            instructions.append(.listSet(object: tags, property: "tags", index: rng.next() % count,
                                                         value: .string("c\(index)s\(step)k\(k)=")))
                        default:
                            instructions.append(.listMove(object: tags, property: "tags", from: rng.next() % count, to: rng.next() % count))
                        }
                    }
                    replica.applyLocal(UInt64(step), instructions)
                    try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                        clientVersion: UInt64(step), lastIntegratedServerVersion: replica.lastServerVersion,
                        timestamp: WireHybridTimestamp(milliseconds: 10_000 + UInt64(step)), instructions: instructions)])))
                    if step > 1 { try waitForAck(UInt64(step - 1)) }
                }
                try waitForAck(UInt64(steps))
                results.set(index, replica)
            } catch {
                results.fail("client \(index): \(error)")
            }
        }
        XCTAssertEqual(results.allFailures, [])
        var finals: [[String]] = []
        for (index, (client, _)) in clients.enumerated() {
            var replica = try XCTUnwrap(results.get(index))
            try client.send(.mark(WireMark(session: 1, requestId: 99)))
            _ = try client.waitFor("the mark") { m -> Bool? in
                if case .mark = m { return true }
                if case .download(let d) = m { replica.handle(d) }
                return nil
            }
            finals.append(replica.list)
        }
        let (fresh, _) = try boundClient()
        var serverList: [String] = []
        for case .listInsert(_, "tags", _, .string(let v)) in try subscribeToAllTasks(fresh) { serverList.append(v) }
        XCTAssertFalse(serverList.isEmpty)
        for (index, list) in finals.enumerated() {
            XCTAssertEqual(list, serverList, "client \(index) diverged from the server")
        }
    }

    func testConcurrentInsertsAtTheSamePositionAllSurvive() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        try subscribeToAllTasks(a)
        try subscribeToAllTasks(b)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "s"),
                                                          .listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("x"))])
        let base: UInt64 = 3 // two views, then a's upload
        // Both insert at the front, neither knowing the other's insert.
        try upload(a, clientVersion: 2, serverVersion: base, [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("a"))])
        try upload(b, clientVersion: 1, serverVersion: base, [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("b")),
                                                              .listErase(object: Self.path(1), property: "tags", index: 1)])
        let (fresh, _) = try boundClient()
        var list: [String] = []
        for case .listInsert(_, "tags", _, .string(let v)) in try subscribeToAllTasks(fresh) { list.append(v) }
        // a was integrated first, so it stays first; b's erase of "x" (its index 1) still hits "x".
        XCTAssertEqual(list, ["a", "b"])
    }

    func testOwnChangesetsIntegratedBetweenOthersAreAccountedFor() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        try subscribeToAllTasks(a)
        try subscribeToAllTasks(b)
        let tags = Self.path(1)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "s"),
                                                          .listInsert(object: tags, property: "tags", index: 0, value: .string("x")),
                                                          .listInsert(object: tags, property: "tags", index: 1, value: .string("y"))])
        let base: UInt64 = 3
        // b erases x; a, not knowing it, inserts a1 at the front, then (a second
        // changeset, made after the first) erases x, now at its index 1.
        try upload(b, clientVersion: 1, serverVersion: base, [.listErase(object: tags, property: "tags", index: 0)])
        try a.send(.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 2, lastIntegratedServerVersion: base, timestamp: WireHybridTimestamp(milliseconds: 5),
                                instructions: [.listInsert(object: tags, property: "tags", index: 0, value: .string("a1"))]),
            WireUploadChangeset(clientVersion: 3, lastIntegratedServerVersion: base, timestamp: WireHybridTimestamp(milliseconds: 6),
                                instructions: [.listErase(object: tags, property: "tags", index: 1)]),
        ])))
        _ = try a.waitFor("the acknowledgement") { m -> Bool? in
            if case .download(let d) = m, d.progress.lastIntegratedClientVersion == 3 { return true } else { return nil }
        }
        let (fresh, _) = try boundClient()
        var list: [String] = []
        for case .listInsert(_, "tags", _, .string(let v)) in try subscribeToAllTasks(fresh) { list.append(v) }
        // Both erased x; a1 and y remain.
        XCTAssertEqual(list, ["a1", "y"])
    }
}
