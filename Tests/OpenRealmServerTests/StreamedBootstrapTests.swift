import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// A bootstrap larger than the outgoing queue's bound (1 MiB here, a view of 12 MiB) is
/// streamed batch by batch to a client that reads it; a client that does not read is
/// still closed by the drain deadline (2 s here), with no more than the bound queued.
final class StreamedBootstrapTests: ServerTestCase {
    private let bound = 1 << 20

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncMaxOutboundBytes = bound
        configuration.syncDrainTimeout = 2
    }

    /// `parts` × 8 objects of 256 KiB (2 MiB each), more than the bound.
    private func seedLargeView(parts: Int) throws {
        let (writer, _) = try boundClient()
        try upload(writer, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(writer)
        for part in 0..<parts {
            try upload(writer, clientVersion: UInt64(2 + part), (1...8).map { i -> WireInstruction in
                let id = Int64(part * 8 + i)
                return .createObject(className: "Task", primaryKey: .int(id),
                                     values: [WirePropertyValue("title", .string(randomLetters(256 << 10, seed: UInt64(id))))])
            })
        }
    }

    private func closed(_ reason: String) -> UInt64 {
        server.metrics.counter("openrealm_slow_connections_closed_total", labels: "{reason=\"\(reason)\"}")
    }

    func testAViewLargerThanTheBoundBootstrapsCompletelyToAReadingClient() throws {
        // 12 MiB: more than the bound and the sockets' buffers hold.
        try seedLargeView(parts: 6)
        // Its socket's buffer is small: the kernel does not hold the bootstrap for it.
        let reader = try TestSyncClient(port: port, appId: "todo", receiveBufferBytes: 64 << 10)
        try reader.send(.bind(WireBind(session: 1, appId: "todo", accessToken: try anonymousToken())))
        _ = try reader.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        let jobs = JobCount()
        server.queryWork.beforeEachJob = { jobs.add() }
        try reader.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
        // The client reads only once the query's job has ended: everything the job
        // queued at once (the whole bootstrap, before streaming) was queued by then.
        let work = server.queryWork
        try waitUntil("the query's job has ended") { jobs.value == 1 && work.gate.running == 0 }
        var objects: Set<Int64> = []
        var batches = 0
        _ = try reader.waitFor("the bootstrap's last batch", timeout: 30) { message -> Bool? in
            if case .error(let e) = message { XCTFail("\(e.message)"); return false }
            guard case .download(let d) = message, d.queryVersion == 1, d.bootstrap != .none else { return nil }
            batches += 1
            for case .createObject(_, .int(let id), _) in d.changesets.flatMap(\.instructions) { objects.insert(id) }
            return d.bootstrap == .lastBatch ? true : nil
        }
        XCTAssertEqual(objects, Set(1...48))
        XCTAssertGreaterThanOrEqual(batches, 12, "1 MiB batches")
        XCTAssertEqual(closed("queue_full") + closed("drain_timeout"), 0)
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_outbound_queue_peak_bytes"), Int64(bound))
        // The connection goes on after it: an upload is acknowledged.
        try upload(reader, clientVersion: 1, [Self.task(100, title: "after", status: "open")])
    }

    func testAClientThatDoesNotReadItsLargeBootstrapIsClosedByTheDrainDeadline() throws {
        try seedLargeView(parts: 4)
        let (reader, _) = try boundClient()
        // Subscribes, unsubscribes, subscribes ... (more than the socket's buffers hold)
        // and reads nothing from now on.
        for version in 1...5 {
            try reader.send(.query(WireQuery(session: 1, queryVersion: UInt64(version),
                                             queries: [WireClassQuery(className: "Task", query: version % 2 == 1 ? "TRUEPREDICATE" : "FALSEPREDICATE")])))
        }
        try waitUntil("the server closes the client that does not read") { closed("drain_timeout") >= 1 }
        XCTAssertEqual(closed("queue_full"), 0, "the bootstrap was streamed, not queued whole")
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_outbound_queue_peak_bytes"), Int64(bound))
        // (The writer's connection ended with seeding.)
        try waitUntil("no connection is open") { server.metrics.gauge("openrealm_connections_open") == 0 }
        try waitUntil("its queue is released") { server.metrics.gauge("openrealm_outbound_queued_bytes") == 0 }
        withExtendedLifetime(reader) {}
    }
}

private final class JobCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
