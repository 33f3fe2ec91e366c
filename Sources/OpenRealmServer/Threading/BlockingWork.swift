import Foundation

/// Runs blocking work — store transactions (LMDB commits wait for the disk), password
/// hashing — on threads of its own rather than on Swift's cooperative pool, whose few
/// threads (one per core) must stay free for the network and other tasks.
///
/// ```swift
/// let user = try await BlockingWork.run { try auth.login(appId: id, email: e, password: p) }
/// ```
///
/// At most ``maxConcurrentJobs`` run at once, process-wide (``BoundedExecutor``): a job
/// past them waits in arrival order as a suspended task, holding no thread.
/// Subscription and view evaluation has an executor of its own
/// (``SyncServer/queryWork``), so that heavy queries do not take these places from
/// logins and uploads.
enum BlockingWork {
    /// The most jobs running at once (each on its own thread).
    static let maxConcurrentJobs = 32

    /// The executor (its gate's counts are the jobs running and waiting).
    static let executor = BoundedExecutor(label: "openrealm-server.blocking", limit: maxConcurrentJobs)

    /// Runs `body` on a blocking-work thread and returns its result (or rethrows its error).
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await executor.run(body)
    }

    /// Runs `body`, which cannot fail, on a blocking-work thread.
    static func run(_ body: @escaping @Sendable () -> Void) async {
        await executor.run(body)
    }
}
