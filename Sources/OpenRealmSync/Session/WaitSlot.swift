import Foundation

/// The continuation of one waiting task, resumed exactly once whichever comes first: the
/// answer, a fatal error, or cancellation of the task, in any order relative to the
/// continuation being installed.
///
/// ```swift
/// let slot = WaitSlot()
/// try await withTaskCancellationHandler {
///     try await withCheckedThrowingContinuation { slot.install($0); register(slot.finish) }
/// } onCancel: { slot.finish(CancellationError()) }
/// ```
final class WaitSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Error>?
    /// The outcome, once known: nil error for success.
    private var outcome: Error??

    /// Installs the continuation; resumes it at once when the outcome is already known.
    func install(_ continuation: CheckedContinuation<Void, Error>) {
        let known = lock.withLock { () -> Error?? in
            if let outcome { return outcome }
            self.continuation = continuation
            return nil
        }
        if let known { Self.resume(continuation, known) }
    }

    /// Records the outcome (the first one wins) and resumes the continuation if installed.
    func finish(_ error: Error?) {
        let installed = lock.withLock { () -> CheckedContinuation<Void, Error>? in
            guard outcome == nil else { return nil }
            outcome = .some(error)
            defer { continuation = nil }
            return continuation
        }
        if let installed { Self.resume(installed, error) }
    }

    /// Whether an outcome was recorded.
    var isFinished: Bool { lock.withLock { outcome != nil } }

    private static func resume(_ continuation: CheckedContinuation<Void, Error>, _ error: Error?) {
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    /// Runs `register` with the slot's `finish` and waits for it; cancellation of the
    /// task finishes the wait with `CancellationError`.
    func wait(_ register: @escaping @Sendable (@escaping @Sendable (Error?) -> Void) -> Void) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                install(continuation)
                if !isFinished { register({ [self] in finish($0) }) }
            }
        } onCancel: {
            finish(CancellationError())
        }
    }
}

/// A value shared between threads under a lock.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
