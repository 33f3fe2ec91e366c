import Foundation
import Synchronization

/// What the simulated clients of a `load` run measured, shared between event loops.
final class LoadStats: Sendable {
    private struct State {
        var latenciesMs: [Double] = []
        var errors: [String: Int] = [:]
        var firstErrors: [String] = []
        var writes = 0
        var expectedDeliveries = 0
        var deliveries = 0
        var subscribed = 0
    }
    private let state = Mutex(State())

    /// Records one delivery of another client's write, `latency` seconds after it was sent.
    func delivered(after latency: Double) {
        state.withLock {
            $0.deliveries += 1
            $0.latenciesMs.append(latency * 1000)
        }
    }

    /// Records a write that `receivers` other clients should get.
    func wrote(receivers: Int) {
        state.withLock {
            $0.writes += 1
            $0.expectedDeliveries += receivers
        }
    }

    /// Records a client whose subscription bootstrap arrived.
    func subscribedOne() { state.withLock { $0.subscribed += 1 } }

    /// Records an error of kind `kind` (a protocol error code, "closed", "login").
    func error(_ kind: String, _ message: String) {
        state.withLock {
            $0.errors[kind, default: 0] += 1
            if $0.firstErrors.count < 5 { $0.firstErrors.append("\(kind): \(message)") }
        }
    }

    var subscribed: Int { state.withLock { $0.subscribed } }
    var writes: Int { state.withLock { $0.writes } }
    var deliveries: Int { state.withLock { $0.deliveries } }
    var expectedDeliveries: Int { state.withLock { $0.expectedDeliveries } }
    var errorCount: Int { state.withLock { $0.errors.values.reduce(0, +) } }
    var errors: [String: Int] { state.withLock { $0.errors } }
    var firstErrors: [String] { state.withLock { $0.firstErrors } }

    /// The latency (ms) below which `fraction` of the deliveries came, or nil without any.
    func latencyPercentile(_ fraction: Double) -> Double? {
        let sorted = state.withLock { $0.latenciesMs }.sorted()
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
