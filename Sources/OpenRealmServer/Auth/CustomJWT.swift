import Crypto
import Foundation

/// The custom JWT provider's settings, from `auth.customJWT` in the app configuration:
///
/// ```json
/// "auth": { "customJWT": { "key": "<shared secret, at least 32 characters>", "audience": "my-app",
///                          "issuer": "https://id.example.com", "maxLifetimeSeconds": 3600 } }
/// ```
///
/// Tokens are HS256 JWTs signed by the app's own identity service with `key` (its UTF-8
/// bytes). They must carry `sub` (the external user id) and `exp`, no more than
/// `maxLifetime` seconds ahead (a leaked long-lived token is refused); `aud` must equal
/// `audience` and `iss` must equal `issuer` when they are configured; `nbf`, when
/// present, must have passed; `email`, when present, becomes the user's email (for
/// `%user.email` in rules).
public struct CustomJWTConfiguration: Sendable, Hashable {
    /// The HMAC-SHA256 key.
    public var key: String
    /// The `aud` tokens must carry; nil accepts any.
    public var audience: String?
    /// The `iss` tokens must carry; nil accepts any.
    public var issuer: String?
    /// The most seconds a token's `exp` may lie ahead of now (default an hour).
    public var maxLifetime: Int64 = 3600

    /// Settings verifying with `key`, requiring `audience` and `issuer` when given.
    public init(key: String, audience: String? = nil, issuer: String? = nil, maxLifetime: Int64 = 3600) {
        self.key = key
        self.audience = audience
        self.issuer = issuer
        self.maxLifetime = maxLifetime
    }

    /// What a verified token says about its user.
    package struct Identity: Sendable, Hashable {
        var subject: String
        var email: String?
    }

    /// Verifies a token.
    ///
    /// - Throws: ``AuthError`` `InvalidSession` naming what is wrong (not a JWT, not
    ///   HS256, bad signature, missing `sub` or `exp`, wrong `aud`, `nbf` in the
    ///   future), `TokenExpired` past `exp`.
    package func verify(_ token: String, now: Int64) throws(AuthError) -> Identity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = JSONWebToken.unbase64url(parts[0]),
              let payload = JSONWebToken.unbase64url(parts[1]), let signature = JSONWebToken.unbase64url(parts[2]) else {
            throw .invalidSession("the custom JWT is not a JWT (three base64url parts)")
        }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              header["alg"] as? String == "HS256" else {
            throw .invalidSession("the custom JWT is not signed with HS256")
        }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: SymmetricKey(data: Data(key.utf8))) else {
            throw .invalidSession("the custom JWT's signature does not match the app's configured key")
        }
        guard let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw .invalidSession("the custom JWT's claims are not a JSON object")
        }
        guard let subject = claims["sub"] as? String, !subject.isEmpty else {
            throw .invalidSession("the custom JWT has no 'sub' claim (the user id)")
        }
        guard let exp = (claims["exp"] as? NSNumber)?.int64Value else {
            throw .invalidSession("the custom JWT has no numeric 'exp' claim")
        }
        guard exp > now else { throw .tokenExpired("the custom JWT expired at \(exp) (now \(now))") }
        guard exp - now <= maxLifetime else {
            throw .invalidSession("the custom JWT is valid for \(exp - now) s, more than the app's most, \(maxLifetime) s (auth.customJWT.maxLifetimeSeconds)")
        }
        if let issuer, claims["iss"] as? String != issuer {
            throw .invalidSession("the custom JWT's 'iss' is not '\(issuer)'")
        }
        if let nbf = (claims["nbf"] as? NSNumber)?.int64Value, nbf > now {
            throw .invalidSession("the custom JWT is not valid before \(nbf) (now \(now))")
        }
        if let audience {
            let aud = claims["aud"]
            let matches = (aud as? String) == audience || ((aud as? [String])?.contains(audience) ?? false)
            guard matches else { throw .invalidSession("the custom JWT's 'aud' is not '\(audience)'") }
        }
        return Identity(subject: subject, email: claims["email"] as? String)
    }

    /// The OpenRealm user id of an external subject: stable, 32 hex digits.
    static func userId(subject: String) -> String {
        SHA256.hash(data: Data(("custom-token\u{1F}" + subject).utf8)).prefix(16).map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
