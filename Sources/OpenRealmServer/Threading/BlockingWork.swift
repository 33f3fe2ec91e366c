import Foundation

/// Runs blocking work — store transactions (LMDB commits wait for the disk), password
/// hashing — on threads of its own rather than on Swift's cooperative pool, whose few
/// threads (one per core) must stay free for the network and other tasks.
///
/// ```swift
/// let user = try await BlockingWork.run { try auth.login(appId: id, email: e, password: p) }
/// ```
enum BlockingWork {
    /// The queue blocking work runs on (Dispatch's threads, not the cooperative pool).
    private static let queue = DispatchQueue(label: "openrealm-server.blocking", qos: .userInitiated, attributes: .concurrent)

    /// Runs `body` on a blocking-work thread and returns its result (or rethrows its error).
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// Runs `body`, which cannot fail, on a blocking-work thread.
    static func run(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                body()
                continuation.resume()
            }
        }
    }
}
