/// Client → server, flexible sync only: a subscription set version and, per class, the
/// RQL query its subscriptions on that class combine to.
///
/// The server validates every query, then answers with downloads carrying this
/// `queryVersion` (the bootstrap of what entered the view and the removal of what left
/// it), or with an `invalidSubscriptionQuery` / `limitsExceeded` error carrying the
/// version. A class absent from `queries` is not synced.
public struct WireQuery: Sendable, Hashable {
    /// The session.
    public var session: UInt64
    /// The subscription set version; greater than every earlier one of the session.
    public var queryVersion: UInt64
    /// One query per class; each class at most once.
    public var queries: [WireClassQuery]

    /// A query message.
    public init(session: UInt64, queryVersion: UInt64, queries: [WireClassQuery]) {
        self.session = session
        self.queryVersion = queryVersion
        self.queries = queries
    }
}

/// The query of one class in a ``WireQuery``.
public struct WireClassQuery: Sendable, Hashable {
    /// The class name.
    public var className: String
    /// An RQL predicate without arguments (constants inlined), such as
    /// `"status == 'open' OR owner == 'bob'"`; `"TRUEPREDICATE"` for every object.
    public var query: String

    /// The query `query` on class `className`.
    public init(className: String, query: String) {
        self.className = className
        self.query = query
    }
}
