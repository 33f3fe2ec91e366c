import Crypto
import Foundation
import OpenRealmServer
import PostgresNIO

extension EmbeddedStoreMigration {
    /// Makes `ring` the database's signing keys (``PostgresSigningKeys``): its current
    /// key current, its retired keys retired (newest first, as the ring lists them), so
    /// that every access and refresh token the embedded server issued verifies (a
    /// token's key id is a hash of its key, so the same key has the same id). Under the
    /// key lock, in one transaction.
    ///
    /// - Returns: true when written; false when the database's current key is the ring's
    ///   already (a second migration of the same data directory, of other apps).
    /// - Throws: ``ServerError`` when the database has other keys (its own servers' tokens
    ///   and the data directory's cannot both keep verifying): nothing written.
    static func adoptSigningKeys(_ ring: SigningKeyRing, in database: DatabasePool) throws -> Bool {
        func bytes(_ key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }
        return try database.unit("move the signing keys") { unit in
            try unit.perform("SELECT pg_advisory_xact_lock(\(PostgresSigningKeys.lockKey))")
            let current = try unit.query("SELECT key FROM openrealm_signing_keys WHERE retired_at IS NULL") { rows in
                var key: Data?
                for try await value in rows.decode(Data.self) { key = value }
                return key
            }
            if let current {
                guard current == bytes(ring.current) else {
                    throw ServerError("the database \(database.location) has signing keys of its own, not the data directory's: "
                        + "tokens issued by either could not all verify; nothing was moved (migrate into a database no server has "
                        + "started on, or into the one earlier apps of this data directory moved to)")
                }
                return false
            }
            let now = StorageConventions.nowMilliseconds
            // Oldest first: the ring is read newest first by id among the retired.
            for retired in ring.previous.reversed() {
                try unit.perform("""
                    INSERT INTO openrealm_signing_keys (key, created_at, retired_at) VALUES (\(bytes(retired)), \(now), \(now))
                    """)
            }
            try unit.perform("INSERT INTO openrealm_signing_keys (key, created_at) VALUES (\(bytes(ring.current)), \(now))")
            return true
        }
    }
}
