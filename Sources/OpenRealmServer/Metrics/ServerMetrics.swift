import Foundation
import CoreMetrics
import Prometheus
import Synchronization
import OpenRealmWire

/// The server's metrics, served at `GET /metrics` in the Prometheus text exposition
/// format (version 0.0.4).
///
/// Each metric is a swift-metrics object (`Counter`, `Meter`, `Timer`, `Recorder`) whose
/// handler lives on this server's own ``registry``, never on the process-wide
/// `MetricsSystem`: several servers in one process (tests, an app embedding two) each
/// count their own traffic, and nothing here needs `MetricsSystem.bootstrap`. The
/// counters and gauges below also keep their value here, so that ``counter(_:labels:)``
/// and ``gauge(_:)`` can read them back. Thread-safe; recording a counter takes no lock.
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
/// | `openrealm_http_requests_total` | counter | HTTP requests, by `route` group |
/// | `openrealm_password_checks_total` | counter | password hashes verified by email/password logins (one per login, registered email or not) |
/// | `openrealm_inbound_queued_bytes` | gauge | decoded bytes of frames read and not handled yet, all connections |
/// | `openrealm_inbound_queue_peak_bytes` | gauge | the most one connection's inbound queue held |
/// | `openrealm_outbound_queued_bytes` | gauge | encoded bytes waiting to be written, all connections |
/// | `openrealm_outbound_queue_peak_bytes` | gauge | the most one connection's outbound queue held |
/// | `openrealm_slow_connections_closed_total` | counter | sync connections closed for not reading, by `reason` |
/// | `openrealm_query_budget_waits_total` | counter | query messages that waited for their connection's query budget |
/// | `openrealm_query_jobs_running` | gauge | query evaluations running now (``SyncServer/queryWork``) |
/// | `openrealm_query_jobs_queued` | gauge | query evaluations waiting for a place |
/// | `openrealm_query_jobs_running_peak` | gauge | the most query evaluations that ran at once |
///
/// The histograms of the sync work are in ServerMetrics+SyncWork.swift, the HTTP
/// requests' in ``RequestMetricsMiddleware``, the process's in ``ProcessMetrics``;
/// docs/SERVER.md ("Metrics") lists them all.
public final class ServerMetrics: Sendable {
    /// The registry every metric of this server is made on. An application embedding
    /// the server may make its own metrics on it (they are then served at `/metrics`
    /// too), or bootstrap `MetricsSystem` with `PrometheusMetricsFactory(registry:)`.
    public let registry: PrometheusCollectorRegistry
    /// The counters and gauges by name and label text (`openrealm_errors_total{fatal="true"}`),
    /// made once at init: recording looks one up without a lock.
    private let counters: [String: CounterCell]
    private let gauges: [String: GaugeCell]
    /// The histograms of the sync work (integration, commit, fan-out, bootstrap).
    let syncWork: SyncWorkHistograms
    /// The HTTP requests' durations, by route group and status.
    let requests: RequestHistograms
    /// The process's resident memory, CPU time, file descriptors and start time.
    private let process: ProcessMetrics?
    /// Serializes scrapes: each refreshes the process metrics, then emits.
    private let scrape = Mutex<Void>(())

    /// Makes every metric on a new registry of its own.
    public init() {
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        self.registry = registry
        var counters: [String: CounterCell] = [:]
        var gauges: [String: GaugeCell] = [:]
        for metric in Self.catalog {
            let descriptor = MetricNameDescriptor.openRealm(metric.name, metric.help)
            for labels in metric.labelSets {
                let key = metric.name + Self.labelText(labels)
                switch metric.kind {
                case .counter:
                    let handler = registry.makeCounter(descriptor: descriptor, labels: labels)
                    counters[key] = CounterCell(CoreMetrics.Counter(label: metric.name, dimensions: labels, handler: handler, factory: factory))
                case .gauge:
                    let handler = registry.makeGauge(descriptor: descriptor, labels: labels)
                    gauges[key] = GaugeCell(CoreMetrics.Meter(label: metric.name, dimensions: labels, handler: handler, factory: factory))
                }
            }
        }
        self.counters = counters
        self.gauges = gauges
        syncWork = SyncWorkHistograms(registry: registry, factory: factory)
        requests = RequestHistograms(registry: registry, factory: factory)
        process = ProcessMetrics(registry: registry)
    }

