import Foundation
import OpenRealm

/// A query to subscribe to, for ``SyncSubscriptionSet/append(_:)``:
///
/// ```swift
/// QuerySubscription<Task>(name: "long-running-completed") { $0.completed == true && $0.progressMinutes > 120 }
/// QuerySubscription<Team> { $0.teamName == "Developer Education" }
/// QuerySubscription<Team>(name: "all_teams")                 // every Team
/// QuerySubscription<Task>(name: "urgent", where: "priority IN {1, 2, 3}")
/// ```
///
/// The query is kept as its canonical RQL string, so a typed query and the same query
/// written in RQL are the same subscription.
public struct QuerySubscription<T: Object> {
    /// The type's query closure.
    public typealias QueryFunction = (Query<T>) -> Query<Bool>

    let name: String?
    let className: String
    /// The canonical query string, or the parse error of an RQL string.
    let query: Result<String, RealmError>

    /// A subscription to the objects of `T` matching `query` (every object when nil).
    public init(name: String? = nil, query: QueryFunction? = nil) {
        self.name = name
        className = T.className()
        self.query = .success(query.map(SubscriptionQuery.canonical) ?? "TRUEPREDICATE")
    }

    /// A subscription to the objects of `T` matching `query`.
    public init(name: String? = nil, query: QueryFunction) {
        self.name = name
        className = T.className()
        self.query = .success(SubscriptionQuery.canonical(query))
    }

    /// A subscription to the objects of `T` matching a Realm Query Language string with
    /// `$0`-style arguments. A malformed string makes the enclosing `update` throw.
    public init(name: String? = nil, where predicateFormat: String, _ args: Any...) {
        self.name = name
        className = T.className()
        query = SubscriptionQuery.canonical(predicateFormat, args, type: T.self)
    }
}

/// Canonical query strings, as the server reads them: properties a model renames with
/// `propertiesMapping()` go by their stored names.
enum SubscriptionQuery {
    /// An RQL string on model class `type`.
    static func canonical(_ text: String, _ args: [Any], type: ObjectBase.Type) -> Result<String, RealmError> {
        canonical(text, args) { $0.withStoredNames(for: type) }
    }

    /// An RQL string on the class stored as `className`.
    static func canonical(_ text: String, _ args: [Any], className: String) -> Result<String, RealmError> {
        canonical(text, args) { $0.withStoredNames(from: className) }
    }

    private static func canonical(_ text: String, _ args: [Any], _ stored: (ParsedQuery) -> ParsedQuery) -> Result<String, RealmError> {
        do {
            let parsed = try QueryParser.parse(text, arguments: args, rawValue: QueryArgumentBinder.persistedStandIn)
            return .success(QueryRenderer.render(stored(parsed)))
        } catch let error as QueryError {
            return .failure(RealmError(.invalidQuery, "Invalid subscription query '\(text)': \(error.message)"))
        } catch {
            return .failure(RealmError(.invalidQuery, "Invalid subscription query '\(text)': \(error)"))
        }
    }

    static func canonical<T: Object>(_ query: (Query<T>) -> Query<Bool>) -> String {
        QueryRenderer.render(query(Query<T>()).predicate.withStoredNames(for: T.self))
    }

    /// The canonical string of a `Results`' query on model class `type`.
    static func canonical(_ query: ParsedQuery, type: ObjectBase.Type) -> String {
        QueryRenderer.render(query.withStoredNames(for: type))
    }
}

/// Whether `Results.subscribe` waits for the server.
public enum WaitForSyncMode: Sendable {
    /// Wait when the call creates (or changes) the subscription.
    case onCreation
    /// Wait for the server's data every time.
    case always
    /// Never wait.
    case never
}

/// The state of a subscription set version.
public enum SyncSubscriptionState: Equatable, Sendable {
    /// Committed locally, not yet answered by the server.
    case pending
    /// The server sent what matched the set when it received it.
    case complete
    /// The server refused the set; the error carries its message.
    case error(Error)
    /// A newer version was committed: get `realm.subscriptions` again before updating.
    case superseded

    public static func == (lhs: SyncSubscriptionState, rhs: SyncSubscriptionState) -> Bool {
        switch (lhs, rhs) {
        case (.pending, .pending), (.complete, .complete), (.superseded, .superseded): return true
        case (.error(let a), .error(let b)): return "\(a)" == "\(b)"
        default: return false
        }
    }
}
