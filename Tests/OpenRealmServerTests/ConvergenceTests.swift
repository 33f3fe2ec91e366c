import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmTestSupport

/// Randomized concurrent edits from several clients: every client, resolving what it
/// receives the way the protocol asks (last writer wins per property by (HLC, origin
/// file), additions commute), must end with the server's state.
final class ConvergenceTests: ServerTestCase {
    /// A client's copy of the tasks: per object, per property, the value and the stamp
    /// of the write that set it.
    struct Replica {
        var values: [Int64: [String: (WireValue, WriteStamp)]] = [:]
        var scores: [Int64: Int64] = [:]

        mutating func apply(_ instructions: [WireInstruction], stamp: WriteStamp) {
            for instruction in instructions {
                switch instruction {
                case .createObject("Task", .int(let id), let values):
                    for v in values where v.name != "score" { set(id, v.name, v.value, stamp) }
                    if values.contains(where: { $0.name == "score" }) && scores[id] == nil { scores[id] = 0 }
                case .set(let path, let property, let value):
                    if case .int(let id) = path.root.primaryKey { set(id, property, value, stamp) }
                case .addInteger(let path, "score", let delta):
                    if case .int(let id) = path.root.primaryKey { scores[id, default: 0] &+= delta }
                default:
                    break
                }
            }
        }

        mutating func set(_ id: Int64, _ property: String, _ value: WireValue, _ stamp: WriteStamp) {
            if let old = values[id]?[property]?.1, old > stamp { return }
            values[id, default: [:]][property] = (value, stamp)
        }

        /// Comparable form: per object, the title, status and score.
        var state: [Int64: [String]] {
            var out: [Int64: [String]] = [:]
            for (id, props) in values {
                out[id] = [props["title"]?.0.description ?? "-", props["status"]?.0.description ?? "-", "\(scores[id] ?? 0)"]
            }
            return out
        }
    }

    func testRandomConcurrentEditsConverge() throws {
        let objects: [Int64] = [1, 2, 3, 4]
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        try upload(setup, clientVersion: 1, hlc: 1_000, Self.taskSchema + objects.map { Self.task($0, title: "t", status: "s") })

        let clientCount = 4
        let steps = 25
        let (clients, versions) = try subscribedClients(clientCount)
        let replicas = ReplicaBox(count: clientCount)
        let failures = ReplicaBox.Failures()
        let shared = ClientsBox(clients)
        DispatchQueue.concurrentPerform(iterations: clientCount) { index in
            let (client, ident) = shared.clients[index]
            // Like a real client, each changeset names the last server version integrated.
            var integrated = versions[index]
            var rng = SplitMix64(seed: UInt64(index + 1) * 7919)
            var replica = Replica()
            // The bootstrap's values: stamped as the setup's write.
            replica.apply(objects.map { Self.task($0, title: "t", status: "s") }, stamp: WriteStamp(timestamp: WireHybridTimestamp(milliseconds: 1_000), originFileIdent: 0))
            var clock = WireHybridTimestamp(milliseconds: 2_000)
            func handle(_ message: WireMessage) {
                guard case .download(let d) = message else { return }
                integrated = max(integrated, d.progress.serverVersion)
                for c in d.changesets {
                    replica.apply(c.instructions, stamp: WriteStamp(timestamp: c.timestamp, originFileIdent: c.originFileIdent))
                    clock = clock.receiving(c.timestamp, now: 0)
                }
            }
            do {
                for step in 1...steps {
                    var instructions: [WireInstruction] = []
                    for _ in 0..<Int(rng.next() % 3 + 1) {
                        let id = objects[Int(rng.next() % UInt64(objects.count))]
                        switch rng.next() % 3 {
                        case 0: instructions.append(.set(object: Self.path(id), property: "title", value: .string("c\(index)s\(step)")))
                        case 1: instructions.append(.set(object: Self.path(id), property: "status", value: .string(["open", "done", "late"][Int(rng.next() % 3)])))
                        default: instructions.append(.addInteger(object: Self.path(id), property: "score", delta: Int64(rng.next() % 9) - 4))
                        }
                    }
                    // Clocks jump ahead by different amounts, so that writes race.
                    clock = clock.advanced(to: clock.milliseconds + rng.next() % 40)
                    replica.apply(instructions, stamp: WriteStamp(timestamp: clock, originFileIdent: ident.fileIdentity.ident))
                    try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                        clientVersion: UInt64(step), lastIntegratedServerVersion: integrated, timestamp: clock, instructions: instructions)])))
                    _ = try client.waitFor("ack \(step)") { m -> Bool? in
                        if case .download(let d) = m, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion == UInt64(step) {
                            integrated = max(integrated, d.progress.serverVersion)
                            return true
                        }
                        if case .error(let e) = m { failures.add("client \(index): \(e.message)"); return true }
                        handle(m)
                        return nil
                    }
                }
                replicas.set(index, replica)
            } catch {
                failures.add("client \(index): \(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
        // Every client drains what the others sent after its last upload.
        var finalStates: [[Int64: [String]]] = []
        for (index, (client, _)) in clients.enumerated() {
            var replica = try XCTUnwrap(replicas.get(index))
            try client.send(.mark(WireMark(session: 1, requestId: 99)))
            _ = try client.waitFor("the mark") { m -> Bool? in
                if case .mark = m { return true }
                if case .download(let d) = m {
                    for c in d.changesets { replica.apply(c.instructions, stamp: WriteStamp(timestamp: c.timestamp, originFileIdent: c.originFileIdent)) }
                }
                return nil
            }
            finalStates.append(replica.state)
        }
        // The server's state, as a new client receives it.
        let (fresh, _) = try boundClient()
        var serverState: [Int64: [String]] = [:]
        for instruction in try subscribeToAllTasks(fresh) {
            guard case .createObject("Task", .int(let id), let values) = instruction else { continue }
            func value(_ name: String) -> String { values.first { $0.name == name }?.value.description ?? "-" }
            serverState[id] = [value("title"), value("status"), value("score")]
        }
        XCTAssertEqual(serverState.count, objects.count)
        for (index, state) in finalStates.enumerated() {
            XCTAssertEqual(state, serverState, "client \(index) diverged from the server")
        }
    }
}

final class ClientsBox: @unchecked Sendable {
    let clients: [(TestSyncClient, WireIdent)]
    init(_ clients: [(TestSyncClient, WireIdent)]) { self.clients = clients }
}

/// Results of the concurrent clients.
final class ReplicaBox: @unchecked Sendable {
    private let lock = NSLock()
    private var replicas: [ConvergenceTests.Replica?]

    init(count: Int) { replicas = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ r: ConvergenceTests.Replica) { lock.lock(); replicas[i] = r; lock.unlock() }
    func get(_ i: Int) -> ConvergenceTests.Replica? { lock.lock(); defer { lock.unlock() }; return replicas[i] }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
    }
}
