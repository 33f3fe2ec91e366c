import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// `GET /metrics`: the server's metrics in the Prometheus text format.
final class MetricsTests: ServerTestCase {
    /// The samples of the exposition, by name with labels.
    func samples(port: Int? = nil) throws -> [String: Double] {
        try Self.samples(of: exposition(port: port))
    }

    /// The exposition text, checked for status and content type.
    func exposition(port: Int? = nil) throws -> String {
        let reply = try TestHTTP(port: port ?? self.port).get("/metrics")
        XCTAssertEqual(reply.status, 200)
        XCTAssertTrue(reply.head.lowercased().contains("content-type: text/plain; version=0.0.4"), reply.head)
        return reply.body
    }

    static func samples(of text: String) throws -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
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
        XCTAssertEqual(before["openrealm_errors_total{fatal=\"true\"}"], 0, "a labeled counter reads 0 before it is used")
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
        // The facade reads back what it exported.
        XCTAssertEqual(Double(server.metrics.counter("openrealm_changesets_integrated_total")), after["openrealm_changesets_integrated_total"])
        XCTAssertEqual(Double(server.metrics.gauge("openrealm_connections_open")), after["openrealm_connections_open"])
    }

    /// Two clients: one uploads, the other receives the fan-out. Returns once the
    /// receiver has the changeset.
    func syncTraffic() throws {
        let (writer, _) = try boundClient()
        let (reader, _) = try boundClient()
        try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        XCTAssertFalse(try subscribeToAllTasks(reader).isEmpty, "the bootstrap sends the task whole")
        try upload(writer, clientVersion: 2, serverVersion: 2, [.set(object: Self.path(1), property: "title", value: .string("b"))])
        _ = try reader.waitFor("the fanned-out change") { message -> Bool? in
            if case .download(let d) = message, d.changesets.contains(where: { $0.originFileIdent != 0 }) { return true }
            return nil
        }
    }

    func testSyncWorkHistogramsHaveObservations() throws {
        try syncTraffic()
        let after = try samples()
        XCTAssertEqual(after["openrealm_changeset_integration_seconds_count"], 2, "one per changeset integrated")
        XCTAssertGreaterThan(after["openrealm_changeset_integration_seconds_sum"] ?? 0, 0)
        XCTAssertEqual(after["openrealm_commit_seconds_count"], 2, "one per upload transaction")
        XCTAssertGreaterThanOrEqual(after["openrealm_fanout_delay_seconds_count"] ?? 0, 1, "the reader's download")
        XCTAssertEqual(after["openrealm_fanout_delay_seconds_bucket{le=\"+Inf\"}"], after["openrealm_fanout_delay_seconds_count"])
        XCTAssertEqual(after["openrealm_bootstrap_objects_count"], 2, "one per subscription change")
        XCTAssertEqual(after["openrealm_bootstrap_objects_sum"], 1, "the reader's bootstrap sent the task; the writer's none")
        XCTAssertEqual(after["openrealm_bootstrap_objects_bucket{le=\"0.0\"}"], 1, "the writer's bootstrap was empty")
        XCTAssertGreaterThan(after["openrealm_bootstrap_bytes_sum"] ?? 0, 10)
        let logins = try XCTUnwrap(after["openrealm_http_request_duration_seconds_count{route=\"auth\",status=\"200\"}"])
        XCTAssertGreaterThanOrEqual(logins, 2, "two anonymous logins")
        XCTAssertGreaterThanOrEqual(after["openrealm_http_request_duration_seconds_count{route=\"sync\",status=\"200\"}"] ?? 0, 2,
                                    "two accepted WebSocket upgrades")
    }

    func testProcessMetricsAreTheProcesss() throws {
        let now = try samples()
        XCTAssertGreaterThan(now["process_resident_memory_bytes"] ?? 0, Double(1 << 20))
        XCTAssertGreaterThan(now["process_virtual_memory_bytes"] ?? 0, now["process_resident_memory_bytes"] ?? .infinity)
        XCTAssertGreaterThan(now["process_cpu_seconds_total"] ?? 0, 0)
        // The listening socket, the store's files, the lock file at least.
        XCTAssertGreaterThan(now["process_open_fds"] ?? 0, 3)
        XCTAssertGreaterThan(now["process_max_fds"] ?? 0, now["process_open_fds"] ?? .infinity)
        let start = try XCTUnwrap(now["process_start_time_seconds"])
        XCTAssertLessThanOrEqual(start, Date().timeIntervalSince1970)
        XCTAssertGreaterThan(start, Date().timeIntervalSince1970 - 86_400, "this test process started today")
    }

    func testProcStatParsesACommandNameWithSpacesAndParentheses() throws {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 123456 987654321 2048 18446744073709551615"
        let stat = try XCTUnwrap(ProcessMetrics.parseStat(line))
        XCTAssertEqual(stat.userTicks, 250)
        XCTAssertEqual(stat.systemTicks, 50)
        XCTAssertEqual(stat.startTicks, 123_456)
        XCTAssertEqual(stat.virtualBytes, 987_654_321)
        XCTAssertEqual(stat.residentPages, 2048)
        XCTAssertNil(ProcessMetrics.parseStat("4242 (cut"))
    }

    /// Every server has its own registry: tests (and applications) run several in one
    /// process, and none may count another's traffic or crash registering twice.
    func testEachServerCountsOnlyItsOwnTraffic() throws {
        let other = ServerMetrics()
        let (client, _) = try boundClient()
        try subscribeToAllTasks(client)
        XCTAssertEqual(server.metrics.counter("openrealm_sessions_total"), 1)
        XCTAssertEqual(other.counter("openrealm_sessions_total"), 0)
        XCTAssertEqual(try Self.samples(of: other.exposition())["openrealm_sessions_total"], 0)
    }

    /// `promtool check metrics` (Debian's `prometheus` package) accepts the exposition
    /// of a server that has synced: names, types, help, histogram buckets.
    func testPromtoolAcceptsTheExposition() throws {
        guard let promtool = Self.onPath("promtool") else {
            throw XCTSkip("promtool is not on PATH: install Debian's 'prometheus' package (apt-get install prometheus); "
                + "CI needs it in .ci/run")
        }
        try syncTraffic()
        let text = try exposition()
        let process = Process()
        process.executableURL = promtool
        process.arguments = ["check", "metrics"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "promtool check metrics: \(report)\n--- exposition ---\n\(text)")
        XCTAssertEqual(report.trimmingCharacters(in: .whitespacesAndNewlines), "", "promtool's lint findings")
        // What promtool checked holds the histograms, each with observations.
        let samples = try Self.samples(of: text)
        for histogram in ["openrealm_changeset_integration_seconds", "openrealm_commit_seconds", "openrealm_fanout_delay_seconds",
                          "openrealm_bootstrap_objects", "openrealm_bootstrap_bytes"] {
            XCTAssertTrue(text.contains("# TYPE \(histogram) histogram"), histogram)
            XCTAssertGreaterThan(samples["\(histogram)_count"] ?? 0, 0, histogram)
            XCTAssertEqual(samples["\(histogram)_bucket{le=\"+Inf\"}"], samples["\(histogram)_count"], histogram)
        }
        XCTAssertTrue(text.contains("# TYPE openrealm_http_request_duration_seconds histogram"))
    }

    static func onPath(_ name: String) -> URL? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }
}
