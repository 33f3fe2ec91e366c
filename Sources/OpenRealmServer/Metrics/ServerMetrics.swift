import Foundation
import OpenRealmWire

/// The server's own counters, served at `GET /metrics` in the Prometheus text
/// exposition format (version 0.0.4). Counters only go up; gauges are read when
/// scraped. Thread-safe.
///
/// | metric | type | what |
/// |---|---|---|
/// | `openrealm_connections_total` | counter | sync WebSocket connections accepted |
/// | `openrealm_connections_open` | gauge | sync connections open now |
/// | `openrealm_sessions_total` | counter | sessions bound (an `ident` sent) |
/// | `openrealm_sessions_active` | gauge | sessions bound now |
/// | `openrealm_uploads_total` | counter | upload messages handled |
/// | `openrealm_changesets_integrated_total` | counter | uploaded changesets integrated |
/// | `openrealm_downloads_total` | counter | download messages sent |
/// | `openrealm_errors_total` | counter | error messages sent, by `fatal` |
/// | `openrealm_received_bytes_total` | counter | sync frame bytes received |
/// | `openrealm_sent_bytes_total` | counter | sync frame bytes sent |
/// | `openrealm_http_requests_total` | counter | auth and health requests, by route group |
/// | `openrealm_password_checks_total` | counter | password hashes verified by email/password logins (one per login, registered email or not) |
/// | `openrealm_inbound_queued_bytes` | gauge | decoded bytes of frames read and not handled yet, all connections |
/// | `openrealm_inbound_queue_peak_bytes` | gauge | the most one connection's inbound queue held |
/// | `openrealm_outbound_queued_bytes` | gauge | encoded bytes waiting to be written, all connections |
/// | `openrealm_outbound_queue_peak_bytes` | gauge | the most one connection's outbound queue held |
/// | `openrealm_slow_connections_closed_total` | counter | sync connections closed for not reading, by `reason` |
/// | `openrealm_query_budget_waits_total` | counter | query messages that waited for their connection's query budget |
public final class ServerMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var counters: [String: UInt64] = [:]
    private var gauges: [String: Int64] = [:]

    public init() {}

    /// The metrics' descriptions, in exposition order.
    static let catalog: [(name: String, type: String, help: String)] = [
        ("openrealm_connections_total", "counter", "Sync WebSocket connections accepted."),
        ("openrealm_connections_open", "gauge", "Sync connections open now."),
        ("openrealm_sessions_total", "counter", "Sync sessions bound."),
        ("openrealm_sessions_active", "gauge", "Sync sessions bound now."),
        ("openrealm_uploads_total", "counter", "Upload messages handled."),
        ("openrealm_changesets_integrated_total", "counter", "Uploaded changesets integrated."),
        ("openrealm_downloads_total", "counter", "Download messages sent."),
        ("openrealm_errors_total", "counter", "Error messages sent to clients."),
        ("openrealm_received_bytes_total", "counter", "Sync frame bytes received."),
        ("openrealm_sent_bytes_total", "counter", "Sync frame bytes sent."),
        ("openrealm_http_requests_total", "counter", "HTTP requests to the auth and health routes."),
        ("openrealm_password_checks_total", "counter", "Password hashes verified by email/password logins."),
        ("openrealm_inbound_queued_bytes", "gauge", "Decoded bytes of sync frames read and not handled yet."),
        ("openrealm_inbound_queue_peak_bytes", "gauge", "The most decoded bytes one connection's inbound queue held."),
        ("openrealm_outbound_queued_bytes", "gauge", "Encoded bytes of sync frames waiting to be written."),
        ("openrealm_outbound_queue_peak_bytes", "gauge", "The most encoded bytes one connection's outbound queue held."),
        ("openrealm_slow_connections_closed_total", "counter", "Sync connections closed because they did not read what the server sent."),
        ("openrealm_query_budget_waits_total", "counter", "Query messages that waited for their connection's query budget."),
    ]

    /// Adds `amount` to counter `name` (with its label set, e.g. `{fatal="true"}`).
    func increment(_ name: String, labels: String = "", by amount: UInt64 = 1) {
        lock.lock()
        counters[name + labels, default: 0] &+= amount
        lock.unlock()
    }

    /// Moves gauge `name` by `delta`.
    func adjust(_ name: String, by delta: Int64) {
        lock.lock()
        gauges[name, default: 0] += delta
        lock.unlock()
    }

    /// Raises gauge `name` to `value` when it is lower (a high-water mark).
    func raise(_ name: String, to value: Int64) {
        lock.lock()
        if gauges[name, default: 0] < value { gauges[name] = value }
        lock.unlock()
    }

    /// The value of a counter (with its labels), for tests.
    func counter(_ name: String, labels: String = "") -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return counters[name + labels] ?? 0
    }

    /// The value of a gauge, for tests.
    func gauge(_ name: String) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        return gauges[name] ?? 0
    }

    /// What the counters need to know of a frame sent: whether it is a download or an
    /// error (and a fatal one). A queued frame keeps this instead of its message, whose
    /// decoded values would take more memory than the frame the queue's bound counts.
    enum SentFrame: Sendable {
        case download
        case error(fatal: Bool)
        case other

        init(_ message: WireMessage) {
            switch message {
            case .download: self = .download
            case .error(let e): self = .error(fatal: e.isFatal)
            default: self = .other
            }
        }
    }

    /// Counts what a connection sends: downloads, errors and bytes.
    func sent(_ frame: SentFrame, bytes: Int) {
        increment("openrealm_sent_bytes_total", by: UInt64(bytes))
        switch frame {
        case .download: increment("openrealm_downloads_total")
        case .error(let fatal): increment("openrealm_errors_total", labels: "{fatal=\"\(fatal)\"}")
        case .other: break
        }
    }

    /// The exposition text: `# HELP`, `# TYPE`, then each sample (a metric never
    /// touched reads 0).
    public func exposition() -> String {
        lock.lock()
        let counters = self.counters
        let gauges = self.gauges
        lock.unlock()
        var out = ""
        for (name, type, help) in Self.catalog {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            if type == "gauge" {
                out += "\(name) \(gauges[name] ?? 0)\n"
                continue
            }
            let samples = counters.filter { $0.key == name || $0.key.hasPrefix(name + "{") }.sorted { $0.key < $1.key }
            if samples.isEmpty { out += "\(name) 0\n" }
            for (key, value) in samples { out += "\(key) \(value)\n" }
        }
        return out
    }
}
