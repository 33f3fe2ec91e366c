import Foundation
import OpenRealm
import Synchronization

/// The subscription each `Results` made with `subscribe`, for `unsubscribe()`.
private let subscribedResults = Mutex<[ObjectIdentifier: (core: WeakCore, name: String?, className: String, query: String)]>([:])
private struct WeakCore: @unchecked Sendable { weak var core: ResultsCore? }

extension Results where Element: Object {
    /// Subscribes to the objects of these results (a flexible sync realm), and returns
    /// them:
    ///
    /// ```swift
    /// let results = try await realm.objects(Team.self)
    ///     .where { $0.members.contains("Bob Smith") }
    ///     .subscribe(name: "bob_smith_teams", waitForSync: .onCreation)
    /// ```
    ///
    /// An unnamed subscription is found again by its class and query; a named one by its
    /// name, and takes the new query when it had another.
    ///
    /// - Parameters:
    ///   - waitForSync: `.onCreation` waits when the subscription is new or changed,
    ///     `.always` waits for the server's data every time, `.never` returns at once.
    ///   - timeout: seconds to wait at most; past them a `SyncError` `.timedOut` is thrown.
    /// - Throws: `Realm.Error` `.subscriptionFailed` when the server refuses the query or
    ///   the realm has no flexible sync configuration; `SyncError.timedOut`.
    public func subscribe(name: String? = nil, waitForSync: WaitForSyncMode = .onCreation, timeout: TimeInterval? = nil,
                          _isolation: isolated (any Actor)? = #isolation) async throws -> Results<Element> {
        guard let realm = core.realm as Realm? else { return self }
        let subscriptions = realm.subscriptions
        guard subscriptions.store != nil else {
            throw RealmError(.subscriptionFailed, "Results.subscribe needs a realm opened with a flexible sync configuration (user.flexibleSyncConfiguration()).")
        }
        let className = core.className
        let query = SubscriptionQuery.canonical(core.query, type: core.type)
        let existing = subscriptions.first { entry in
            name.map { entry.name == $0 } ?? (entry.name == nil && entry.objectClassName == className && entry.queryString == query)
        }
        var version: Int64?
        if existing == nil || existing!.objectClassName != className || existing!.queryString != query {
            version = try subscriptions.commitBlock {
                if let existing { subscriptions.remove(existing) }
                subscriptions.appendRaw(name: name, className: className, query: query)
            }
        }
        subscribedResults.withLock { $0[ObjectIdentifier(core)] = (WeakCore(core: core), name, className, query) }
        switch waitForSync {
        case .never:
            break
        case .onCreation:
            if let version { try await subscriptions.waitForVersion(version, timeout: timeout) }
        case .always:
            try await subscriptions.waitForVersion(version ?? subscriptions.version, timeout: timeout)
            if let session = subscriptions.session {
                try await withTimeout(timeout) { try await session.wait(for: .download) }
            }
        }
        realm.refresh()
        return self
    }

    /// Removes the subscription `subscribe` made for these results (only it), without
    /// waiting for the server.
    public func unsubscribe() {
        guard let realm = core.realm as Realm? else { return }
        let record = subscribedResults.withLock { $0.removeValue(forKey: ObjectIdentifier(core)) }
        let className = record?.className ?? core.className
        let query = record?.query ?? SubscriptionQuery.canonical(core.query, type: core.type)
        let name = record?.name
        let subscriptions = realm.subscriptions
        guard subscriptions.store != nil else { return }
        subscriptions.update({
            if let name {
                subscriptions.remove(named: name)
            } else if let mine = subscriptions.first(where: { $0.name == nil && $0.objectClassName == className && $0.queryString == query }) {
                subscriptions.remove(mine)
            }
        }, onComplete: nil)
    }
}

/// Runs `body`, failing with `SyncError.timedOut` past `timeout` seconds (no limit when nil).
func withTimeout(_ timeout: TimeInterval?, _ body: @escaping @Sendable () async throws -> Void) async throws {
    guard let timeout else { return try await body() }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            throw SyncError(.timedOut, "Waiting for sync timed out after \(timeout) seconds.")
        }
        try await group.next()
        group.cancelAll()
    }
}
