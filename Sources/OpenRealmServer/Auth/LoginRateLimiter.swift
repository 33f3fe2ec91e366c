import Foundation

/// A token bucket's settings: up to `burst` attempts at once, refilled at `perMinute`
/// attempts a minute.
public struct RateLimit: Sendable, Hashable {
    /// The bucket's size: how many attempts may come at once.
    public var burst: Int
    /// How many attempts a minute the bucket refills.
    public var perMinute: Int

    public init(burst: Int, perMinute: Int) {
        self.burst = burst
        self.perMinute = perMinute
    }
}

/// Token buckets for login attempts, one per key (`address:<ip>`, `email:<email>`).
///
/// Each attempt takes a token; an empty bucket refuses the attempt and says how long
/// until it holds a token again. Full buckets are forgotten once there are many, so
/// that the table stays small whatever addresses come.
///
/// Threading: any thread (a lock guards the table).
final class LoginRateLimiter: @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Double
    }

    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    /// Above this many buckets, full ones are dropped.
    private let pruneThreshold = 10_000

    /// Takes a token from `key`'s bucket.
    ///
    /// - Returns: nil when the attempt may go on; otherwise the whole seconds until
    ///   the bucket holds a token again (at least 1).
    func take(_ key: String, limit: RateLimit, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        let capacity = Double(max(1, limit.burst))
        let perSecond = Double(max(1, limit.perMinute)) / 60
        lock.lock()
        defer { lock.unlock() }
        var bucket = buckets[key] ?? Bucket(tokens: capacity, updatedAt: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updatedAt) * perSecond)
        bucket.updatedAt = now
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            buckets[key] = bucket
            if buckets.count > pruneThreshold { prune(now: now, capacity: capacity, perSecond: perSecond) }
            return nil
        }
        buckets[key] = bucket
        return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
    }

    private func prune(now: Double, capacity: Double, perSecond: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updatedAt) * perSecond < capacity }
    }
}
