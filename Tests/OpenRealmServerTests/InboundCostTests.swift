import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// What a sync client's frames may cost the server once decoded: compressed bombs are
/// refused before they are decompressed, the inbound queue is charged by decoded bytes,
/// and a connection's queries are paced by its budget without slowing other
/// connections. Bounds are asserted on what the server reads and queues (its counters),
/// never on timing; every wait has a deadline.
final class InboundCostTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncInboundQueueBytes = 4 << 20
        configuration.syncQueryBudgetBytes = 64 << 10
        configuration.syncQueryBytesPerSecond = 4 << 10
    }

    private static func upload(_ clientVersion: UInt64, _ instructions: [WireInstruction]) -> WireMessage {
        .upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: 0,
            timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_000 + clientVersion), instructions: instructions)]))
    }

    /// About a megabyte of text that zstd shrinks 64 to 256 times: 8 KiB of random
    /// letters, repeated.
    private static func compressibleTitle(seed: UInt64) -> String {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        let block = (0..<(8 << 10)).map { _ -> Character in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
        }
        return String(repeating: String(block), count: 129)
    }

    func testACompressedBombIsRefusedBeforeItIsDecoded() throws {
        let (client, _) = try boundClient()
        // 15 MiB of one letter in an upload of a few kilobytes: only a sender that ignores
        // the ratio bound makes such a frame.
        var lax = WireLimits()
        lax.maxCompressionRatio = 1 << 30
        let bomb = try WireEncoder(limits: lax).encode(Self.upload(1, Self.taskSchema + [
            .createObject(className: "Task", primaryKey: .int(1), values: [WirePropertyValue("title", .string(String(repeating: "a", count: 15 << 20)))]),
        ]))
        XCTAssertEqual(bomb[7], 1, "compressed")
        XCTAssertLessThan(bomb.count, 64 << 10)
        try client.sendFrame(bomb)
        let messages = try client.waitForClose(timeout: 10)
        guard case .error(let error)? = messages.last else { return XCTFail("no error before the close: \(messages)") }
        XCTAssertEqual(error.code, .limitsExceeded, error.message)
        XCTAssertTrue(error.message.contains("the compression ratio limit"), error.message)
        XCTAssertTrue(error.isFatal)
        XCTAssertLessThan(server.metrics.gauge("openrealm_inbound_queue_peak_bytes"), 1 << 20, "nothing large was queued")
        XCTAssertEqual(try http.get("/health").status, 200)
    }

    func testTheInboundQueueIsChargedByDecodedSize() throws {
        let (client, _) = try boundClient()
        try upload(client, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(client)
        var messages: [WireMessage] = []
        for i in 0..<12 {
            let title = WirePropertyValue("title", .string(Self.compressibleTitle(seed: UInt64(i))))
            let create = WireInstruction.createObject(className: "Task", primaryKey: .int(Int64(100 + i)), values: [title])
            messages.append(Self.upload(UInt64(2 + i), [create]))
        }
        let frames = try messages.map { try WireEncoder().encode($0) }
        let decoded = try messages.map { try WireEncoder(limits: WireLimits(compressionThreshold: .max)).encode($0).count }
        for (frame, size) in zip(frames, decoded) {
            XCTAssertEqual(frame[7], 1, "compressed")
            XCTAssertLessThanOrEqual(frame.count * 64, size, "at least 64 times smaller on the wire")
        }
        // The app is busy: the first upload waits in the handler, the others queue up.
        let release = try holdAppLock()
        defer { release() }
        let readBefore = server.metrics.counter("openrealm_received_bytes_total")
        for frame in frames { try client.sendFrame(frame) }
        let bound = 4 << 20
        let fit = bound / decoded.max()!   // frames of their decoded size that fit in the queue
        XCTAssertEqual(fit, 3)
        try waitUntil("the inbound queue is full") {
            server.metrics.gauge("openrealm_inbound_queue_peak_bytes") >= Int64(fit * decoded.min()!)
        }
        XCTAssertLessThanOrEqual(server.metrics.gauge("openrealm_inbound_queue_peak_bytes"), Int64(bound))
        // Read so far: the frame being handled, those queued, and the one waiting for room
        // (charged by wire size, all twelve would have been read and decoded: 12 MiB).
        let read = Int(server.metrics.counter("openrealm_received_bytes_total") - readBefore)
        XCTAssertLessThanOrEqual(read, (fit + 2) * frames.map { $0.count }.max()!)
        release()
        _ = try client.waitFor("the last upload's acknowledgement", timeout: 30) { message -> Bool? in
            if case .download(let d) = message, d.progress.lastIntegratedClientVersion >= 13 { return true }
            if case .error(let e) = message { XCTFail("refused: \(e.message)"); return false }
            return nil
        }
        try waitUntil("the inbound queue is empty") { server.metrics.gauge("openrealm_inbound_queued_bytes") == 0 }
    }

    func testAConnectionsQueriesArePacedByItsBudgetAndOthersAreNot() throws {
        let (client, _) = try boundClient()
        try upload(client, clientVersion: 1, Self.taskSchema)
        // About 60 kB of query text: the budget (64 KiB, 4 KiB a second) covers one.
        let long = "title == '" + String(repeating: "x", count: 60_000) + "'"
        _ = try query(client, version: 1, ["Task": long]).get()
        XCTAssertEqual(server.metrics.counter("openrealm_query_budget_waits_total"), 0)
        try client.send(.query(WireQuery(session: 1, queryVersion: 2, queries: [WireClassQuery(className: "Task", query: long + " OR score == 1")])))
        try waitUntil("query version 2 waits for the connection's budget") {
            server.metrics.counter("openrealm_query_budget_waits_total") == 1
        }
        // Another connection's query is answered meanwhile.
        let (other, _) = try boundClient()
        _ = try subscribeToAllTasks(other)
        // The budget refills 4 KiB a second: version 2 cannot be answered for about 13 s.
        XCTAssertThrowsError(try client.waitFor("query version 2's answer", timeout: 1) { message -> Bool? in
            if case .download(let d) = message, d.queryVersion == 2 { return true }
            return nil
        })
    }
}
