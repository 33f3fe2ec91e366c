import Crypto
import Foundation
import OpenRealmServer

extension FuzzTarget {
    /// Tokens a client presents: the server's own access and refresh tokens
    /// (`JSONWebToken`) and custom JWTs from an app's identity service (`CustomJWT`).
    ///
    /// The first byte picks the form of the rest:
    /// - even: the token text itself (the three-part split, base64url, the header check;
    ///   the signature stops everything else, since the fuzzer cannot forge HMACs);
    /// - odd: a header and a payload separated by a 0 byte, which the target encodes and
    ///   signs with the key both verifiers use, so the JSON parsing of the header and the
    ///   claims (types, `exp`, `nbf`, `aud`, `sub`) is reached.
    /// Checks: no crash; every outcome is a claim set or an `AuthError`.
    static let token = FuzzTarget(
        name: "token",
        summary: "JWTs: the server's access/refresh tokens and custom JWTs, raw or signed with the test key",
        run: { bytes in
            guard let mode = bytes.first else { return }
            let rest = Array(bytes.dropFirst())
            let token: String
            if mode % 2 == 0 {
                token = String(fuzzBytes: rest)
            } else {
                let cut = rest.firstIndex(of: 0) ?? rest.count
                token = signedToken(header: Array(rest[..<cut]), payload: Array(rest[min(cut + 1, rest.count)...]))
            }
            let now: Int64 = 1_700_000_000
            for kind in ["access", "refresh"] {
                _ = try? tokenVerifier.verify(token, kind: kind, now: now)
            }
            _ = try? customJWT.verify(token, now: now)
            _ = try? customJWTWithAudience.verify(token, now: now)
        },
        seeds: {
            let claims = [
                #"{"aud":"app","exp":1800000000,"iat":1700000000,"sub":"u1","typ":"access"}"#,
                #"{"aud":"app","exp":1800000000,"iat":1700000000,"jti":"r1","sub":"u1","typ":"refresh","provider":"local-userpass","email":"a@b.c"}"#,
                #"{"sub":"ext-1","exp":1800000000,"nbf":1600000000,"aud":["app","other"],"email":"x@y.z"}"#,
                #"{"sub":"ext-2","exp":1.8e9,"aud":"app"}"#,
            ]
            var seeds: [(name: String, bytes: [UInt8])] = []
            for (i, payload) in claims.enumerated() {
                let header = Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)
                seeds.append((name: "signed-\(i)", bytes: [1] + header + [0] + Array(payload.utf8)))
                seeds.append((name: "raw-\(i)", bytes: [0] + Array(signedToken(header: header, payload: Array(payload.utf8)).utf8)))
            }
            return seeds
        }
    )

    /// The key of every token the target signs, 32 bytes as `auth.customJWT.key` needs.
    static let tokenKey = "openrealm-fuzz-key-0123456789abcdef"
    static let tokenVerifier = JSONWebToken(key: SymmetricKey(data: Data(tokenKey.utf8)))
    static let customJWT = CustomJWTConfiguration(key: tokenKey)
    static let customJWTWithAudience = CustomJWTConfiguration(key: tokenKey, audience: "app")

    /// `base64url(header).base64url(payload).signature`, HS256 with ``tokenKey``.
    static func signedToken(header: [UInt8], payload: [UInt8]) -> String {
        func base64url(_ bytes: some DataProtocol) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let input = base64url(header) + "." + base64url(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(tokenKey.utf8)))
        return input + "." + base64url(Array(mac))
    }
}
