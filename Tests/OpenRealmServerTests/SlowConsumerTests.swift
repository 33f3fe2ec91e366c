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

    /// A writer that made a view of 14 objects of 256 KiB (3.5 MiB, under the bound),
    /// and a second client bound on the same app that has not subscribed yet.
    private func bigViewWithReader() throws -> (writer: TestSyncClient, reader: TestSyncClient) {
        let (writer, _) = try boundClient()
        try upload(writer, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 2, (1...14).map { Self.bigTask($0) })
        let (reader, _) = try boundClient()
        return (writer, reader)
    }

    /// Sends query versions `versions` on session 1, odd ones subscribing to every Task
    /// and even ones to none, without reading an answer.
    private func toggleSubscription(_ client: TestSyncClient, _ versions: ClosedRange<Int>) throws {
        for version in versions {
            try client.send(.query(WireQuery(session: 1, queryVersion: UInt64(version),
                                             queries: [WireClassQuery(className: "Task", query: version % 2 == 1 ? "TRUEPREDICATE" : "FALSEPREDICATE")])))
        }
    }

    func testAClientThatTogglesASubscriptionAndNeverReadsIsClosed() throws {
        let (writer, reader) = try bigViewWithReader()
        // Subscribes, unsubscribes, subscribes ... and never reads an answer.
        try toggleSubscription(reader, 1...40)
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
        let (writer, reader) = try bigViewWithReader()
        // Five toggles in a row over a 3.5 MiB view: more than the bound in all, taken as
        // the client reads them.
        try toggleSubscription(reader, 1...5)
        _ = try reader.waitFor("query version 5's last batch", timeout: 30) { message -> Bool? in
            if case .download(let d) = message, d.queryVersion == 5, d.bootstrap == .lastBatch { return true }
            if case .error(let e) = message { XCTFail("\(e.message)"); return false }
            return nil
        }
        XCTAssertEqual(slowClosed, 0)
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_outbound_queue_peak_bytes"), Int64(bound))
        withExtendedLifetime(writer) {}
    }
}
