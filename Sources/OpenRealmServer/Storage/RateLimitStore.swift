/// Where an app's rate limits (logins per address and per email, mails, new client
/// files per user) keep their token buckets. The embedded store's app is served by one
/// process, which keeps them in memory (``LoginRateLimiter``); processes sharing a
/// database share them there (`OpenRealmPostgres`), so that a client cannot multiply
/// its allowance by spreading its attempts over the processes.
package protocol RateLimitStore: Sendable {
    /// Takes a token from `key`'s bucket under `limit`.
    ///
    /// - Returns: nil when the attempt may go on; otherwise the whole seconds until the
    ///   bucket holds a token again (at least 1).
    /// - Throws: the store's error when it cannot be read (the caller refuses the attempt).
    func take(_ key: String, limit: RateLimit) throws -> Int?
}
