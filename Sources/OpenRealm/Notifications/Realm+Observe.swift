import Foundation
import ORCore

extension Realm {
    /// What a realm observer is told.
    public enum Notification: String, Sendable {
        /// The realm moved to a newer version: it refreshed (by `refresh()`,
        /// autorefresh, or before a write) to changes of another thread or process, or
        /// it committed a write itself.
        case didChange = "RLMRealmDidChangeNotification"
        /// Another thread or process committed, and the realm does not autorefresh:
        /// call `refresh()` to see the changes. Posted on realms that have a scheduler
        /// (the main thread's, actor-isolated ones).
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// Registers a block called when the realm changes version (see `Notification`).
    ///
    /// ```swift
    /// let token = realm.observe { notification, realm in
    ///     if notification == .didChange { print("now at the latest version") }
    /// }
    /// ```
    ///
    /// The block runs where the realm lives: on its thread when it refreshes or
    /// commits, through the main queue for the main thread, on its actor for an
    /// actor-isolated realm. Versions whose commits changed nothing (an empty write of
    /// another thread or process) are not reported, except this realm's own commits.
    ///
    /// - Returns: a token; delivery stops when it is invalidated or released.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        precondition(!isFrozen, "Cannot observe a frozen realm: it never changes.")
        let registration = RealmObserverRegistration(self, block)
        registration.version = orc_txn_version(txn)
        registration.needsInitial = false
        state.addRegistration(registration)
        return NotificationToken.forRegistration(registration, in: state)
    }
}

/// The block of a realm observer.
public typealias NotificationBlock = (_ notification: Realm.Notification, _ realm: Realm) -> Void

/// The registration of a realm observer.
final class RealmObserverRegistration: NotificationRegistration {
    let realm: Realm
    let block: NotificationBlock

    init(_ realm: Realm, _ block: @escaping NotificationBlock) {
        self.realm = realm
        self.block = block
        super.init(version: 0)
    }

    override func deliverInitial(txn: OpaquePointer) {}
    override func rebase(_ context: ChangeContext) {}

    override func deliverChange(_ context: ChangeContext) {
        guard isActive, context.isLocalCommit || context.summary.instructionCount > 0 else { return }
        block(.didChange, realm)
    }

    override func deliverWithoutLog(txn: OpaquePointer) {
        guard isActive else { return }
        block(.didChange, realm)
    }

    override func deliverError(_ error: RealmError) {
        guard isActive else { return }
        block(.didChange, realm)
    }

    func deliverRefreshRequired() {
        guard isActive else { return }
        block(.refreshRequired, realm)
    }
}
