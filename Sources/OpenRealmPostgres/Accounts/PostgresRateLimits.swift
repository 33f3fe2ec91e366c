import Foundation
import OpenRealmServer
import PostgresNIO

/// The rate limits of one app in PostgreSQL (migration 2, ``PostgresSchema``): one token
/// bucket per key in `openrealm_rate_limits`, shared by every process, so that a
/// client spreading its attempts over the processes gets one allowance, not one per
/// process.
///
/// A take is one transaction of two statements: the row is made full when absent and
/// locked (two processes taking from one bucket queue on its row), then refilled and
/// taken from by the same arithmetic as the in-memory limiter (``TokenBucket``), on
/// the database's clock so that the processes agree on time. Every so many takes, buckets full again are
/// deleted, so the table holds only the keys that were limited recently.
package final class PostgresRateLimits: RateLimitStore {
    package let database: DatabasePool
    package let appId: String
    /// One take in this many also deletes the app's full buckets.
    private let pruneEvery: Int
    private let takes = TakeCounter()

    package init(database: DatabasePool, appId: String, pruneEvery: Int = 256) {
        self.database = database
        self.appId = appId
        self.pruneEvery = max(1, pruneEvery)
    }

    package func take(_ key: String, limit: RateLimit) throws -> Int? {
        let prune = takes.next() % pruneEvery == 0
        return try database.transaction("take a rate limit token") { [appId, logger = database.logger] connection -> Int? in
            let capacity = TokenBucket.capacity(limit)
            // One statement makes the bucket full when absent and locks its row either
            // way (a conflicting insert that updates locks the row it found).
            var found: (tokens: Double, updatedAt: Double, now: Double)?
            let rows = try await connection.query("""
                INSERT INTO openrealm_rate_limits (app_id, key, tokens, updated_at, full_at)
                VALUES (\(appId), \(key), \(capacity), extract(epoch FROM clock_timestamp()), extract(epoch FROM clock_timestamp()))
                ON CONFLICT (app_id, key) DO UPDATE SET tokens = openrealm_rate_limits.tokens
                RETURNING tokens, updated_at, extract(epoch FROM clock_timestamp())::float8
                """, logger: logger)
            for try await row in rows.decode((Double, Double, Double).self) { found = row }
            guard let found else {
                throw PostgresStoreError(.statementFailed, "taking a rate limit token of '\(key)' returned no bucket")
            }
            var bucket = TokenBucket(tokens: found.tokens, updatedAt: found.updatedAt)
            let wait = bucket.take(limit, now: found.now)
            try await connection.perform("""
                UPDATE openrealm_rate_limits SET tokens = \(bucket.tokens), updated_at = \(bucket.updatedAt),
                    full_at = \(bucket.fullAt(limit))
                WHERE app_id = \(appId) AND key = \(key)
                """, logger: logger)
            if prune {
                try await connection.perform("""
                    DELETE FROM openrealm_rate_limits WHERE app_id = \(appId) AND full_at < \(found.now) AND key <> \(key)
                    """, logger: logger)
            }
            return wait
        }
    }
}

/// Counts takes, from any thread.
private final class TakeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
