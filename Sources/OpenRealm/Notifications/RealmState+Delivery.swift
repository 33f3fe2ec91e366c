import Foundation
import ORCore

/// How a realm's state moves forward and delivers its notifications.
///
/// Every registration belongs to one `RealmState` and is delivered where that state
/// lives: synchronously when the state refreshes or commits on its thread, and — for
/// states with a scheduler (the main thread's, an actor's, a notification queue's) —
/// also when another thread or process commits, through the scheduler. A delivery
/// computes, per registration, the change from the version it last reported to the
/// state's current snapshot, from the changeset log (`ChangeSummary`).
///
/// Invariants:
///  1. A registration's `version` only grows, and equals the version its last
///     delivery reflected: changes are neither lost nor reported twice.
///  2. Deliveries never nest: a block that refreshes or writes makes the outer loop
///     run again to the newer version instead.
///  3. Nothing is delivered while the state is in a write transaction.
extension RealmState {
    /// Whether any registration (collection, object or realm observer) is live.
    var hasObservers: Bool {
        registrationLock.withLock { !registrationList.isEmpty }
    }

    var activeRegistrations: [NotificationRegistration] {
        registrationLock.withLock { registrationList.filter(\.isActive) }
    }

    func addRegistration(_ registration: NotificationRegistration) {
        registrationLock.withLock { registrationList.append(registration) }
        coordinator?.notifier.track(registration)
    }

    func removeRegistration(_ registration: NotificationRegistration) {
        registrationLock.withLock { registrationList.removeAll { $0 === registration } }
        coordinator?.notifier.untrack(registration)
    }

    /// The version the snapshot reads, starting a snapshot when there is none.
    func currentSnapshot() -> ReadSnapshot? {
        if let snapshot { return snapshot }
        guard let coordinator else { return nil }
        let fresh = ReadSnapshot(coordinator)
        snapshot = fresh
        return fresh
    }

    /// Moves to the latest version and delivers. Returns whether the version changed.
    func refresh() -> Bool {
        guard writeTxn == nil, let coordinator else { return false }
        guard hasObservers else {
            // Nothing to deliver: renew the snapshot in place when nobody shares it.
            guard snapshot != nil else { return false }
            let before = orc_txn_version(snapshot!.txn)
            if !isKnownUniquelyReferenced(&snapshot!) || orc_txn_renew(snapshot!.txn) != ORC_OK {
                snapshot = ReadSnapshot(coordinator)
            }
            return orc_txn_version(snapshot!.txn) != before
        }
        // Keep the old snapshot open while delivering: object notifications read old values.
        let old = snapshot
        let fresh = ReadSnapshot(coordinator)
        let changed = old.map { orc_txn_version($0.txn) != orc_txn_version(fresh.txn) } ?? false
        if old == nil || changed { snapshot = fresh }
        deliverPending(old: old, localCommit: nil, skipping: [])
        return changed
    }

    /// After this state committed `version`: delivers the commit's changes.
    func didCommit(version: UInt64, skipping tokens: [NotificationToken]) {
        guard hasObservers, let coordinator else { return }
        snapshot = ReadSnapshot(coordinator)
        deliverPending(old: nil, localCommit: version, skipping: tokens)
    }

    /// What a scheduler runs when the file changed, or when a registration is new.
    func autoAdvance() {
        guard writeTxn == nil, !isDelivering else { return }
        if autorefresh {
            _ = refresh()
            return
        }
        // Without autorefresh: deliver first notifications at the current version, and
        // tell realm observers that a newer version waits.
        if let current = currentSnapshot() {
            deliverPending(old: nil, localCommit: nil, skipping: [], advancing: false)
            if let coordinator, let latest = coordinator.notifier.latestVersion(),
               latest > orc_txn_version(current.txn), latest > refreshRequiredVersion {
                refreshRequiredVersion = latest
                for case let observer as RealmObserverRegistration in activeRegistrations {
                    observer.deliverRefreshRequired()
                }
            }
        }
    }

