/// The accounts of one app as the auth service and the operator commands use them:
/// users, refresh tokens, API keys and mailed token pairs. Each call is a transaction of
/// its own. The embedded store (``AppStore``) implements it, and so does the PostgreSQL
/// store (module `OpenRealmPostgres`; `docs/design/STORAGE-SEAM.md`).
package protocol AccountStore: Sendable {
    /// Creates a user; for an email user, also claims the email.
    ///
    /// - Returns: nil when the email is already registered.
    func createUser(provider: String, email: String?, passwordHash: String?) throws -> UserRecord?
    /// The user `id` of an external provider, created on its first login; its email (not
    /// claimed for email/password login) is updated when it changes.
    func externalUser(id: String, provider: String, email: String?) throws -> UserRecord
    /// The user with `id`, or nil.
    func user(id: String) throws -> UserRecord?
    /// The user registered with `email`, or nil.
    func user(email: String) throws -> UserRecord?
    /// Every user, in no particular order.
    func allUsers() throws -> [UserRecord]
    /// Removes user `id`: its record, its email claim, its API keys, and revokes its
    /// refresh tokens. Nothing when the user does not exist.
    func removeUser(id: String) throws

    /// Stores a new refresh token.
    func storeRefreshToken(_ token: RefreshTokenRecord) throws
    /// The refresh token with `id`, or nil.
    func refreshToken(id: String) throws -> RefreshTokenRecord?
    /// Marks a refresh token revoked; nothing when it does not exist.
    func revokeRefreshToken(id: String) throws

    /// Stores a new key for `userId` named `name`, unless the user has a key of that name
    /// or has `limit` keys already.
    func createAPIKey(id: String, userId: String, name: String, keyHash: String, limit: Int) throws -> APIKeyCreation
    /// The keys of `userId`, or of every user when nil, oldest first.
    func apiKeys(userId: String?) throws -> [APIKeyRecord]
    /// The key `id`, or nil.
    func apiKey(id: String) throws -> APIKeyRecord?
    /// The key whose SHA-256 is `keyHash`, or nil.
    func apiKey(hash keyHash: String) throws -> APIKeyRecord?
    /// Enables or disables the key `id`; nothing when it does not exist.
    func setAPIKey(id: String, disabled: Bool) throws
    /// Deletes the key `id`; nothing when it does not exist.
    func deleteAPIKey(id: String) throws

    /// Stores a mailed token pair for `userId` (only the token's SHA-256 is kept), and
    /// drops the user's earlier pairs of that purpose and every expired pair.
    func storeEmailToken(id: String, token: String, userId: String, purpose: OutgoingMail.Purpose, now: Int64, expiresAt: Int64) throws
    /// Uses up the pair (`id`, `token`) of `purpose`: when it matches and has not
    /// expired, deletes it and applies `effect` to its user, in one transaction.
    ///
    /// - Returns: the user, or nil (and nothing changed) when no such live pair exists:
    ///   an unknown id, the wrong token, another purpose, an expired pair all look the same.
    func consumeEmailToken(id: String, token: String, purpose: OutgoingMail.Purpose, now: Int64,
                           effect: EmailTokenEffect) throws -> UserRecord?
}

/// What creating an API key came to.
package enum APIKeyCreation: Sendable, Equatable {
    case created(APIKeyRecord)
    /// The user already has a key of that name.
    case nameTaken
    /// The user has the most keys allowed.
    case tooMany
}

/// What a used-up mailed token pair does to its user.
package enum EmailTokenEffect: Sendable, Equatable {
    /// The address is confirmed.
    case confirmEmail
    /// The password hash is replaced, the user's refresh tokens revoked, and the address
    /// confirmed (the mail reached it).
    case resetPassword(hash: String)
}
