import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// `GET /metrics`: the server's counters in the Prometheus text format.
final class MetricsTests: ServerTestCase {
    /// The samples of the exposition, by name with labels.
    func samples() throws -> [String: Double] {
        let reply = try http.get("/metrics")
        XCTAssertEqual(reply.status, 200)
        XCTAssertTrue(reply.head.lowercased().contains("content-type: text/plain; version=0.0.4"), reply.head)
        var out: [String: Double] = [:]
        for line in reply.body.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            XCTAssertEqual(parts.count, 2, "bad sample line '\(line)'")
            out[String(parts[0])] = Double(parts[1])
        }
        return out
    }

    func testCountersFollowTheSyncTraffic() throws {
        let before = try samples()
        XCTAssertEqual(before["openrealm_sessions_total"], 0)
        XCTAssertEqual(before["openrealm_connections_open"], 0)
        XCTAssertEqual(try http.get("/metrics").body.components(separatedBy: "# TYPE openrealm_uploads_total counter").count, 2)

        let (client, _) = try boundClient()
        try subscribeToAllTasks(client)
        try upload(client, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 2, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
            instructions: [.set(object: Self.path(1), property: "nope", value: .int(1))])])))
        _ = try client.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }

        let after = try samples()
        XCTAssertEqual(after["openrealm_connections_total"], 1)
        XCTAssertEqual(after["openrealm_connections_open"], 1)
        XCTAssertEqual(after["openrealm_sessions_total"], 1)
        XCTAssertEqual(after["openrealm_sessions_active"], 0, "the bad changeset ended the session")
        XCTAssertEqual(after["openrealm_uploads_total"], 2)
        XCTAssertEqual(after["openrealm_changesets_integrated_total"], 1)
        XCTAssertGreaterThanOrEqual(after["openrealm_downloads_total"] ?? 0, 2)
        XCTAssertEqual(after["openrealm_errors_total{fatal=\"true\"}"], 1)
        XCTAssertGreaterThan(after["openrealm_received_bytes_total"] ?? 0, 100)
        XCTAssertGreaterThan(after["openrealm_sent_bytes_total"] ?? 0, 20)
        XCTAssertGreaterThanOrEqual(after["openrealm_http_requests_total{route=\"auth\"}"] ?? 0, 1)
        XCTAssertGreaterThanOrEqual(after["openrealm_http_requests_total{route=\"metrics\"}"] ?? 0, 2)
    }
}
