import Foundation
import OpenRealmQuery

/// A user API key as the API key routes return it: `key` only in the answer that
/// created it (the server keeps only its hash).
struct APIKeyInfo: Codable, Sendable, Hashable {
    var _id: String
    var name: String
    var key: String?
    var disabled: Bool

    init(_ record: APIKeyRecord, key: String? = nil) {
        _id = record.id
        name = record.name
        self.key = key
        disabled = record.disabled
    }
}

/// User API keys: created, listed, enabled, disabled and deleted by their user (the
/// routes authenticate with the user's access token), and logins with a key (`api-key`).
///
/// A user only ever sees their own keys: another user's key id is `APIKeyNotFound`,
/// like an id that does not exist, so ids cannot be probed.
extension AuthService {
    /// Creates a key named `name` for the access token's user; the answer is the only
    /// place the key appears.
    ///
    /// - Throws: `ProviderDisabled` when the app turned API keys off; `BadRequest` for
    ///   an anonymous user (they cannot log in again, so a key would outlive them), a
    ///   name that is empty or longer than 256 characters, or a user with 20 keys
    ///   already; `APIKeyAlreadyExists` for a name the user already used; the access
    ///   token's errors (``verifyAccess(_:appId:)``).
    func createAPIKey(accessToken: String, name: String) throws(AuthError) -> APIKeyInfo {
        let (app, user) = try apiKeyUser(accessToken)
        guard user.provider != "anon-user" else {
            throw .badRequest("anonymous users cannot have API keys; log in with another provider first")
        }
        guard (1...256).contains(name.count) else {
            throw .badRequest("an API key's name must be between 1 and 256 characters, not \(name.count)")
        }
        let key = StorageConventions.randomHex(32)
        let creation: APIKeyCreation
        do {
            creation = try app.accounts.createAPIKey(id: ObjectId.generate().stringValue, userId: user.id, name: name,
                                                     keyHash: StorageConventions.apiKeyHash(key), limit: StorageConventions.maxAPIKeysPerUser)
        } catch {
            throw .internalError("cannot store the API key: \(error)")
        }
        switch creation {
        case .created(let record):
            return APIKeyInfo(record, key: key)
        case .nameTaken:
            throw .apiKeyAlreadyExists(name)
        case .tooMany:
            throw .badRequest("user '\(user.id)' already has \(StorageConventions.maxAPIKeysPerUser) API keys, the most allowed; delete one first")
        }
    }

    /// The access token's user's keys, oldest first (without the keys themselves).
    func apiKeys(accessToken: String) throws(AuthError) -> [APIKeyInfo] {
        let (app, user) = try apiKeyUser(accessToken)
        do { return try app.accounts.apiKeys(userId: user.id).map { APIKeyInfo($0) } } catch {
            throw .internalError("cannot read API keys: \(error)")
        }
    }

    /// The access token's user's key `id` (without the key itself).
    ///
    /// - Throws: `APIKeyNotFound` when the user has no key `id`.
    func apiKey(accessToken: String, id: String) throws(AuthError) -> APIKeyInfo {
        let (app, user) = try apiKeyUser(accessToken)
        return APIKeyInfo(try ownKey(app, user, id))
    }

    /// Deletes the access token's user's key `id`: it no longer logs in.
    func deleteAPIKey(accessToken: String, id: String) throws(AuthError) {
        let (app, user) = try apiKeyUser(accessToken)
        let key = try ownKey(app, user, id)
        do { try app.accounts.deleteAPIKey(id: key.id) } catch { throw .internalError("cannot delete the API key: \(error)") }
    }

    /// Enables or disables the access token's user's key `id`; a disabled key does
    /// not log in until enabled again.
    func setAPIKey(accessToken: String, id: String, disabled: Bool) throws(AuthError) {
        let (app, user) = try apiKeyUser(accessToken)
        let key = try ownKey(app, user, id)
        do { try app.accounts.setAPIKey(id: key.id, disabled: disabled) } catch {
            throw .internalError("cannot change the API key: \(error)")
        }
    }

    /// Logs in as the user of an API key.
    ///
    /// - Throws: `ProviderDisabled` when the app turned API keys off, `InvalidSession`
    ///   for an unknown (or deleted) or disabled key, or a key whose user was removed;
    ///   `TooManyRequests` past the limit per address.
    func apiKeyLogin(appId: String, key: String, remoteAddress: String? = nil) throws(AuthError) -> LoginResult {
        let app = try apps.app(appId)
        guard app.configuration.apiKeyAuth else { throw .providerDisabled("api-key") }
        try limitLogin(app, remoteAddress: remoteAddress)
        let record: APIKeyRecord?
        let user: UserRecord?
        do {
            record = try app.accounts.apiKey(hash: StorageConventions.apiKeyHash(key))
            user = try record.flatMap { try app.accounts.user(id: $0.userId) }
        } catch {
            throw .internalError("cannot read API keys: \(error)")
        }
        guard let record, let user else { throw .invalidSession("the API key is unknown to this app (never created, or deleted)") }
        guard !record.disabled else {
            throw .invalidSession("the API key '\(record.name)' is disabled; its user can enable it again")
        }
        return try issue(app: app, user: user)
    }

    private func apiKeyUser(_ accessToken: String) throws(AuthError) -> (SyncApp, UserRecord) {
        let (claims, user) = try verifyAccess(accessToken)
        let app = try apps.app(claims.aud)
        guard app.configuration.apiKeyAuth else { throw .providerDisabled("api-key") }
        return (app, user)
    }

    private func ownKey(_ app: SyncApp, _ user: UserRecord, _ id: String) throws(AuthError) -> APIKeyRecord {
        let record: APIKeyRecord?
        do { record = try app.accounts.apiKey(id: id) } catch { throw .internalError("cannot read API keys: \(error)") }
        guard let record, record.userId == user.id else { throw .apiKeyNotFound(id) }
        return record
    }
}
