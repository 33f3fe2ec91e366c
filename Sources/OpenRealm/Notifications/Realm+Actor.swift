import Foundation
import ORCore

/// Identifies an asynchronous write of `writeAsync` (for `cancelAsyncWrite`).
public typealias AsyncTransactionId = UInt32

extension Realm {
    /// Opens a realm isolated to `actor` (`MainActor.shared`, a custom global actor's
    /// `shared`, or any actor instance):
    ///
    /// ```swift
    /// @MainActor
    /// func open() async throws -> Realm {
    ///     try await Realm(configuration: config, actor: MainActor.shared)
    /// }
    /// ```
    ///
    /// The realm, and everything read from it, must be used only on that actor. It
    /// moves to the latest version on the actor when other threads or processes
    /// commit (unless `autorefresh` is off), delivers its notifications there, and
    /// supports `asyncWrite`.
    ///
    /// - Throws: what `init(configuration:)` throws; `CancellationError` when the task
    ///   was cancelled.
    public convenience init<A: Actor>(configuration: Realm.Configuration = .defaultConfiguration, actor: A,
                                      downloadBeforeOpen: OpenBehavior = .never) async throws {
        try await configuration.sync?.prepareOpen(configuration, behavior: downloadBeforeOpen)
        try Task.checkCancellation()
        let coordinator = try Realm.openCoordinator(configuration)
        self.init(coordinator: coordinator, configuration: configuration, scheduler: .actor(actor))
    }

    /// Opens a realm isolated to the calling actor, as `init(configuration:actor:)` does
    /// with that actor: `let realm = try await Realm.open(configuration: config)` inside
    /// an actor (or a function isolated to one, the main actor included).
    ///
    /// - Throws: what `init(configuration:)` throws; `CancellationError` when the task
    ///   was cancelled.
    public static func open(configuration: Realm.Configuration = .defaultConfiguration,
                            _isolation actor: isolated any Actor = #isolation,
                            downloadBeforeOpen: OpenBehavior = .never) async throws -> Realm {
        try await Realm(configuration: configuration, actor: actor, downloadBeforeOpen: downloadBeforeOpen)
    }

    /// The actor this realm is isolated to, nil for thread-confined realms.
    var isolatedActor: (any Actor)? { state.scheduler?.actor }

    /// Runs `block` in a write transaction and commits it, waiting for other
    /// asynchronous writers of this process without blocking the actor. Before the
    /// write the realm moves to the latest version and delivers its notifications.
    /// If the block throws, nothing is committed and the error is rethrown.
    ///
    /// ```swift
    /// try await realm.asyncWrite { realm.add(Task(value: ["name": "Write docs"])) }
    /// ```
    ///
    /// Only main-thread and actor-isolated realms can write this way: on a realm
    /// confined to a thread or to a dispatch queue (`Realm(configuration:queue:)`), as
    /// on a frozen one, the program stops with a precondition message, as the SDK's
    /// does. Use `write` or `writeAsync` there.
    ///
    /// - Throws: `.wrongTransactionState` when the realm is isolated to another actor
    ///   (or is the main thread's, called from another actor than the main one) or is
    ///   already in a write; `CancellationError`; what the block or the commit throws.
    @discardableResult
    public func asyncWrite<Result>(_isolation actor: isolated any Actor = #isolation, _ block: () throws -> Result) async throws -> Result {
        requireActorOrMainThread("asyncWrite()")
        try checkIsolation(actor, "asyncWrite")
        guard !isInWriteTransaction else {
            throw RealmError(.wrongTransactionState, "asyncWrite cannot begin: the realm is already in a write transaction.")
        }
        let gate = _coordinator.asyncWriteGate
        await gate.acquire()
        defer { gate.release() }
        try Task.checkCancellation()
        return try write(block)
    }

    /// Moves the realm to the latest version and delivers its notifications (the
    /// form of `refresh()` for actor-isolated realms). Returns whether the version changed.
    ///
    /// Only main-thread and actor-isolated realms refresh this way: on a realm confined
    /// to a thread or to a dispatch queue, as on a frozen one, the program stops with a
    /// precondition message, as the SDK's does. Use `refresh()` there.
    @discardableResult
    public func asyncRefresh(_isolation actor: isolated any Actor = #isolation) async -> Bool {
        requireActorOrMainThread("asyncRefresh()")
        return refresh()
    }

    /// Stops the program unless the realm has an actor to suspend on: its own, or the
    /// main actor for the main thread's realms. The SDK stops there too (its realms of
    /// other threads and of dispatch queues have no actor), with this message.
    private func requireActorOrMainThread(_ call: String) {
        if isolatedActor != nil { return }
        if case .main? = state.scheduler { return }
        preconditionFailure("\(call) can only be called on main thread or actor-isolated Realms")
    }

    /// Throws unless the realm belongs to `actor` (or to the main thread, with `actor`
    /// the main actor). Called after `requireActorOrMainThread`.
    private func checkIsolation(_ actor: any Actor, _ call: String) throws(RealmError) {
        if let own = isolatedActor {
            guard ObjectIdentifier(own) == ObjectIdentifier(actor) else {
                throw RealmError(.wrongTransactionState, "\(call) was called on another actor than the one the realm is isolated to.")
            }
            return
        }
        // Left: a main-thread realm (`requireActorOrMainThread` stopped on the others).
        guard ObjectIdentifier(actor) == ObjectIdentifier(MainActor.shared) else {
            throw RealmError(.wrongTransactionState, "\(call) was called on another actor than the main actor, to which the main thread's realm belongs.")
        }
    }

