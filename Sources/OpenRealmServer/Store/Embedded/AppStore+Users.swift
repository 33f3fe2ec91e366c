import Foundation
import OpenRealmWire

extension AppStore: AccountStore {
    /// Creates a user. For an email user, also claims the email.
    ///
    /// - Returns: nil when the email is already registered.
    package func createUser(provider: String, email: String?, passwordHash: String?) throws -> UserRecord? {
        let id = Self.randomHex(16)
        return try environment.write { txn -> UserRecord? in
            if let email {
                if try txn.readRow("__user_emails", .string(email)) != nil { return nil }
                try txn.insertRow("__user_emails", ["_id": .string(email), "userId": .string(id)])
            }
            try txn.insertRow("__users", [
                "_id": .string(id), "provider": .string(provider),
                "email": email.map { .string($0) } ?? .null,
                "passwordHash": passwordHash.map { .string($0) } ?? .null,
                "createdAt": .int(Self.nowMilliseconds),
            ])
            return UserRecord(id: id, provider: provider, email: email, passwordHash: passwordHash)
        }
    }

    /// The user `id` of an external provider, created on its first login; its email
    /// (not claimed for email/password login) is updated when it changes.
    package func externalUser(id: String, provider: String, email: String?) throws -> UserRecord {
        try environment.write { txn -> UserRecord in
            if let existing = try Self.user(txn, id: id) {
                if existing.email != email {
                    try txn.updateRow("__users", .string(id), ["email": email.map { .string($0) } ?? .null])
                }
                return UserRecord(id: id, provider: existing.provider, email: email, passwordHash: nil)
            }
            try txn.insertRow("__users", [
                "_id": .string(id), "provider": .string(provider), "email": email.map { .string($0) } ?? .null,
                "passwordHash": .null, "createdAt": .int(Self.nowMilliseconds),
            ])
            return UserRecord(id: id, provider: provider, email: email, passwordHash: nil)
        }
    }

    /// The user with `id`, or nil.
    package func user(id: String) throws -> UserRecord? {
        try environment.read { txn in try Self.user(txn, id: id) }
    }

    /// The user registered with `email`, or nil.
    package func user(email: String) throws -> UserRecord? {
        try environment.read { txn -> UserRecord? in
            guard let row = try txn.readRow("__user_emails", .string(email)), let id = row.string("userId") else { return nil }
            return try Self.user(txn, id: id)
        }
    }

    static func user(_ txn: StoreTransaction, id: String) throws -> UserRecord? {
        guard let row = try txn.readRow("__users", .string(id)) else { return nil }
        return record(row, id: id)
    }

    private static func record(_ row: [String: WireValue], id: String) -> UserRecord {
        UserRecord(id: id, provider: row.string("provider") ?? "", email: row.string("email"),
                   passwordHash: row.string("passwordHash"), emailConfirmed: row.bool("emailConfirmed") ?? false,
                   createdAt: row.int("createdAt") ?? 0)
    }

    package func allUsers() throws -> [UserRecord] {
        try environment.read { txn in
            try txn.allRows("__users").compactMap { row in row.string("_id").map { Self.record(row, id: $0) } }
        }
    }

    /// Stores a new refresh token.
    package func storeRefreshToken(_ token: RefreshTokenRecord) throws {
        try environment.write { txn in
            try txn.insertRow("__refresh_tokens", [
                "_id": .string(token.id), "userId": .string(token.userId),
                "expiresAt": .int(token.expiresAt), "revoked": .bool(token.revoked),
            ])
        }
    }

    /// The refresh token with `id`, or nil.
    package func refreshToken(id: String) throws -> RefreshTokenRecord? {
        try environment.read { txn -> RefreshTokenRecord? in
            guard let row = try txn.readRow("__refresh_tokens", .string(id)) else { return nil }
            return RefreshTokenRecord(id: id, userId: row.string("userId") ?? "", expiresAt: row.int("expiresAt") ?? 0,
                                      revoked: row.bool("revoked") ?? true)
        }
    }

    /// Marks a refresh token revoked; nothing when it does not exist.
    package func revokeRefreshToken(id: String) throws {
        try environment.write { txn in
            if try txn.readRow("__refresh_tokens", .string(id)) != nil {
                try txn.updateRow("__refresh_tokens", .string(id), ["revoked": .bool(true)])
            }
        }
    }

    /// Removes user `id`: its record, its email claim, its API keys, and revokes its
    /// refresh tokens. Access tokens it holds are refused from then on (the user no
    /// longer exists). Nothing when the user does not exist.
    package func removeUser(id: String) throws {
        try environment.write { txn in
            guard let user = try Self.user(txn, id: id) else { return }
            if let email = user.email, user.provider == "local-userpass" { try txn.deleteRow("__user_emails", .string(email)) }
            for key in try Self.apiKeys(txn, userId: id) { try Self.deleteAPIKey(txn, id: key.id) }
            for row in try txn.allRows("__refresh_tokens") where row.string("userId") == id {
                if let tokenId = row.string("_id") { try txn.updateRow("__refresh_tokens", .string(tokenId), ["revoked": .bool(true)]) }
            }
            try txn.deleteRow("__users", .string(id))
        }
    }

    /// `count` random bytes as lowercase hex (``StorageConventions/randomHex(_:)``).
    package static func randomHex(_ count: Int) -> String { StorageConventions.randomHex(count) }
}
