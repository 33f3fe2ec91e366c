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

/// One token bucket: its tokens and when they were counted (seconds, on any clock
/// that does not go back). The arithmetic every rate limit store shares.
package struct TokenBucket: Sendable, Hashable {
    package var tokens: Double
    package var updatedAt: Double

    /// A full bucket for `limit`, counted at `now`.
    package init(full limit: RateLimit, at now: Double) {
        tokens = Self.capacity(limit)
        updatedAt = now
    }

    package init(tokens: Double, updatedAt: Double) {
        self.tokens = tokens
        self.updatedAt = updatedAt
    }

    package static func capacity(_ limit: RateLimit) -> Double { Double(max(1, limit.burst)) }
    package static func perSecond(_ limit: RateLimit) -> Double { Double(max(1, limit.perMinute)) / 60 }

    /// Refills the bucket up to `now`, then takes a token when it holds one.
    ///
    /// - Returns: nil when a token was taken; otherwise the whole seconds until the
    ///   bucket holds one again (at least 1).
    package mutating func take(_ limit: RateLimit, now: Double) -> Int? {
        let perSecond = Self.perSecond(limit)
        tokens = min(Self.capacity(limit), tokens + max(0, now - updatedAt) * perSecond)
        updatedAt = now
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return max(1, Int(((1 - tokens) / perSecond).rounded(.up)))
    }

    /// When the bucket is full again, taking nothing (it can then be forgotten).
    package func fullAt(_ limit: RateLimit) -> Double {
        updatedAt + max(0, Self.capacity(limit) - tokens) / Self.perSecond(limit)
    }
}

/// Token buckets for login attempts (and new client files), one per key
/// (`address:<ip>`, `email:<email>`), in this process's memory: the rate limits of the
/// embedded store, whose app one process serves.
///
/// Each attempt takes a token; an empty bucket refuses the attempt and says how long
/// until it holds a token again. Full buckets are forgotten once there are many, so
/// that the table stays small whatever addresses come.
///
/// Threading: any thread (a lock guards the table).
final class LoginRateLimiter: RateLimitStore, @unchecked Sendable {
    private let lock = NSLock()
    private var buckets: [String: (bucket: TokenBucket, fullAt: Double)] = [:]
    /// Above this many buckets, full ones are dropped.
    private let pruneThreshold = 10_000

    func take(_ key: String, limit: RateLimit) -> Int? {
        take(key, limit: limit, now: ProcessInfo.processInfo.systemUptime)
    }

    /// Takes a token from `key`'s bucket at `now` (seconds of system uptime).
    ///
    /// - Returns: nil when the attempt may go on; otherwise the whole seconds until
    ///   the bucket holds a token again (at least 1).
    func take(_ key: String, limit: RateLimit, now: Double) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        var bucket = buckets[key]?.bucket ?? TokenBucket(full: limit, at: now)
        let wait = bucket.take(limit, now: now)
        buckets[key] = (bucket, bucket.fullAt(limit))
        if wait == nil, buckets.count > pruneThreshold {
            buckets = buckets.filter { $0.value.fullAt > now }
        }
        return wait
    }
}