    /// Runs `block` in a write transaction later, where the realm lives (its actor,
    /// the main queue for the main thread's realms, its notification queue), commits it,
    /// and calls `onComplete` with nil or the error. Writes run in the order given. On
    /// a thread without a scheduler, the write runs at once, before this returns.
    ///
    /// - Returns: an identifier for `cancelAsyncWrite(_:)`.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        precondition(!isFrozen, "Cannot write to a frozen realm.")
        let id = state.nextAsyncWriteId()
        let job = PendingAsyncWrite(id: id, realm: self, block: block, onComplete: onComplete)
        enqueue(job)
        return id
    }

    /// Cancels an asynchronous write that has not started. Does nothing for one that
    /// already ran.
    ///
    /// - Throws: `.invalidArgument` for an identifier this realm never returned.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        guard asyncTransactionId > 0, asyncTransactionId <= state.lastAsyncWriteId else {
            throw RealmError(.invalidArgument, "No asynchronous write has the identifier \(asyncTransactionId).")
        }
        state.pendingAsyncWrites.removeAll { $0.id == asyncTransactionId }
    }

    /// Begins a write transaction later, where the realm lives (as `writeAsync` runs
    /// its writes, in the same queue of writes), and calls `asyncWriteBlock` inside it.
    /// The block ends the transaction with `commitAsyncWrite(_:)`, `commitWrite()` or
    /// `cancelWrite()`, there or later; until then the realm stays in the write.
    ///
    /// ```swift
    /// realm.beginAsyncWrite {
    ///     realm.add(Task(value: ["taskName": "Write docs"]))
    ///     realm.commitAsyncWrite { error in if let error { print("not saved: \(error)") } }
    /// }
    /// ```
    ///
    /// - Returns: an identifier for `cancelAsyncWrite(_:)` while the write waits.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        precondition(!isFrozen, "Cannot write to a frozen realm.")
        let id = state.nextAsyncWriteId()
        let job = PendingAsyncWrite(id: id, realm: self, block: asyncWriteBlock, onComplete: nil, leavesWriteOpen: true)
        enqueue(job)
        return id
    }

    /// Commits the current write transaction and calls `onComplete` with nil or the
    /// error afterwards, where the realm lives (at once on a thread without a
    /// scheduler). Writes waiting in `writeAsync` and `beginAsyncWrite` run next.
    /// `allowGrouping` is accepted for compatibility: each commit is durable on its own.
    ///
    /// A programmer error (stopped with a precondition message) outside a write.
    ///
    /// - Returns: an identifier of the commit.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        precondition(isInWriteTransaction, "Cannot commit: the realm is not in a write transaction. Call commitAsyncWrite inside beginAsyncWrite's block or after beginWrite().")
        let id = state.nextAsyncWriteId()
        var failure: Swift.Error?
        do { try commitWrite() } catch { failure = error }
        guard let scheduler = state.scheduler else {
            onComplete?(failure)
            return id
        }
        nonisolated(unsafe) let onComplete = onComplete
        nonisolated(unsafe) let failureBox = failure
        let box = UncheckedBox(state)
        scheduler.schedule {
            onComplete?(failureBox)
            box.value.runPendingAsyncWrites()
        }
        return id
    }

    /// Runs `job` where the realm lives, after the writes already waiting; at once on a
    /// thread without a scheduler.
    private func enqueue(_ job: PendingAsyncWrite) {
        guard let scheduler = state.scheduler else { return job.run() }
        state.pendingAsyncWrites.append(job)
        let box = UncheckedBox(state)
        scheduler.schedule { box.value.runPendingAsyncWrites() }
    }

    /// Whether asynchronous writes (`writeAsync`) are waiting to run.
    public var isPerformingAsynchronousWriteOperations: Bool { !state.pendingAsyncWrites.isEmpty }
}

/// A `writeAsync` call waiting to run.
final class PendingAsyncWrite {
    let id: AsyncTransactionId
    let realm: Realm
    let block: () -> Void
    let onComplete: ((Swift.Error?) -> Void)?
    /// `beginAsyncWrite`: the block gets the open transaction and ends it itself.
    let leavesWriteOpen: Bool

    init(id: AsyncTransactionId, realm: Realm, block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)?,
         leavesWriteOpen: Bool = false) {
        self.id = id
        self.realm = realm
        self.block = block
        self.onComplete = onComplete
        self.leavesWriteOpen = leavesWriteOpen
    }

    func run() {
        if leavesWriteOpen {
            realm.beginWrite()
            block()
            return
        }
        do {
            try realm.write(block)
            onComplete?(nil)
        } catch {
            onComplete?(error)
        }
    }
}

extension RealmState {
    /// Runs the waiting `writeAsync` writes, oldest first.
    func runPendingAsyncWrites() {
        while writeTxn == nil, !pendingAsyncWrites.isEmpty {
            pendingAsyncWrites.removeFirst().run()
        }
    }

    func nextAsyncWriteId() -> AsyncTransactionId {
        lastAsyncWriteId += 1
        return lastAsyncWriteId
    }
}

/// Lets `asyncWrite` calls of one file wait their turn without blocking their actors:
/// first come, first served.
final class AsyncWriteGate: @unchecked Sendable {
    private let lock = NSLock()
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if busy {
                waiters.append(continuation)
                lock.unlock()
            } else {
                busy = true
                lock.unlock()
                continuation.resume()
            }
        }
    }

    func release() {
        lock.lock()
        if waiters.isEmpty {
            busy = false
            lock.unlock()
        } else {
            let next = waiters.removeFirst()
            lock.unlock()
            next.resume()
        }
    }
}
