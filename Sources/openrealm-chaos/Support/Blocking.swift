import Foundation
import Synchronization

/// Runs `body` on Swift's concurrency pool and blocks the calling thread until it ends
/// or `timeout` seconds pass, so that the synchronous commands can call async APIs.
///
/// - Throws: what `body` throws, or a ``ChaosFailure`` naming `what` after the timeout.
func blocking<T: Sendable>(_ what: String, timeout: TimeInterval, code: ChaosFailure.Code = .writer,
                           _ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success else {
        task.cancel()
        throw ChaosFailure(code, "\(what) did not finish within \(Int(timeout)) s.")
    }
    return try result.withLock { $0! }.get()
}

/// Writes one line to standard output at once (no buffering), from any thread.
func emit(_ line: String) {
    emitLock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}

private let emitLock = Mutex(())
