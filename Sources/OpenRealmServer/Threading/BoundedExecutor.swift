import Foundation

/// Runs blocking jobs on Dispatch threads of its own queue, at most ``limit`` at once;
/// the others wait in arrival order as suspended tasks (``AsyncGate``), holding no
/// thread. ``BlockingWork`` is one (32 jobs); a server's query evaluation another
/// (``SyncServer/queryWork``, `--sync-query-concurrency`).
///
/// ```swift
/// let value = try await executor.run { try store.environment.read { ... } }
/// ```
///
/// Without a bound, jobs that block (on the disk, on an app's lock) make Dispatch start
/// a thread for each waiting job, up to its own ceiling, with the memory of each, and
/// Dispatch starts threads for blocked work slowly, so a pile of blocked jobs also holds
/// back the work queued behind them.
///
/// A job must not wait for another job of the same executor that has yet to start (it
/// could wait for a place that only it would free).
///
/// Threading: any thread.
final class BoundedExecutor: @unchecked Sendable {
    /// The most jobs running at once.
    let limit: Int
    private let queue: DispatchQueue
    /// Admits the jobs; its counts are the jobs running and waiting.
    let gate: AsyncGate
    private let hookLock = NSLock()
    private var hook: (@Sendable () -> Void)?

    /// An executor `label`ed (its queue's name) running `limit` jobs at once;
    /// `onChange` hears the jobs running and waiting after every change (with the
    /// gate's lock held: it must be quick).
    init(label: String, limit: Int, onChange: (@Sendable (_ running: Int, _ waiting: Int) -> Void)? = nil) {
        self.limit = max(1, limit)
        queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
        gate = AsyncGate(limit: limit, onChange: onChange)
    }

    /// For tests: called on the job's thread before each job, holding its place (a test
    /// holds the running jobs there to see the others wait).
    var beforeEachJob: (@Sendable () -> Void)? {
        get { hookLock.withLock { hook } }
        set { hookLock.withLock { hook = newValue } }
    }

    /// Runs `body` once a place is free and returns its result (or rethrows its error).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        await gate.enter()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                beforeEachJob?()
                let result = Result { try body() }
                gate.leave()
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `body`, which cannot fail, once a place is free.
    func run(_ body: @escaping @Sendable () -> Void) async {
        await gate.enter()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                beforeEachJob?()
                body()
                gate.leave()
                continuation.resume()
            }
        }
    }
}

extension BoundedExecutor {
    /// A server's executor of query evaluation (a sync connection's `query` messages:
    /// validation, the view, the bootstrap), `limit` at once, reported as
    /// `openrealm_query_jobs_running`, `openrealm_query_jobs_queued` and
    /// `openrealm_query_jobs_running_peak`.
    ///
    /// A query's cost grows with the data it matches, and a client chooses it: apart from
    /// ``BlockingWork``, heavy queries from many connections wait for each other here and
    /// cannot take the threads that logins, binds and uploads run on. A connection
    /// handles one frame at a time, so it has at most one job here, running or waiting;
    /// arrival order is then fair between connections.
    static func queryWork(limit: Int, metrics: ServerMetrics?) -> BoundedExecutor {
        BoundedExecutor(label: "openrealm-server.query", limit: limit) { running, waiting in
            guard let metrics else { return }
            metrics.set("openrealm_query_jobs_running", to: Int64(running))
            metrics.set("openrealm_query_jobs_queued", to: Int64(waiting))
            metrics.raise("openrealm_query_jobs_running_peak", to: Int64(running))
        }
    }

    /// The default query concurrency: the cores, at least 2.
    static var defaultQueryConcurrency: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }
}
