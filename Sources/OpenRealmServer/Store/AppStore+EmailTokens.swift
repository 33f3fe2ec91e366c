import Foundation
import OpenRealmWire

extension AppStore {
    /// Stores a mailed token pair for `userId`: only the SHA-256 of `token` is kept.
    /// Earlier pairs of the same purpose for the user are dropped, so only the newest
    /// mail works, and so are expired pairs of anyone: the table holds at most one live
    /// pair per user and purpose.
    func storeEmailToken(id: String, token: String, userId: String, purpose: OutgoingMail.Purpose, now: Int64, expiresAt: Int64) throws {
        try environment.write { txn in
            for row in try txn.allRows("__email_tokens")
            where (row.string("userId") == userId && row.string("purpose") == purpose.rawValue) || (row.int("expiresAt") ?? 0) <= now {
                if let old = row.string("_id") { try txn.deleteRow("__email_tokens", .string(old)) }
            }
            try txn.insertRow("__email_tokens", [
                "_id": .string(id), "userId": .string(userId), "purpose": .string(purpose.rawValue),
                "tokenHash": .string(Self.sha256Hex(token)), "expiresAt": .int(expiresAt),
            ])
        }
    }

    /// Uses up the pair (`id`, `token`) of `purpose`: when it matches and has not
    /// expired, deletes it and runs `body` with its user in the same transaction.
    ///
    /// - Returns: nil (and changes nothing) when no such live pair exists: an unknown
    ///   id, the wrong token, another purpose, an expired pair all look the same.
    func useEmailToken<T>(id: String, token: String, purpose: OutgoingMail.Purpose, now: Int64,
                          _ body: (StoreTransaction, UserRecord) throws -> T) throws -> T? {
        try environment.write { txn -> T? in
            guard let row = try txn.readRow("__email_tokens", .string(id)) else { return nil }
            let matches = PasswordHasher.constantTimeEqual((row.string("tokenHash") ?? "").utf8, Self.sha256Hex(token).utf8)
            guard matches, row.string("purpose") == purpose.rawValue, (row.int("expiresAt") ?? 0) > now,
                  let userId = row.string("userId"), let user = try Self.user(txn, id: userId) else { return nil }
            try txn.deleteRow("__email_tokens", .string(id))
            return try body(txn, user)
        }
    }

    /// Marks the user's email confirmed, inside a write.
    static func confirmEmail(_ txn: StoreTransaction, userId: String) throws {
        try txn.updateRow("__users", .string(userId), ["emailConfirmed": .bool(true)])
    }

    /// Replaces the user's password hash and revokes its refresh tokens, inside a write.
    static func replacePassword(_ txn: StoreTransaction, userId: String, hash: String) throws {
        try txn.updateRow("__users", .string(userId), ["passwordHash": .string(hash)])
        for row in try txn.allRows("__refresh_tokens") where row.string("userId") == userId {
            if let tokenId = row.string("_id") { try txn.updateRow("__refresh_tokens", .string(tokenId), ["revoked": .bool(true)]) }
        }
    }
}
