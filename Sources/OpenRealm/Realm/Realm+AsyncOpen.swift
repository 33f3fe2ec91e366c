import Foundation
import Synchronization

extension Realm {
    /// Opens the realm confined to a serial dispatch queue: it, and the objects and
    /// results read from it, are used on `queue` (from any of the threads the queue
    /// runs on), and its notifications are delivered there. A nil queue opens the realm
    /// of the calling thread, as `init(configuration:)` does.
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "db")
    /// queue.async {
    ///     let realm = try! Realm(configuration: config, queue: queue)
    ///     token = realm.objects(Task.self).observe { changes in ... }   // delivered on queue
    /// }
    /// ```
    ///
    /// - Throws: what `init(configuration:)` throws.
    public convenience init(configuration: Configuration = .defaultConfiguration, queue: DispatchQueue?) throws {
        let coordinator = try Realm.openCoordinator(configuration)
        if let queue {
            self.init(coordinator: coordinator, configuration: configuration, scheduler: .queue(queue))
        } else {
            self.init(coordinator: coordinator, configuration: configuration, frozen: nil)
        }
    }

    /// Opens a realm in the background and hands it to `callback` on `callbackQueue`.
    /// For a synced configuration the server's data is downloaded first (as
    /// `downloadBeforeOpen: .always` does); a local realm opens at once.
    ///
    /// ```swift
    /// Realm.asyncOpen(configuration: config) { result in
    ///     switch result {
    ///     case .success(let realm): use(realm)
    ///     case .failure(let error): print("could not open: \(error)")
    ///     }
    /// }
    /// ```
    ///
    /// The realm is confined to `callbackQueue` (the main thread for `.main`, which needs
    /// a run loop or `dispatchMain()` to run). After ``AsyncOpenTask/cancel()``
    /// `callback` is not called.
    ///
    /// - Returns: the task, for cancelling it.
    @discardableResult
    public static func asyncOpen(configuration: Realm.Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        nonisolated(unsafe) let callback = callback
        let deliver: @Sendable (Swift.Error?) -> Void = { failure in
            callbackQueue.async {
                guard !task.isCancelled else { return }
                if let failure { return callback(.failure(failure)) }
                callback(Result {
                    try callbackQueue === DispatchQueue.main
                        ? Realm(configuration: configuration) : Realm(configuration: configuration, queue: callbackQueue)
                })
            }
        }
        if let sync = configuration.sync {
            Task {
                do {
                    try await sync.prepareOpen(configuration, behavior: .always)
                    deliver(nil)
                } catch {
                    deliver(error)
                }
            }
        } else {
            deliver(nil)
        }
        return task
    }
}

/// A realm being opened by ``Realm/asyncOpen(configuration:callbackQueue:callback:)``.
public final class AsyncOpenTask: Sendable {
    private let cancelled = Mutex(false)

    init() {}

    /// Stops waiting for the open: its callback will not be called. A download under
    /// way goes on in the realm's sync session.
    public func cancel() {
        cancelled.withLock { $0 = true }
    }

    var isCancelled: Bool { cancelled.withLock { $0 } }
}
