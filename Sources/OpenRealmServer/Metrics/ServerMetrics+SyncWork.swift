import CoreMetrics
import Prometheus

/// Histograms of the sync work an operator watches: how long an uploaded changeset takes
/// to integrate and its transaction to commit, how long a committed changeset takes to
/// reach the other clients' sockets, and how large bootstraps are.
///
/// | metric | what one observation is |
/// |---|---|
/// | `openrealm_changeset_integration_seconds` | one uploaded changeset integrated in its write transaction (conflict resolution, permission checks, history, fan-out computed), before the commit |
/// | `openrealm_commit_seconds` | one write transaction of uploads made durable: from the end of its last changeset's integration to the commit's return |
/// | `openrealm_fanout_delay_seconds` | one fanned-out download, from the commit of its changeset to its frame being handed to the recipient's socket (queueing behind a slow reader included) |
/// | `openrealm_bootstrap_objects` | one bootstrap (a subscription change): the objects it sends whole |
/// | `openrealm_bootstrap_bytes` | one bootstrap: the encoded bytes of its instructions |
///
/// Each observation is two clock reads and a short locked update of the histogram's
/// buckets, per changeset, transaction, delivered frame or bootstrap: nothing per
/// instruction.
struct SyncWorkHistograms: Sendable {
    let integration: CoreMetrics.Timer
    let commit: CoreMetrics.Timer
    let fanOutDelay: CoreMetrics.Timer
    let bootstrapObjects: CoreMetrics.Recorder
    let bootstrapBytes: CoreMetrics.Recorder

    /// Durations from 100 µs to 10 s: an integration or a commit of a small changeset is
    /// well under a millisecond, a large group commit or a slow disk takes seconds.
    static let durationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
    /// Object counts from 0 (a bootstrap that only confirms the new query) to a million.
    static let objectBuckets: [Double] = [0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
    /// Byte sizes from 1 KiB to 1 GiB, by powers of 4.
    static let byteBuckets: [Double] = (0...10).map { Double(1 << (10 + 2 * $0)) }

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        func timer(_ name: String, _ help: String) -> CoreMetrics.Timer {
            let handler = registry.makeDurationHistogram(descriptor: .openRealm(name, help), buckets: Self.durationBuckets)
            return CoreMetrics.Timer(label: name, dimensions: [], handler: handler, factory: factory)
        }
        func recorder(_ name: String, _ help: String, _ buckets: [Double]) -> CoreMetrics.Recorder {
            let handler = registry.makeValueHistogram(descriptor: .openRealm(name, help), buckets: buckets)
            return CoreMetrics.Recorder(label: name, dimensions: [], aggregate: true, handler: handler, factory: factory)
        }
        integration = timer("openrealm_changeset_integration_seconds",
                            "Seconds to integrate one uploaded changeset in its write transaction, before the commit.")
        commit = timer("openrealm_commit_seconds", "Seconds to commit one write transaction of integrated uploads.")
        fanOutDelay = timer("openrealm_fanout_delay_seconds",
                            "Seconds from the commit of a changeset to its download being written to another client's socket.")
        bootstrapObjects = recorder("openrealm_bootstrap_objects", "Objects sent whole by one bootstrap.", Self.objectBuckets)
        bootstrapBytes = recorder("openrealm_bootstrap_bytes", "Encoded instruction bytes of one bootstrap.", Self.byteBuckets)
    }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` to now.
    func record(since start: ContinuousClock.Instant) {
        record(start.duration(to: .now))
    }

    /// Records `duration` (a negative one, which a continuous clock never gives, as 0).
    func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(max(0, seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000))
    }
}

extension MetricNameDescriptor {
    /// A descriptor for a metric whose name is complete (`openrealm_..._total`), with its help text.
    static func openRealm(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
