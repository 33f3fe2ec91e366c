import Foundation
import ORCore
import Synchronization

/// A notification block registered on a collection, an object or a realm, and what it
/// last reported. It belongs to one `RealmState` (the realm whose thread, queue or
/// actor delivers it) and is used only there, except for `cancel()` and `version`,
/// which the token and the log-hold keeper read from other threads.
///
/// Subclasses compute their change from a `ChangeContext` and call their block.
class NotificationRegistration {
    private let versionStorage = Atomic<UInt64>(0)
    private let activeStorage = Atomic<Bool>(true)
    /// Whether the first delivery (`.initial`, or the baseline of an object) is still due.
    var needsInitial = true
    /// The tokens passed to `write(withoutNotifying:)` name registrations by token.
    weak var token: NotificationToken?

    /// The version the last delivery reflected: changes after it are still to report.
    var version: UInt64 {
        get { versionStorage.load(ordering: .acquiring) }
        set { versionStorage.store(newValue, ordering: .releasing) }
    }

    /// False once the token was invalidated or the registration finished (its object
    /// was deleted): nothing is delivered after that.
    var isActive: Bool { activeStorage.load(ordering: .acquiring) }

    func cancel() { activeStorage.store(false, ordering: .releasing) }

    init(version: UInt64) {
        versionStorage.store(version, ordering: .relaxed)
    }

    /// Computes the first state through `txn` and delivers it (`.initial` for
    /// collections; objects only take their baseline).
    func deliverInitial(txn: OpaquePointer) {
        preconditionFailure("\(type(of: self)) must override deliverInitial")
    }

    /// Computes the change described by `context` and delivers it when there is one.
    func deliverChange(_ context: ChangeContext) {
        preconditionFailure("\(type(of: self)) must override deliverChange")
    }

    /// Takes the new state through `txn` without delivering (`write(withoutNotifying:)`).
    func rebase(_ context: ChangeContext) {
        preconditionFailure("\(type(of: self)) must override rebase")
    }

    /// The changeset log no longer has the changes since `version`: report what can
    /// be computed by comparing states (collections report every element replaced
    /// unless they can compare keys).
    func deliverWithoutLog(txn: OpaquePointer) {
        preconditionFailure("\(type(of: self)) must override deliverWithoutLog")
    }

    /// The changes could not be read.
    func deliverError(_ error: RealmError) {
        preconditionFailure("\(type(of: self)) must override deliverError")
    }
}

/// The registration of one observer block on one observed thing (a collection, an
/// object): the thing as read in the realm that delivers, the key paths' filter, and
/// the block with its change type, whose `.error` case `errorChange` makes.
class ObserverRegistration<Observed, Change>: NotificationRegistration {
    let observed: Observed
    let filter: KeyPathFilter?
    let block: (Change) -> Void
    private let errorChange: (RealmError) -> Change

    init(_ observed: Observed, filter: KeyPathFilter?, error: @escaping (RealmError) -> Change,
         block: @escaping (Change) -> Void) {
        self.observed = observed
        self.filter = filter
        self.block = block
        errorChange = error
        super.init(version: 0)
    }

    /// Hands `change` to the block unless the registration was cancelled.
    func deliver(_ change: Change) {
        guard isActive else { return }
        block(change)
    }

    override func deliverError(_ error: RealmError) { deliver(errorChange(error)) }
}

/// The registration of an observer of a collection whose changes are positions
/// (`RealmCollectionChange`): `Results`, `List`, `MutableSet`, `LinkingObjects`.
class IndexedCollectionRegistration<Observed>: ObserverRegistration<Observed, RealmCollectionChange<Observed>> {
    init(_ observed: Observed, filter: KeyPathFilter?, block: @escaping (RealmCollectionChange<Observed>) -> Void) {
        super.init(observed, filter: filter, error: { .error($0) }, block: block)
    }

    /// Delivers `changes` as an update, unless there are none.
    func deliverUpdate(_ changes: IndexChanges) {
        guard !changes.isEmpty else { return }
        deliver(.update(observed, deletions: changes.deletions, insertions: changes.insertions,
                        modifications: changes.modifications))
    }

    /// The collection's owner was deleted: its `count` elements went with it, and
    /// nothing follows.
    func deliverOwnerDeleted(count: Int) {
        deliverUpdate(IndexChanges(deletions: Array(0..<count)))
        cancel()
    }
}

extension NotificationToken {
    /// A token whose `invalidate()` cancels `registration` and removes it from `state`.
    static func forRegistration(_ registration: NotificationRegistration, in state: RealmState) -> NotificationToken {
        let token = NotificationToken { [weak state] in
            registration.cancel()
            state?.removeRegistration(registration)
        }
        registration.token = token
        return token
    }
}
