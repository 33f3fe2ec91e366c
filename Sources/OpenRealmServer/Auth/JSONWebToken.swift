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

/// HS256 JSON Web Tokens (RFC 7519), signed with a key of their app's own and verified
/// with the keys of a ring.
///
/// `header.payload.signature`, each base64url without padding; the header is
/// `{"alg":"HS256","kid":"<key id>","typ":"JWT"}` and any other `alg` is refused.
///
/// **Keys.** The server's signing key is a master key: each app signs with a key derived
/// from it for that app (HKDF-SHA256, the app id as info), so that one app's key never
/// signs another's tokens. `kid` names the master (a hash of it, not the key). The ring
/// holds the current master, which signs, and the previous ones (a rotation), which
/// still verify until their tokens expire. A token without `kid` was signed by an
/// earlier build with the master itself; it verifies against the current master.
///
/// `package` so that `openrealm-fuzz` (target `token`) can feed it tokens.
package struct JSONWebToken: Sendable {
    /// The master key that signs.
    let key: SymmetricKey
    /// The master keys that still verify, by key id: the current and the previous.
    private let ring: [String: SymmetricKey]
    /// The current master's key id.
    private let keyId: String

    /// Tokens signed with (keys derived from) `key`, and verified with it or with one
    /// of `previous`.
    package init(key: SymmetricKey, previous: [SymmetricKey] = []) {
        self.key = key
        keyId = Self.keyId(key)
        var ring: [String: SymmetricKey] = [:]
        for master in previous { ring[Self.keyId(master)] = master }
        ring[keyId] = key
        self.ring = ring
    }

    /// Tokens signed with the ring's current master and verified with any of its masters.
    package init(_ ring: SigningKeyRing) {
        self.init(key: ring.current, previous: ring.previous)
    }

    /// Whether the ring holds the master `keyId` names.
    func holds(keyId: String) -> Bool { ring[keyId] != nil }

    /// The key id a token's header names, or nil (none, or not a readable header);
    /// nothing in it is trusted: it only picks the key to check the signature with.
    static func keyId(ofToken token: String) -> String? {
        guard let end = token.firstIndex(of: "."), let header = unbase64url(token[..<end]),
              let fields = try? JSONSerialization.jsonObject(with: header) as? [String: Any] else { return nil }
        return fields["kid"] as? String
    }

    /// The id of a master key: 16 hex digits of a SHA-256 over it (which reveals nothing
    /// of the key).
    static func keyId(_ master: SymmetricKey) -> String {
        var hash = SHA256()
        hash.update(data: Data("openrealm-signing-key-id".utf8))
        master.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The key `master` gives the tokens of `appId`.
    static func appKey(_ master: SymmetricKey, appId: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: Data("openrealm-tokens".utf8), info: Data(appId.utf8),
                               outputByteCount: 32)
    }

    /// The signed token for `claims` (its app is `claims.aud`).
    func sign(_ claims: TokenClaims) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let header = Self.base64url(Data(#"{"alg":"HS256","kid":"\#(keyId)","typ":"JWT"}"#.utf8))
        let payload = Self.base64url((try? encoder.encode(claims)) ?? Data())
        let input = header + "." + payload
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: Self.appKey(key, appId: claims.aud))
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
        // The claims name the app whose key signed them; nothing is trusted before the
        // signature is checked with that key.
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: payload) else {
            throw .invalidSession("the \(kind) token's claims are malformed")
        }
        let verifier: SymmetricKey
        if let kid = header["kid"] {
            guard let kid = kid as? String, let master = ring[kid] else {
                throw .invalidSession("the \(kind) token was signed with a key this server no longer has; log in again")
            }
            verifier = Self.appKey(master, appId: claims.aud)
        } else {
            verifier = key
        }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: verifier) else {
            throw .invalidSession("the \(kind) token's signature does not match this server's key")
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