    /// Delivers every registration that is behind the current snapshot (or has not had
    /// its first delivery). `old` is the snapshot the state had before, when still open.
    /// With `advancing` false only first deliveries are made.
    func deliverPending(old: ReadSnapshot?, localCommit: UInt64?, skipping tokens: [NotificationToken], advancing: Bool = true) {
        guard !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        let skipped = Set(tokens.map(ObjectIdentifier.init))
        for _ in 0..<64 {
            guard writeTxn == nil, let current = currentSnapshot(), let coordinator else { return }
            let target = orc_txn_version(current.txn)
            let due = activeRegistrations.filter { $0.needsInitial || (advancing && $0.version < target) }
            if due.isEmpty { return }
            var contexts: [UInt64: Result<ChangeContext, ChangeSummary.Failure>] = [:]
            var interrupted = false
            for registration in due {
                // A block that wrote or refreshed moved the snapshot: start over from it.
                guard registration.isActive else { continue }
                guard writeTxn == nil, snapshot === current else { interrupted = true; break }
                if registration.needsInitial {
                    registration.needsInitial = false
                    registration.version = target
                    registration.deliverInitial(txn: current.txn)
                    continue
                }
                let from = registration.version
                guard advancing, from < target else { continue }
                let context: Result<ChangeContext, ChangeSummary.Failure>
                if let made = contexts[from] {
                    context = made
                } else {
                    let oldTxn = old.flatMap { orc_txn_version($0.txn) == from ? $0.txn : nil }
                    context = Result { () throws(ChangeSummary.Failure) -> ChangeContext in
                        let schema = coordinator.storedSchema(current.txn)
                        let summary = try ChangeSummary(txn: current.txn, from: from, to: target, schema: schema)
                        return ChangeContext(summary: summary, txn: current.txn, oldTxn: oldTxn, schema: schema,
                                             isLocalCommit: localCommit == target)
                    }
                    contexts[from] = context
                }
                registration.version = target
                switch context {
                case .success(let context):
                    let isSkipped = registration.token.map { skipped.contains(ObjectIdentifier($0)) } ?? false
                    if isSkipped && localCommit == target && from + 1 == target {
                        registration.rebase(context)
                    } else {
                        registration.deliverChange(context)
                    }
                case .failure(.trimmed):
                    registration.deliverWithoutLog(txn: current.txn)
                case .failure(.unreadable(let error)):
                    registration.deliverError(error)
                }
            }
            if !interrupted && snapshot === current { return }
        }
    }
}

/// Where a state's jobs run when its realm is not on a plain thread.
enum DeliveryScheduler: Sendable {
    /// The main queue (the main thread's realms). Jobs run when the main queue does:
    /// under a run loop, `dispatchMain()`, or main-actor async code.
    case main
    /// A serial dispatch queue (`observe(on:)`).
    case queue(DispatchQueue)
    /// An actor (actor-isolated realms, `observe(on: actor)`).
    case actor(any Actor)

    /// Runs `job` on the scheduler, later.
    func schedule(_ job: @escaping @Sendable () -> Void) {
        switch self {
        case .main: DispatchQueue.main.async(execute: job)
        case .queue(let queue): queue.async(execute: job)
        case .actor(let actor): Task { await DeliveryScheduler.run(on: actor, job) }
        }
    }

    private static func run(on actor: isolated any Actor, _ job: @Sendable () -> Void) {
        job()
    }

    var actor: (any Actor)? {
        if case .actor(let actor) = self { return actor }
        return nil
    }
}

/// What the file's notifier pokes when the file advanced: schedules one
/// `autoAdvance()` of its state at a time on the state's scheduler.
final class StateListener: @unchecked Sendable {
    private weak var state: RealmState?
    let scheduler: DeliveryScheduler
    private let lock = NSLock()
    private var scheduled = false

    init(_ state: RealmState, _ scheduler: DeliveryScheduler) {
        self.state = state
        self.scheduler = scheduler
    }

    var isAlive: Bool { state != nil }

    /// Schedules an advance of the state unless one is already waiting to run.
    func poke() {
        guard state != nil else { return }
        let alreadyScheduled = lock.withLock { () -> Bool in
            if scheduled { return true }
            scheduled = true
            return false
        }
        if alreadyScheduled { return }
        scheduler.schedule { [self] in
            // Cleared first: a commit landing during the advance schedules another one.
            lock.withLock { scheduled = false }
            state?.autoAdvance()
        }
    }
}
