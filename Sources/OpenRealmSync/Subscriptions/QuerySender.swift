import OpenRealmWire

/// What a flexible sync session tells the server about its subscriptions: the latest
/// subscription set, once on each connection (after its `bind`) and again whenever a
/// newer set is committed, as one `query` message — per class, the subscriptions'
/// queries joined with `OR` (`TRUEPREDICATE` when one of them is).
///
/// Used on the session's queue only.
struct QuerySender {
    /// The set version sent on the current connection; 0 before any.
    private(set) var lastSentVersion: Int64 = 0

    /// A new connection: its server session has seen no query yet.
    mutating func connectionOpened() { lastSentVersion = 0 }

    /// The `query` message for the latest set of `store` when the current connection has
    /// not sent it yet (nil otherwise, and for an empty store); counts it as sent.
    mutating func nextQuery(_ store: SubscriptionStore, session: UInt64) -> WireQuery? {
        let latest = store.load().latest
        guard latest.version > lastSentVersion, latest.version > 0 else { return nil }
        lastSentVersion = latest.version
        return WireQuery(session: session, queryVersion: UInt64(latest.version),
                         queries: Self.classQueries(latest.entries.map { ($0.className, $0.query) }))
    }

    /// One query per class, classes in name order: the distinct queries of the class
    /// joined with `OR` in text order, or `TRUEPREDICATE` when one of them is.
    static func classQueries(_ subscriptions: [(className: String, query: String)]) -> [WireClassQuery] {
        var byClass: [String: Set<String>] = [:]
        for s in subscriptions { byClass[s.className, default: []].insert(s.query) }
        return byClass.keys.sorted().map { className -> WireClassQuery in
            let parts = byClass[className]!.sorted()
            let combined = parts.contains("TRUEPREDICATE") ? "TRUEPREDICATE"
                : parts.count == 1 ? parts[0] : parts.map { "(\($0))" }.joined(separator: " OR ")
            return WireClassQuery(className: className, query: combined)
        }
    }
}
