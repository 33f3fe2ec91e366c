import Crypto
import Foundation

/// The claims of the server's tokens.
///
/// Access tokens (`typ` = `access`) are short-lived and authenticate sync binds and
/// profile requests; refresh tokens (`typ` = `refresh`) live longer, carry the id of
/// their stored record (`jti`) so that logout can revoke them, and only mint access
/// tokens.
package struct TokenClaims: Codable, Sendable, Hashable {
    /// The user id.
    var sub: String
    /// The app id the token is for.
    var aud: String
    /// `access` or `refresh`.
    var typ: String
    /// Issued at, seconds since the epoch.
    var iat: Int64
    /// Expires at, seconds since the epoch.
    var exp: Int64
    /// The refresh token's record id (refresh tokens only).
    var jti: String?
    /// The user's email, for email/password users.
    var email: String?
    /// The auth provider that logged the user in (`anon-user`, `local-userpass`).
    var provider: String?
}

/// HS256 JSON Web Tokens (RFC 7519), signed and verified with one HMAC-SHA256 key.
///
/// `header.payload.signature`, each base64url without padding; the header is always
/// `{"alg":"HS256","typ":"JWT"}` and any other `alg` is refused.
///
/// `package` so that `openrealm-fuzz` (target `token`) can feed it tokens.
package struct JSONWebToken: Sendable {
    let key: SymmetricKey

    /// Tokens signed and verified with `key`.
    package init(key: SymmetricKey) {
        self.key = key
    }

    private static let header = base64url(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    /// The signed token for `claims`.
    func sign(_ claims: TokenClaims) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = Self.base64url((try? encoder.encode(claims)) ?? Data())
        let input = Self.header + "." + payload
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key)
        return input + "." + Self.base64url(Data(mac))
    }

    /// The claims of a token this key signed.
    ///
    /// - Parameters:
    ///   - token: the compact JWT.
    ///   - kind: the `typ` the token must have.
    ///   - now: the current time in seconds since the epoch.
    /// - Throws: ``AuthError`` `InvalidSession` for a malformed token, another
    ///   algorithm, a bad signature or the wrong kind; `TokenExpired` past `exp`.
    package func verify(_ token: String, kind: String, now: Int64) throws(AuthError) -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.unbase64url(parts[0]), let payload = Self.unbase64url(parts[1]),
              let signature = Self.unbase64url(parts[2]) else {
            throw .invalidSession("the \(kind) token is not a JWT (three base64url parts)")
        }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              header["alg"] as? String == "HS256" else {
            throw .invalidSession("the \(kind) token is not signed with HS256")
        }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key) else {
            throw .invalidSession("the \(kind) token's signature does not match this server's key")
        }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: payload) else {
            throw .invalidSession("the \(kind) token's claims are malformed")
        }
        guard claims.typ == kind else {
            throw .invalidSession("a \(claims.typ) token was given where a \(kind) token is needed")
        }
        guard claims.exp > now else {
            throw .tokenExpired("the \(kind) token expired at \(claims.exp) (now \(now)); \(kind == "access" ? "refresh it" : "log in again")")
        }
        return claims
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: Substring) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !s.contains("=") else { return nil }
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
