import OpenRealmWire

/// How much query work one sync connection may ask of the server: a token bucket of
/// query bytes. Each `query` message costs the bytes of its class names and RQL texts,
/// and at least ``minimumCharge`` (what one evaluation of a view costs, however short its
/// text). A connection may spend ``capacity`` at once; then it gets ``bytesPerSecond``.
///
/// A query handled past the budget is not refused: the connection's handler waits until
/// the budget has refilled (``delay(for:now:)``), which holds the connection's later
/// frames and, once its inbound queue is full, stops reading its socket. So validating,
/// compiling and evaluating subscriptions costs a connection at most
/// `capacity + bytesPerSecond × t` bytes of query text, and at most
/// `(capacity + bytesPerSecond × t) / minimumCharge` view evaluations, over any time `t`;
/// other connections are not slowed (the wait holds no lock and no thread).
///
/// A message costing more than the capacity is handled once the bucket is full, and
/// leaves it in debt: the next waits until the debt is paid.
///
/// A value; the connection's handler owns it (one at a time).
struct QueryBudget {
    /// The most query bytes a connection may spend at once.
    let capacity: Int
    /// The query bytes a connection gets back per second.
    let bytesPerSecond: Int
    /// The least a query message costs: one view evaluation.
    static let minimumCharge = 16 << 10

    private var tokens: Double
    private var updated: ContinuousClock.Instant?

    init(capacity: Int, bytesPerSecond: Int) {
        self.capacity = max(Self.minimumCharge, capacity)
        self.bytesPerSecond = max(1, bytesPerSecond)
        tokens = Double(self.capacity)
    }

    /// What `query` costs.
    static func cost(of query: WireQuery) -> Int {
        max(minimumCharge, query.queries.reduce(0) { $0 + $1.className.utf8.count + $1.query.utf8.count })
    }

    /// Charges `cost` and returns how long to wait before doing the work (zero when the
    /// budget covers it).
    mutating func delay(for cost: Int, now: ContinuousClock.Instant = .now) -> Duration {
        if let updated {
            let elapsed = now - updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(Double(capacity), tokens + max(0, seconds) * Double(bytesPerSecond))
        }
        let needed = Double(min(cost, capacity))
        var wait = 0.0
        if tokens < needed {
            wait = (needed - tokens) / Double(bytesPerSecond)
            tokens = needed
        }
        tokens -= Double(cost)
        // The tokens are counted as of the end of the wait.
        updated = now + .nanoseconds(Int64(wait * 1e9))
        return .nanoseconds(Int64(wait * 1e9))
    }
}
