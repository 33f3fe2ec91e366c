import Foundation
import OpenRealm

/// One subscription of a set: a named or unnamed query on a class.
///
/// Its query can be changed inside an `update` block of the set it was read from:
///
/// ```swift
/// try await subscriptions.update {
///     subscriptions.first(named: "user_team")?.updateQuery(toType: Team.self, where: { $0.teamName == "Documentation" })
/// }
/// ```
public final class SyncSubscription: @unchecked Sendable, CustomStringConvertible {
    let set: SyncSubscriptionSet
    let entry: SubscriptionStore.Entry

    init(set: SyncSubscriptionSet, entry: SubscriptionStore.Entry) {
        self.set = set
        self.entry = entry
    }

    /// The name given at creation; nil for an unnamed subscription.
    public var name: String? { entry.name }
    /// When the subscription was created.
    public var createdAt: Date { Date(timeIntervalSince1970: entry.createdAt) }
    /// When its query last changed.
    public var updatedAt: Date { Date(timeIntervalSince1970: entry.updatedAt) }
    /// The class it subscribes to.
    public var objectClassName: String { entry.className }
    /// Its canonical query string.
    public var queryString: String { entry.query }

    /// Changes the query (every object of the type when `query` is nil). Only inside an
    /// `update` block; a type other than the subscription's makes the `update` throw.
    public func updateQuery<T: Object>(toType type: T.Type, where query: ((Query<T>) -> Query<Bool>)? = nil) {
        set.updateQuery(of: entry.id, className: T.className(), query: .success(query.map(SubscriptionQuery.canonical) ?? "TRUEPREDICATE"))
    }

    /// Changes the query. Only inside an `update` block.
    public func updateQuery<T: Object>(toType type: T.Type, where query: (Query<T>) -> Query<Bool>) {
        set.updateQuery(of: entry.id, className: T.className(), query: .success(SubscriptionQuery.canonical(query)))
    }

    /// Changes the query to a Realm Query Language string. Only inside an `update` block.
    public func updateQuery(to predicateFormat: String, _ args: Any...) {
        set.updateQuery(of: entry.id, className: entry.className, query: SubscriptionQuery.canonical(predicateFormat, args, className: entry.className))
    }

    public var description: String {
        "SyncSubscription(\(name.map { "\"\($0)\"" } ?? "unnamed"), \(objectClassName): \(queryString))"
    }
}
