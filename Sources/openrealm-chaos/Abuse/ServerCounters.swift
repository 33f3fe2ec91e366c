import Foundation

/// The server's own counters from `GET /metrics` (Prometheus text): what its limits did
/// during a run, as the server counted it.
struct ServerCounters {
    private var values: [String: Double] = [:]

    /// Reads `/metrics`; empty when it does not answer.
    init(http: LoopbackHTTP) {
        guard let reply = try? http.request("GET", "/metrics", timeout: 10), reply.status == 200 else { return }
        for line in reply.body.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
    }

    /// Whether anything was read.
    var isEmpty: Bool { values.isEmpty }

    /// The value of `name` (with its labels, as `/metrics` writes them), 0 when absent.
    subscript(_ name: String) -> Double { values[name] ?? 0 }

    /// `bytes` in MiB, one decimal.
    static func mebibytes(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
}
