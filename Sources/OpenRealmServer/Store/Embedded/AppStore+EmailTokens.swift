import Foundation
import OpenRealmWire

extension AppStore {
    /// Earlier pairs of the same purpose for the user are dropped, so only the newest
    /// mail works, and so are expired pairs of anyone: the table holds at most one live
    /// pair per user and purpose.
    package func storeEmailToken(id: String, token: String, userId: String, purpose: OutgoingMail.Purpose, now: Int64, expiresAt: Int64) throws {
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

    package func consumeEmailToken(id: String, token: String, purpose: OutgoingMail.Purpose, now: Int64,
                           effect: EmailTokenEffect) throws -> UserRecord? {
        try environment.write { txn -> UserRecord? in
            guard let row = try txn.readRow("__email_tokens", .string(id)) else { return nil }
            let matches = PasswordHasher.constantTimeEqual((row.string("tokenHash") ?? "").utf8, Self.sha256Hex(token).utf8)
            guard matches, row.string("purpose") == purpose.rawValue, (row.int("expiresAt") ?? 0) > now,
                  let userId = row.string("userId"), let user = try Self.user(txn, id: userId) else { return nil }
            try txn.deleteRow("__email_tokens", .string(id))
            switch effect {
            case .confirmEmail:
                try Self.confirmEmail(txn, userId: user.id)
            case .resetPassword(let hash):
                try Self.replacePassword(txn, userId: user.id, hash: hash)
                try Self.confirmEmail(txn, userId: user.id)
            }
            return user
        }
    }

    /// Marks the user's email confirmed, inside a write.
    private static func confirmEmail(_ txn: StoreTransaction, userId: String) throws {
        try txn.updateRow("__users", .string(userId), ["emailConfirmed": .bool(true)])
    }

    /// Replaces the user's password hash and revokes its refresh tokens, inside a write.
    private static func replacePassword(_ txn: StoreTransaction, userId: String, hash: String) throws {
        try txn.updateRow("__users", .string(userId), ["passwordHash": .string(hash)])
        for row in try txn.allRows("__refresh_tokens") where row.string("userId") == userId {
            if let tokenId = row.string("_id") { try txn.updateRow("__refresh_tokens", .string(tokenId), ["revoked": .bool(true)]) }
        }
    }
}
