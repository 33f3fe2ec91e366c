import Foundation
import Synchronization

/// Polls the server's `GET /health` every 250 ms on a thread of its own and records
/// every poll that did not answer 200 within `timeout` seconds.
final class HealthMonitor: Sendable {
    private struct State {
        var polls = 0
        var failures: [String] = []
        var slowestSeconds = 0.0
        var stopped = false
    }
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    init(port: Int, timeout: TimeInterval) {
        Thread.detachNewThread { [self] in
            let http = LoopbackHTTP(port: port)
            while !state.withLock({ $0.stopped }) {
                let started = Date()
                var failure: String?
                do {
                    let reply = try http.request("GET", "/health", timeout: timeout, code: .health)
                    if reply.status != 200 { failure = "HTTP \(reply.status)" }
                } catch {
                    failure = "\(error)"
                }
                let took = Date().timeIntervalSince(started)
                state.withLock {
                    $0.polls += 1
                    $0.slowestSeconds = max($0.slowestSeconds, took)
                    if let failure { $0.failures.append(failure) }
                }
                usleep(250_000)
            }
            finished.signal()
        }
    }

    /// Stops polling and returns the figures.
    func stop() -> (polls: Int, failures: [String], slowestSeconds: Double) {
        state.withLock { $0.stopped = true }
        finished.wait()
        return state.withLock { ($0.polls, $0.failures, $0.slowestSeconds) }
    }
}
