import Foundation
import OpenRealm

/// The subscriptions of a flexible sync realm: which queries the server syncs.
///
/// ```swift
/// let subscriptions = realm.subscriptions
/// try await subscriptions.update {
///     subscriptions.append(QuerySubscription<Task>(name: "completed-tasks") { $0.completed == true })
///     subscriptions.append(QuerySubscription<Team> { $0.teamName == "Developer Education" })
/// }
/// ```
///
/// An instance reads one version of the set; `update` commits its block's changes as the
/// next version and moves the instance to it. When another instance commits a newer
/// version, this one's `state` is `.superseded` and it must be read again
/// (`realm.subscriptions`) before it can update. Identity: a named subscription is its
/// name; an unnamed one is its class and canonical query.
///
/// Use an instance on one thread (or actor) at a time.
public final class SyncSubscriptionSet: @unchecked Sendable {
    let store: SubscriptionStore?
    let session: SyncSession?
    private(set) var version: Int64
    private var entries: [SubscriptionStore.Entry]
    /// The changes of the open `update` block.
    private var editing: [SubscriptionStore.Entry]?
    /// The first mistake made in the open block: the update throws it.
    private var editError: RealmError?
    /// Initial subscriptions run again on open: an existing name takes the new query.
    private var reassignNames = false

    init(store: SubscriptionStore?, session: SyncSession?) {
        self.store = store
        self.session = session
        let latest = store?.load().latest
        version = latest?.version ?? 0
        entries = latest?.entries ?? []
    }

    private var current: [SubscriptionStore.Entry] { editing ?? entries }

    // MARK: Reading

    /// The number of subscriptions.
    public var count: Int { current.count }
    /// Whether there are none.
    public var isEmpty: Bool { current.isEmpty }
    /// The first subscription, or nil.
    public var first: SyncSubscription? { current.first.map(wrap) }
    /// The last subscription, or nil.
    public var last: SyncSubscription? { current.last.map(wrap) }

    /// The subscription at `position`, nil past the end.
    public subscript(position: Int) -> SyncSubscription? {
        precondition(position >= 0, "Subscription index \(position) is negative.")
        let list = current
        return position < list.count ? wrap(list[position]) : nil
    }

    /// The subscription named `named`, or nil.
    public func first(named: String) -> SyncSubscription? {
        current.first { $0.name == named }.map(wrap)
    }

    /// The first subscription (named or not) on `T` with this query.
    public func first<T: Object>(ofType type: T.Type, where query: (Query<T>) -> Query<Bool>) -> SyncSubscription? {
        let canonical = SubscriptionQuery.canonical(query)
        return current.first { $0.className == T.className() && $0.query == canonical }.map(wrap)
    }

    /// The first subscription (named or not) on `T` with this RQL query.
    public func first<T: Object>(ofType type: T.Type, where predicateFormat: String, _ args: Any...) -> SyncSubscription? {
        guard case .success(let canonical) = SubscriptionQuery.canonical(predicateFormat, args, type: T.self) else { return nil }
        return current.first { $0.className == T.className() && $0.query == canonical }.map(wrap)
    }

    private func wrap(_ entry: SubscriptionStore.Entry) -> SyncSubscription { SyncSubscription(set: self, entry: entry) }

    /// The state of the version this instance reads.
    public var state: SyncSubscriptionState {
        guard let store else { return .complete }
        let stored = store.load()
        if stored.latest.version > version { return .superseded }
        guard let record = stored.record(version) else { return .superseded }
        switch record.state {
        case .complete: return .complete
        case .error: return .error(RealmError(.subscriptionFailed, record.errorMessage ?? "The server refused subscription set version \(version)."))
        case .superseded: return .superseded
        case .pending: return .pending
        }
    }

    // MARK: Changing

    private func requireBlock(_ call: String) {
        precondition(editing != nil, "\(call) can only be called inside a subscription update block: call subscriptions.update { subscriptions.\(call) } instead.")
    }

    private func fail(_ message: String) {
        if editError == nil { editError = RealmError(.subscriptionFailed, message) }
    }