    /// A counter or a gauge of the catalog.
    struct Description {
        enum Kind { case counter, gauge }
        let name: String
        let kind: Kind
        let help: String
        /// The label sets it is exposed with: one empty set for an unlabeled metric; for
        /// a labeled one every value its label takes, so each reads 0 before it is used.
        let labelSets: [[(String, String)]]

        static func counter(_ name: String, _ help: String, label: String? = nil, values: [String] = []) -> Description {
            Description(name: name, kind: .counter, help: help, labelSets: label.map { l in values.map { [(l, $0)] } } ?? [[]])
        }

        static func gauge(_ name: String, _ help: String) -> Description {
            Description(name: name, kind: .gauge, help: help, labelSets: [[]])
        }
    }

    /// The counters and gauges, with their help text.
    static let catalog: [Description] = [
        .counter("openrealm_connections_total", "Sync WebSocket connections accepted."),
        .gauge("openrealm_connections_open", "Sync connections open now."),
        .counter("openrealm_sessions_total", "Sync sessions bound."),
        .gauge("openrealm_sessions_active", "Sync sessions bound now."),
        .counter("openrealm_uploads_total", "Upload messages handled."),
        .counter("openrealm_changesets_integrated_total", "Uploaded changesets integrated."),
        .counter("openrealm_downloads_total", "Download messages sent."),
        .counter("openrealm_errors_total", "Error messages sent to clients.", label: "fatal", values: ["false", "true"]),
        .counter("openrealm_received_bytes_total", "Sync frame bytes received."),
        .counter("openrealm_sent_bytes_total", "Sync frame bytes sent."),
        .counter("openrealm_http_requests_total", "HTTP requests, by route group.",
                 label: "route", values: RouteGroup.names),
        .counter("openrealm_password_checks_total", "Password hashes verified by email/password logins."),
        .gauge("openrealm_inbound_queued_bytes", "Decoded bytes of sync frames read and not handled yet."),
        .gauge("openrealm_inbound_queue_peak_bytes", "The most decoded bytes one connection's inbound queue held."),
        .gauge("openrealm_outbound_queued_bytes", "Encoded bytes of sync frames waiting to be written."),
        .gauge("openrealm_outbound_queue_peak_bytes", "The most encoded bytes one connection's outbound queue held."),
        .counter("openrealm_slow_connections_closed_total", "Sync connections closed because they did not read what the server sent.",
                 label: "reason", values: ["drain_timeout", "queue_full"]),
        .counter("openrealm_query_budget_waits_total", "Query messages that waited for their connection's query budget."),
        .gauge("openrealm_query_jobs_running", "Query evaluations (views, bootstraps) running now."),
        .gauge("openrealm_query_jobs_queued", "Query evaluations waiting for a place (--sync-query-concurrency)."),
        .gauge("openrealm_query_jobs_running_peak", "The most query evaluations that ran at once."),
    ]

