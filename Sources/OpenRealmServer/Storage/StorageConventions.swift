import Crypto
import Foundation

/// What the engine and every store make the same way, whichever store holds the app:
/// the clock times are recorded by, random ids and secrets, how a secret is hashed for
/// keeping, and the names reserved for the server.
package enum StorageConventions {
    /// Milliseconds since the epoch, now.
    package static var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// `count` random bytes as lowercase hex.
    package static func randomHex(_ count: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            let b = UInt8.random(in: 0...255, using: &rng)
            return String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16)
        }.joined()
    }

    /// The SHA-256 of `text`'s UTF-8, 64 lowercase hexadecimal digits: how stores keep
    /// random secrets (API keys, mailed tokens).
    package static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }

    /// The SHA-256 of an API key, as stored.
    package static func apiKeyHash(_ key: String) -> String { sha256Hex(key) }

    /// The most keys a user may have (as the Realm app services allowed).
    package static let maxAPIKeysPerUser = 20

    /// Prefix of the server's own tables and hidden properties: clients cannot declare
    /// classes or properties starting with it.
    package static let reservedPrefix = "__"
}