    /// Adds subscriptions. An unnamed subscription already in the set changes nothing;
    /// a name already in the set makes the `update` throw.
    public func append<T: Object>(_ subscriptions: QuerySubscription<T>...) {
        requireBlock("append(_:)")
        for sub in subscriptions {
            let query: String
            switch sub.query {
            case .success(let q): query = q
            case .failure(let error): if editError == nil { editError = error }; continue
            }
            if let name = sub.name {
                if reassignNames, let i = editing!.firstIndex(where: { $0.name == name }) {
                    if editing![i].className == sub.className, editing![i].query != query {
                        editing![i].query = query
                        editing![i].updatedAt = Date().timeIntervalSince1970
                    }
                    continue
                }
                if editing!.contains(where: { $0.name == name }) {
                    fail("A subscription named '\(name)' already exists: use first(named:) and updateQuery, or remove it first.")
                    continue
                }
            } else if editing!.contains(where: { $0.name == nil && $0.className == sub.className && $0.query == query }) {
                continue
            }
            let now = Date().timeIntervalSince1970
            editing!.append(SubscriptionStore.Entry(id: UUID().uuidString, name: sub.name, className: sub.className,
                                                    query: query, createdAt: now, updatedAt: now))
        }
    }

    /// Appends a subscription given by class name and canonical query (`Results.subscribe`).
    func appendRaw(name: String?, className: String, query: String) {
        requireBlock("append(_:)")
        if name == nil, editing!.contains(where: { $0.name == nil && $0.className == className && $0.query == query }) { return }
        let now = Date().timeIntervalSince1970
        editing!.append(SubscriptionStore.Entry(id: UUID().uuidString, name: name, className: className, query: query,
                                                createdAt: now, updatedAt: now))
    }

    /// Removes these subscriptions.
    public func remove(_ subscriptions: SyncSubscription...) {
        requireBlock("remove(_:)")
        let ids = Set(subscriptions.map(\.entry.id))
        editing!.removeAll { ids.contains($0.id) }
    }

    /// Removes the subscriptions (named or not) on `T` with this query.
    public func remove<T: Object>(ofType type: T.Type, _ query: (Query<T>) -> Query<Bool>) {
        requireBlock("remove(ofType:_:)")
        let canonical = SubscriptionQuery.canonical(query)
        editing!.removeAll { $0.className == T.className() && $0.query == canonical }
    }

    /// Removes the subscriptions (named or not) on `T` with this RQL query.
    public func remove<T: Object>(ofType type: T.Type, where predicateFormat: String, _ args: Any...) {
        requireBlock("remove(ofType:where:)")
        switch SubscriptionQuery.canonical(predicateFormat, args, type: T.self) {
        case .success(let canonical): editing!.removeAll { $0.className == T.className() && $0.query == canonical }
        case .failure(let error): if editError == nil { editError = error }
        }
    }

    /// Removes the subscription the block describes (matched by class and query, and by
    /// name when it has one).
    public func remove<T: Object>(_ subscription: () -> QuerySubscription<T>) {
        requireBlock("remove(_:)")
        let sub = subscription()
        guard case .success(let query) = sub.query else { return }
        editing!.removeAll { $0.className == sub.className && $0.query == query && (sub.name == nil || $0.name == sub.name) }
    }

    /// Removes the subscription named `named` (nothing when there is none).
    public func remove(named: String) {
        requireBlock("remove(named:)")
        editing!.removeAll { $0.name == named }
    }

    /// Removes every subscription, or only the unnamed ones.
    public func removeAll(unnamedOnly: Bool = false) {
        requireBlock("removeAll(unnamedOnly:)")
        if unnamedOnly { editing!.removeAll { $0.name == nil } } else { editing!.removeAll() }
    }

    /// Removes every subscription on `type`.
    public func removeAll<T: Object>(ofType type: T.Type) {
        requireBlock("removeAll(ofType:)")
        editing!.removeAll { $0.className == T.className() }
    }

    func updateQuery(of id: String, className: String, query: Result<String, RealmError>) {
        requireBlock("updateQuery(toType:where:)")
        guard let i = editing!.firstIndex(where: { $0.id == id }) else {
            fail("The subscription being updated is not in this set (it was removed, or read from another set).")
            return
        }
        guard editing![i].className == className else {
            fail("Updating a subscription query of a different object type is not allowed: the subscription is on '\(editing![i].className)', not '\(className)'.")
            return
        }
        switch query {
        case .success(let q):
            editing![i].query = q
            editing![i].updatedAt = Date().timeIntervalSince1970
        case .failure(let error):
            if editError == nil { editError = error }
        }
    }

