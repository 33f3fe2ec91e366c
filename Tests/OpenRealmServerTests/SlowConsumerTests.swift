import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Clients that stop reading what the server sends them: the bytes queued for each stay
/// under the bound (4 MiB here), such a connection is closed once a queued frame has
/// waited past the drain deadline (2 s here) or the bound is reached, pings or not, and
/// the writers of the app are never held by it. Bounds are asserted on the server's
/// counters; every wait has a deadline.
final class SlowConsumerTests: ServerTestCase {
    private let bound = 4 << 20

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncMaxOutboundBytes = bound
        configuration.syncDrainTimeout = 2
    }

    private static func bigTask(_ id: Int64) -> WireInstruction {
        .createObject(className: "Task", primaryKey: .int(id), values: [WirePropertyValue("title", .string(randomLetters(256 << 10, seed: UInt64(id))))])
    }

    private var slowClosed: UInt64 {
        server.metrics.counter("openrealm_slow_connections_closed_total", labels: "{reason=\"drain_timeout\"}")
            + server.metrics.counter("openrealm_slow_connections_closed_total", labels: "{reason=\"queue_full\"}")
    }

    func testAClientThatTogglesASubscriptionAndNeverReadsIsClosed() throws {
        let (writer, _) = try boundClient()
        // 14 objects of 256 KiB: a view of 3.5 MiB, under the bound.
        try upload(writer, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 2, (1...14).map { Self.bigTask($0) })
        let (reader, _) = try boundClient()
        // Subscribes, unsubscribes, subscribes ... and never reads an answer.
        for version in 1...40 {
            try reader.send(.query(WireQuery(session: 1, queryVersion: UInt64(version),
                                             queries: [WireClassQuery(className: "Task", query: version % 2 == 1 ? "TRUEPREDICATE" : "FALSEPREDICATE")])))
        }
        try waitUntil("the server closes the client that does not read") { slowClosed >= 1 }
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_outbound_queue_peak_bytes"), Int64(bound))
        // The connection is gone (pings did not keep it), and its queue with it.
        try waitUntil("only the writer's connection is open") { server.metrics.gauge("openrealm_connections_open") == 1 }
        try waitUntil("its queue is released") { server.metrics.gauge("openrealm_outbound_queued_bytes") == 0 }
        withExtendedLifetime(reader) {}
        // The app still serves the others.
        try upload(writer, clientVersion: 3, [Self.task(100, title: "after", status: "open")])
    }

    func testFanOutToAClientThatNeverReadsDoesNotHoldTheWriter() throws {
        let (writer, _) = try boundClient()
        try upload(writer, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(writer)
        let (reader, _) = try boundClient()
        _ = try subscribeToAllTasks(reader)
        // From now on `reader` reads nothing; each upload fans 256 KiB out to it. Every
        // upload is acknowledged: 40 of them (10 MiB) are more than its queue and the
        // socket's buffers hold.
        for i in 0..<40 {
            try upload(writer, clientVersion: UInt64(2 + i), [Self.bigTask(Int64(10 + i))])
        }
        try waitUntil("the server closes the client that does not read") { slowClosed >= 1 }
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_outbound_queue_peak_bytes"), Int64(bound))
        try waitUntil("only the writer's connection is open") { server.metrics.gauge("openrealm_connections_open") == 1 }
        try waitUntil("its queue is released") { server.metrics.gauge("openrealm_outbound_queued_bytes") == 0 }
        withExtendedLifetime(reader) {}
    }

    func testAClientThatReadsSlowlyButSteadilyIsKept() throws {
        let (writer, _) = try boundClient()
        try upload(writer, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 2, (1...14).map { Self.bigTask($0) })
        let (reader, _) = try boundClient()
        // Five toggles in a row over a 3.5 MiB view: more than the bound in all, taken as
        // the client reads them.
        for version in 1...5 {
            try reader.send(.query(WireQuery(session: 1, queryVersion: UInt64(version),
                                             queries: [WireClassQuery(className: "Task", query: version % 2 == 1 ? "TRUEPREDICATE" : "FALSEPREDICATE")])))
        }
        _ = try reader.waitFor("query version 5's last batch", timeout: 30) { message -> Bool? in
            if case .download(let d) = message, d.queryVersion == 5, d.bootstrap == .lastBatch { return true }
            if case .error(let e) = message { XCTFail("\(e.message)"); return false }
            return nil
        }
        XCTAssertEqual(slowClosed, 0)
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_outbound_queue_peak_bytes"), Int64(bound))
    }
}
