import Foundation
import OpenRealmWire

/// A user as the store keeps it.
package struct UserRecord: Sendable, Hashable {
    /// The user id (32 hex digits).
    package var id: String
    /// `anon-user` or `local-userpass`.
    package var provider: String
    /// The email, for email/password users.
    package var email: String?
    /// The scrypt hash (``PasswordHasher``), for email/password users.
    package var passwordHash: String?
    /// Whether an email/password user proved the address (a confirmation or a password
    /// reset mail's token).
    package var emailConfirmed = false
    /// When it was created (milliseconds since the epoch; 0 when unknown).
    package var createdAt: Int64 = 0

    package init(id: String, provider: String, email: String?, passwordHash: String?, emailConfirmed: Bool = false,
                 createdAt: Int64 = 0) {
        self.id = id
        self.provider = provider
        self.email = email
        self.passwordHash = passwordHash
        self.emailConfirmed = emailConfirmed
        self.createdAt = createdAt
    }

    /// The email rules may trust (`%user.email`): a custom JWT's (the app's identity
    /// service vouches for it) or a confirmed email/password address; nil otherwise.
    var verifiedEmail: String? {
        switch provider {
        case "custom-token": return email
        case "local-userpass": return emailConfirmed ? email : nil
        default: return nil
        }
    }
}

/// A refresh token's record: the token itself is a JWT whose `jti` is ``id``.
package struct RefreshTokenRecord: Sendable, Hashable {
    package var id: String
    package var userId: String
    package var expiresAt: Int64
    package var revoked: Bool

    package init(id: String, userId: String, expiresAt: Int64, revoked: Bool) {
        self.id = id
        self.userId = userId
        self.expiresAt = expiresAt
        self.revoked = revoked
    }
}

/// A user API key as the store keeps it: never the key itself, only its SHA-256.
///
/// Keys are 64 hexadecimal digits (256 random bits), so a fast hash is enough: nothing
/// short of the key finds a preimage, unlike a password.
package struct APIKeyRecord: Sendable, Hashable {
    /// The key's id (24 hexadecimal digits, an ObjectId).
    package var id: String
    package var userId: String
    package var name: String
    /// The SHA-256 of the key, 64 hexadecimal digits.
    package var keyHash: String
    package var disabled: Bool
    /// When it was created (milliseconds since the epoch).
    package var createdAt: Int64 = 0

    package init(id: String, userId: String, name: String, keyHash: String, disabled: Bool, createdAt: Int64 = 0) {
        self.id = id
        self.userId = userId
        self.name = name
        self.keyHash = keyHash
        self.disabled = disabled
        self.createdAt = createdAt
    }
}