    // MARK: Committing

    /// Runs `block` and commits its changes as a new version; returns the version.
    func commitBlock(reassigningNames: Bool = false, _ block: () -> Void) throws -> Int64 {
        guard let store else {
            throw RealmError(.subscriptionFailed, "This realm has no flexible sync configuration, so it has no subscriptions to update. Open it with user.flexibleSyncConfiguration().")
        }
        if editing != nil {
            fail("Subscription update blocks cannot be nested: make every change in one update block.")
            throw RealmError(.subscriptionFailed, "Subscription update blocks cannot be nested: make every change in one update block.")
        }
        let latest = store.load().latest
        guard latest.version == version else {
            throw RealmError(.subscriptionFailed, "This subscription set (version \(version)) was superseded by version \(latest.version): read realm.subscriptions again before updating.")
        }
        editing = entries
        editError = nil
        reassignNames = reassigningNames
        block()
        reassignNames = false
        let changed = editing!
        let error = editError
        editing = nil
        editError = nil
        if let error { throw error }
        let newVersion = try store.commit(changed)
        version = newVersion
        entries = changed
        session?.subscriptionsChanged()
        return newVersion
    }

    /// Waits for version `version` to complete; throws `subscriptionFailed` with the
    /// server's message when it was refused, `SyncError` when the session stops (or
    /// `.timedOut` past `timeout` seconds), `CancellationError` when the task is cancelled.
    ///
    /// The session sends the latest set after every bind, so a lost connection only
    /// delays the answer; a suspended session answers once resumed.
    func waitForVersion(_ version: Int64, timeout: TimeInterval? = nil) async throws {
        guard let store else { return }
        let waiterId = LockedBox<UInt64?>(nil)
        let slot = WaitSlot()
        try await withTaskCancellationHandler {
            try await slot.wait { finish in
                let id = SubscriptionWaiters.shared.wait(store: store, version: version, finish)
                waiterId.value = id
                if let timeout {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                        SubscriptionWaiters.shared.cancel(path: store.path, id: id, error: SyncError(.timedOut,
                            "Waiting for subscription set version \(version) to sync timed out after \(timeout) seconds."))
                    }
                }
            }
        } onCancel: {
            // The slot ends the wait; this forgets the stored waiter.
            if let id = waiterId.value { SubscriptionWaiters.shared.cancel(path: store.path, id: id, error: CancellationError()) }
        }
    }

    /// Runs `block` (which appends, removes and updates subscriptions) and commits its
    /// changes as one new version of the set; returns when the server has sent
    /// everything matching it (state `.complete`).
    ///
    /// - Throws: `Realm.Error` `.subscriptionFailed` when the block made a mistake (a
    ///   duplicate name, a nested update, a query on another type, a malformed RQL
    ///   string: nothing is committed), when the server refused a query (with its
    ///   message), when the set was superseded, or when the realm is not a flexible
    ///   sync realm.
    public func update(_isolation: isolated (any Actor)? = #isolation, _ block: () -> Void) async throws {
        let version = try commitBlock(block)
        try await waitForVersion(version)
    }

    /// Runs `block` and commits its changes at once, then calls `onComplete` (on an
    /// arbitrary thread) with nil when the server has sent everything matching the new
    /// version, or the error.
    @preconcurrency
    public func update(_ block: () -> Void, onComplete: (@Sendable (Error?) -> Void)? = nil) {
        let version: Int64
        do { version = try commitBlock(block) } catch {
            if let onComplete { DispatchQueue.global().async { onComplete(error) } }
            return
        }
        guard let onComplete, let store else { return }
        SubscriptionWaiters.shared.wait(store: store, version: version) { onComplete($0) }
    }
}

extension SyncSubscriptionSet: Sequence {
    /// Iterates the subscriptions in order.
    public func makeIterator() -> IndexingIterator<[SyncSubscription]> {
        current.map(wrap).makeIterator()
    }
}

/// A value carried across a boundary the compiler cannot check.
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// True once.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func claim() -> Bool { lock.withLock { if done { return false }; done = true; return true } }
}
