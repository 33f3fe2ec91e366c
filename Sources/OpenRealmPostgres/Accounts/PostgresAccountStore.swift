import Foundation
import OpenRealmServer
import PostgresNIO

/// The accounts of one app in PostgreSQL (tables of migration 1, ``PostgresSchema``):
/// the same contract as the embedded store's, each call one transaction.
///
/// Races between processes are settled by the database: the email claim and the API
/// key's name and hash are unique keys; creating a key locks the user's row, so two
/// processes cannot both pass the per-user limit; a mailed token pair is read with
/// `FOR UPDATE` and deleted in the transaction that applies it, so it is used once.
package final class PostgresAccountStore: AccountStore {
    package let database: DatabasePool
    package let appId: String

    package init(database: DatabasePool, appId: String) {
        self.database = database
        self.appId = appId
    }

    private var logger: Logger { database.logger }

    // MARK: Users

    package func createUser(provider: String, email: String?, passwordHash: String?) throws -> UserRecord? {
        let user = UserRecord(id: StorageConventions.randomHex(16), provider: provider, email: email, passwordHash: passwordHash,
                              createdAt: StorageConventions.nowMilliseconds)
        return try database.transaction("create a user") { [appId, logger] connection -> UserRecord? in
            if let email {
                let claimed = try await connection.query("""
                    INSERT INTO openrealm_user_emails (app_id, email, user_id) VALUES (\(appId), \(email), \(user.id))
                    ON CONFLICT DO NOTHING RETURNING user_id
                    """, logger: logger).collect()
                if claimed.isEmpty { return nil }
            }
            try await connection.perform("""
                INSERT INTO openrealm_users (app_id, id, provider, email, password_hash, created_at)
                VALUES (\(appId), \(user.id), \(provider), \(email), \(passwordHash), \(user.createdAt))
                """, logger: logger)
            return UserRecord(id: user.id, provider: provider, email: email, passwordHash: passwordHash)
        }
    }

    package func externalUser(id: String, provider: String, email: String?) throws -> UserRecord {
        let now = StorageConventions.nowMilliseconds
        return try database.transaction("record an external user") { [appId, logger] connection in
            // Insert or keep, and bring the email up to date, in one statement: two
            // processes logging the same user in at once both see one row.
            let rows = try await connection.query("""
                INSERT INTO openrealm_users (app_id, id, provider, email, created_at)
                VALUES (\(appId), \(id), \(provider), \(email), \(now))
                ON CONFLICT (app_id, id) DO UPDATE SET email = EXCLUDED.email
                RETURNING provider
                """, logger: logger)
            var stored = provider
            for try await value in rows.decode(String.self) { stored = value }
            return UserRecord(id: id, provider: stored, email: email, passwordHash: nil)
        }
    }

    package func user(id: String) throws -> UserRecord? {
        try database.withConnection("read a user") { [appId, logger] connection in
            try await Self.user(connection, appId: appId, id: id, logger: logger)
        }
    }

    package func user(email: String) throws -> UserRecord? {
        try database.withConnection("read a user") { [appId, logger] connection in
            try await Self.users(connection, logger: logger, """
                SELECT u.id, u.provider, u.email, u.password_hash, u.email_confirmed, u.created_at
                FROM openrealm_user_emails e JOIN openrealm_users u ON u.app_id = e.app_id AND u.id = e.user_id
                WHERE e.app_id = \(appId) AND e.email = \(email)
                """).first
        }
    }

    package func allUsers() throws -> [UserRecord] {
        try database.withConnection("list users") { [appId, logger] connection in
            try await Self.users(connection, logger: logger, """
                SELECT id, provider, email, password_hash, email_confirmed, created_at
                FROM openrealm_users WHERE app_id = \(appId)
                """)
        }
    }

    package func removeUser(id: String) throws {
        try database.transaction("remove a user") { [appId, logger] connection in
            guard let user = try await Self.user(connection, appId: appId, id: id, logger: logger, locking: true) else { return }
            if let email = user.email, user.provider == "local-userpass" {
                try await connection.perform(
                    "DELETE FROM openrealm_user_emails WHERE app_id = \(appId) AND email = \(email) AND user_id = \(id)",
                    logger: logger)
            }
            try await connection.perform("DELETE FROM openrealm_api_keys WHERE app_id = \(appId) AND user_id = \(id)", logger: logger)
            try await connection.perform(
                "UPDATE openrealm_refresh_tokens SET revoked = true WHERE app_id = \(appId) AND user_id = \(id)", logger: logger)
            try await connection.perform("DELETE FROM openrealm_users WHERE app_id = \(appId) AND id = \(id)", logger: logger)
        }
    }

    /// The user `id`; `locking` holds its row for the rest of the transaction.
    static func user(_ connection: PostgresConnection, appId: String, id: String, logger: Logger,
                     locking: Bool = false) async throws -> UserRecord? {
        try await users(connection, logger: logger, """
            SELECT id, provider, email, password_hash, email_confirmed, created_at
            FROM openrealm_users WHERE app_id = \(appId) AND id = \(id) \(unescaped: locking ? "FOR UPDATE" : "")
            """).first
    }

    private static func users(_ connection: PostgresConnection, logger: Logger, _ query: PostgresQuery) async throws -> [UserRecord] {
        var out: [UserRecord] = []
        let rows = try await connection.query(query, logger: logger)
        for try await (id, provider, email, hash, confirmed, createdAt)
            in rows.decode((String, String, String?, String?, Bool, Int64).self) {
            out.append(UserRecord(id: id, provider: provider, email: email, passwordHash: hash,
                                  emailConfirmed: confirmed, createdAt: createdAt))
        }
        return out
    }

    // MARK: Refresh tokens

    package func storeRefreshToken(_ token: RefreshTokenRecord) throws {
        try database.transaction("store a refresh token") { [appId, logger] connection in
            try await connection.perform("""
                INSERT INTO openrealm_refresh_tokens (app_id, id, user_id, expires_at, revoked)
                VALUES (\(appId), \(token.id), \(token.userId), \(token.expiresAt), \(token.revoked))
                """, logger: logger)
        }
    }

    package func refreshToken(id: String) throws -> RefreshTokenRecord? {
        try database.withConnection("read a refresh token") { [appId, logger] connection in
            let rows = try await connection.query(
                "SELECT user_id, expires_at, revoked FROM openrealm_refresh_tokens WHERE app_id = \(appId) AND id = \(id)",
                logger: logger)
            for try await (userId, expiresAt, revoked) in rows.decode((String, Int64, Bool).self) {
                return RefreshTokenRecord(id: id, userId: userId, expiresAt: expiresAt, revoked: revoked)
            }
            return nil
        }
    }

    package func revokeRefreshToken(id: String) throws {
        try database.transaction("revoke a refresh token") { [appId, logger] connection in
            try await connection.perform(
                "UPDATE openrealm_refresh_tokens SET revoked = true WHERE app_id = \(appId) AND id = \(id)", logger: logger)
        }
    }

    // MARK: API keys

    package func createAPIKey(id: String, userId: String, name: String, keyHash: String, limit: Int) throws -> APIKeyCreation {
        let createdAt = StorageConventions.nowMilliseconds
        return try database.transaction("create an API key") { [appId, logger] connection -> APIKeyCreation in
            // The user's row serializes its key creations across processes.
            _ = try await connection.query(
                "SELECT 1 FROM openrealm_users WHERE app_id = \(appId) AND id = \(userId) FOR UPDATE", logger: logger).collect()
            var names: [String] = []
            let rows = try await connection.query(
                "SELECT name FROM openrealm_api_keys WHERE app_id = \(appId) AND user_id = \(userId)", logger: logger)
            for try await existing in rows.decode(String.self) { names.append(existing) }
            if names.contains(name) { return .nameTaken }
            guard names.count < limit else { return .tooMany }
            try await connection.perform("""
                INSERT INTO openrealm_api_keys (app_id, id, user_id, name, key_hash, disabled, created_at)
                VALUES (\(appId), \(id), \(userId), \(name), \(keyHash), false, \(createdAt))
                """, logger: logger)
            return .created(APIKeyRecord(id: id, userId: userId, name: name, keyHash: keyHash, disabled: false,
                                         createdAt: createdAt))
        }
    }

    package func apiKeys(userId: String?) throws -> [APIKeyRecord] {
        try database.withConnection("list API keys") { [appId, logger] connection in
            // No user: every user's keys.
            try await Self.keys(connection, logger: logger, """
                SELECT id, user_id, name, key_hash, disabled, created_at FROM openrealm_api_keys
                WHERE app_id = \(appId) AND (\(userId)::text IS NULL OR user_id = \(userId))
                ORDER BY created_at, id COLLATE "C"
                """)
        }
    }

    package func apiKey(id: String) throws -> APIKeyRecord? {
        try database.withConnection("read an API key") { [appId, logger] connection in
            try await Self.keys(connection, logger: logger, """
                SELECT id, user_id, name, key_hash, disabled, created_at FROM openrealm_api_keys
                WHERE app_id = \(appId) AND id = \(id)
                """).first
        }
    }

    package func apiKey(hash keyHash: String) throws -> APIKeyRecord? {
        try database.withConnection("read an API key") { [appId, logger] connection in
            try await Self.keys(connection, logger: logger, """
                SELECT id, user_id, name, key_hash, disabled, created_at FROM openrealm_api_keys
                WHERE app_id = \(appId) AND key_hash = \(keyHash)
                """).first
        }
    }

    package func setAPIKey(id: String, disabled: Bool) throws {
        try database.transaction("enable or disable an API key") { [appId, logger] connection in
            try await connection.perform(
                "UPDATE openrealm_api_keys SET disabled = \(disabled) WHERE app_id = \(appId) AND id = \(id)", logger: logger)
        }
    }

    package func deleteAPIKey(id: String) throws {
        try database.transaction("delete an API key") { [appId, logger] connection in
            try await connection.perform("DELETE FROM openrealm_api_keys WHERE app_id = \(appId) AND id = \(id)", logger: logger)
        }
    }

    private static func keys(_ connection: PostgresConnection, logger: Logger, _ query: PostgresQuery) async throws -> [APIKeyRecord] {
        var out: [APIKeyRecord] = []
        let rows = try await connection.query(query, logger: logger)
        for try await (id, userId, name, hash, disabled, createdAt) in rows.decode((String, String, String, String, Bool, Int64).self) {
            out.append(APIKeyRecord(id: id, userId: userId, name: name, keyHash: hash, disabled: disabled, createdAt: createdAt))
        }
        return out
    }

    // MARK: Mailed token pairs

    package func storeEmailToken(id: String, token: String, userId: String, purpose: OutgoingMail.Purpose, now: Int64,
                                 expiresAt: Int64) throws {
        let hash = StorageConventions.sha256Hex(token)
        try database.transaction("store a mailed token") { [appId, logger] connection in
            try await connection.perform("""
                DELETE FROM openrealm_email_tokens
                WHERE app_id = \(appId) AND ((user_id = \(userId) AND purpose = \(purpose.rawValue)) OR expires_at <= \(now))
                """, logger: logger)
            try await connection.perform("""
                INSERT INTO openrealm_email_tokens (app_id, id, user_id, purpose, token_hash, expires_at)
                VALUES (\(appId), \(id), \(userId), \(purpose.rawValue), \(hash), \(expiresAt))
                """, logger: logger)
        }
    }

    package func consumeEmailToken(id: String, token: String, purpose: OutgoingMail.Purpose, now: Int64,
                                   effect: EmailTokenEffect) throws -> UserRecord? {
        let hash = StorageConventions.sha256Hex(token)
        return try database.transaction("use a mailed token") { [appId, logger] connection -> UserRecord? in
            let rows = try await connection.query("""
                SELECT user_id, purpose, token_hash, expires_at FROM openrealm_email_tokens
                WHERE app_id = \(appId) AND id = \(id) FOR UPDATE
                """, logger: logger)
            var found: (userId: String, purpose: String, hash: String, expiresAt: Int64)?
            for try await row in rows.decode((String, String, String, Int64).self) { found = row }
            guard let found, PasswordHasher.constantTimeEqual(found.hash.utf8, hash.utf8),
                  found.purpose == purpose.rawValue, found.expiresAt > now,
                  let user = try await Self.user(connection, appId: appId, id: found.userId, logger: logger, locking: true)
            else { return nil }
            try await connection.perform("DELETE FROM openrealm_email_tokens WHERE app_id = \(appId) AND id = \(id)", logger: logger)
            switch effect {
            case .confirmEmail:
                break
            case .resetPassword(let newHash):
                try await connection.perform(
                    "UPDATE openrealm_users SET password_hash = \(newHash) WHERE app_id = \(appId) AND id = \(user.id)",
                    logger: logger)
                try await connection.perform(
                    "UPDATE openrealm_refresh_tokens SET revoked = true WHERE app_id = \(appId) AND user_id = \(user.id)",
                    logger: logger)
            }
            try await connection.perform(
                "UPDATE openrealm_users SET email_confirmed = true WHERE app_id = \(appId) AND id = \(user.id)", logger: logger)
            return user
        }
    }
}