    /// `{name="value"}`, as the exposition writes a label set (empty for none).
    static func labelText(_ labels: [(String, String)]) -> String {
        labels.isEmpty ? "" : "{" + labels.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ",") + "}"
    }

    /// Adds `amount` to counter `name` with its label set, e.g. `{fatal="true"}` (one of
    /// the catalog's: a name or label value it does not list is a programming error).
    func increment(_ name: String, labels: String = "", by amount: UInt64 = 1) {
        guard let cell = counters[labels.isEmpty ? name : name + labels] else {
            assertionFailure("no counter \(name)\(labels) in ServerMetrics.catalog")
            return
        }
        cell.add(amount)
    }

    /// Moves gauge `name` by `delta`.
    func adjust(_ name: String, by delta: Int64) {
        guard let cell = gauges[name] else {
            assertionFailure("no gauge \(name) in ServerMetrics.catalog")
            return
        }
        cell.update { $0 += delta }
    }

    /// Raises gauge `name` to `value` when it is lower (a high-water mark).
    func raise(_ name: String, to value: Int64) {
        guard let cell = gauges[name] else {
            assertionFailure("no gauge \(name) in ServerMetrics.catalog")
            return
        }
        cell.update { $0 = max($0, value) }
    }

    /// Sets gauge `name` to `value`.
    func set(_ name: String, to value: Int64) {
        guard let cell = gauges[name] else {
            assertionFailure("no gauge \(name) in ServerMetrics.catalog")
            return
        }
        cell.update { $0 = value }
    }

    /// The value of a counter (with its labels), for tests.
    func counter(_ name: String, labels: String = "") -> UInt64 {
        counters[name + labels]?.value ?? 0
    }

    /// The value of a gauge, for tests.
    func gauge(_ name: String) -> Int64 {
        gauges[name]?.value ?? 0
    }

    /// What the counters need to know of a frame sent: whether it is a download or an
    /// error (and a fatal one), and for a fanned-out changeset when it was committed. A
    /// queued frame keeps this instead of its message, whose decoded values would take
    /// more memory than the frame the queue's bound counts.
    struct SentFrame: Sendable {
        enum Kind: Sendable {
            case download
            case error(fatal: Bool)
            case other
        }

        var kind: Kind
        /// When the changeset a fanned-out frame carries was committed.
        var committedAt: ContinuousClock.Instant?

        init(_ message: WireMessage, committedAt: ContinuousClock.Instant? = nil) {
            self.committedAt = committedAt
            switch message {
            case .download: kind = .download
            case .error(let e): kind = .error(fatal: e.isFatal)
            default: kind = .other
            }
        }
    }

    /// Counts what a connection sends: downloads, errors and bytes; and for a fanned-out
    /// changeset, the time from its commit to now (``SyncWorkHistograms/fanOutDelay``).
    func sent(_ frame: SentFrame, bytes: Int) {
        increment("openrealm_sent_bytes_total", by: UInt64(bytes))
        if let committed = frame.committedAt { syncWork.fanOutDelay.record(since: committed) }
        switch frame.kind {
        case .download: increment("openrealm_downloads_total")
        case .error(let fatal): increment("openrealm_errors_total", labels: "{fatal=\"\(fatal)\"}")
        case .other: break
        }
    }

    /// The exposition text: per metric `# HELP`, `# TYPE`, then its samples (a counter
    /// or gauge never touched reads 0). The process metrics are read now.
    public func exposition() -> String {
        scrape.withLock { _ in
            process?.refresh()
            return registry.emitToString()
        }
    }
}

/// A counter's value, kept beside its swift-metrics object for reading back.
private final class CounterCell: Sendable {
    private let count = Atomic<UInt64>(0)
    private let exported: CoreMetrics.Counter

    init(_ exported: CoreMetrics.Counter) {
        self.exported = exported
    }

    var value: UInt64 { count.load(ordering: .relaxed) }

    func add(_ amount: UInt64) {
        count.wrappingAdd(amount, ordering: .relaxed)
        exported.increment(by: Int64(truncatingIfNeeded: amount))
    }
}

/// A gauge's value, kept beside its swift-metrics object. Each change sets the exported
/// value under the lock, so the two never disagree once changes stop.
private final class GaugeCell: Sendable {
    private let state = Mutex<Int64>(0)
    private let exported: CoreMetrics.Meter

    init(_ exported: CoreMetrics.Meter) {
        self.exported = exported
    }

    var value: Int64 { state.withLock { $0 } }

    func update(_ change: (inout Int64) -> Void) {
        state.withLock { value in
            change(&value)
            exported.set(value)
        }
    }
}
