import Crypto
import _CryptoExtras
import Foundation

/// Salted scrypt password hashes, stored as
/// `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>` so that the cost can change
/// without invalidating stored hashes.
package struct PasswordHasher: Sendable {
    /// scrypt's N (a power of two). 16384 by default.
    var rounds: Int = 16384
    /// scrypt's r.
    var blockSize: Int = 8
    /// scrypt's p.
    var parallelism: Int = 1

    /// The hash of `password` with a new random 16-byte salt.
    func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &rng) }
        let derived = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(derived.base64EncodedString())"
    }

    /// Whether `password` matches `stored` (a string from ``hash(_:)``). A malformed
    /// stored hash matches nothing.
    func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              n > 1, n <= 1 << 20, n & (n - 1) == 0, r > 0, r <= 32, p > 0, p <= 16,
              let salt = Data(base64Encoded: String(parts[4])), let expected = Data(base64Encoded: String(parts[5])),
              let derived = try? derive(password, salt: Array(salt), rounds: n, blockSize: r, parallelism: p) else {
            return false
        }
        return Self.constantTimeEqual(derived, expected)
    }

    /// Whether two byte strings are equal, in a time that depends on their lengths only
    /// (not on where they first differ): for secrets and their hashes.
    package static func constantTimeEqual<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }

    private func derive(_ password: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: 32,
                                           rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }
}
