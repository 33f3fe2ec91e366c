import Crypto
import Foundation
import OpenRealmServer
import PostgresNIO

/// The token signing keys in PostgreSQL (migration 5, ``PostgresSchema``), shared by
/// every process on the database: a token one process signed verifies at the others,
/// and a rotation made by one (or by `rotate-signing-key`) reaches the others within
/// ``rereadInterval``, or at once when they meet a token signed with the new key.
///
/// As with the data directory's files, a rotation keeps one retired key: it verifies
/// the tokens it signed until they expire, and the rotation after drops it (its tokens
/// then need a new login). Making the first key and rotating take one advisory lock, so
/// that processes starting together make one key and two rotations at once make two
/// keys in turn.
package struct PostgresSigningKeys: SigningKeyStore {
    package let database: DatabasePool
    package let rereadInterval: Duration?

    /// The advisory lock key of key changes ("ORLMSKEY").
    static let lockKey: Int64 = 0x4F52_4C4D_534B_4559

    package init(database: DatabasePool, rereadInterval: Duration = .seconds(60)) {
        self.database = database
        self.rereadInterval = rereadInterval
    }

    package func ring() throws -> SigningKeyRing {
        if let ring = try read() { return ring }
        return try change("make the first signing key") { unit in
            // Another process may have made it while this one waited for the lock.
            if try Self.current(in: unit) == nil { try Self.insertNew(in: unit) }
        }
    }

    package func rotate() throws -> SigningKeyRing {
        try change("rotate the signing key") { unit in
            try unit.perform("DELETE FROM openrealm_signing_keys WHERE retired_at IS NOT NULL")
            try unit.perform("""
                UPDATE openrealm_signing_keys SET retired_at = \(StorageConventions.nowMilliseconds) WHERE retired_at IS NULL
                """)
            try Self.insertNew(in: unit)
        }
    }

    /// The ring, or nil when there is no current key.
    private func read() throws -> SigningKeyRing? {
        try database.withConnection("read the signing keys") { [logger = database.logger] connection in
            try await Self.ring(from: connection.query(Self.selectRing, logger: logger))
        }
    }

    /// Runs `body` under the key lock in one transaction, and returns the ring it leaves.
    private func change(_ operation: String, _ body: (PostgresUnit) throws -> Void) throws -> SigningKeyRing {
        try database.unit(operation) { unit in
            try unit.perform("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
            try body(unit)
            guard let ring = try unit.query(Self.selectRing, { try await Self.ring(from: $0) }) else {
                throw PostgresStoreError(.statementFailed, "\(operation) on \(database.location) left no current signing key")
            }
            return ring
        }
    }

    /// Every key, the current one first, then the retired ones newest first.
    private static var selectRing: PostgresQuery {
        "SELECT key, retired_at IS NULL FROM openrealm_signing_keys ORDER BY retired_at DESC NULLS FIRST, id DESC"
    }

    private static func ring(from rows: PostgresRowSequence) async throws -> SigningKeyRing? {
        var current: SymmetricKey?
        var previous: [SymmetricKey] = []
        for try await (key, isCurrent) in rows.decode((Data, Bool).self) {
            if isCurrent { current = SymmetricKey(data: key) } else { previous.append(SymmetricKey(data: key)) }
        }
        return current.map { SigningKeyRing(current: $0, previous: previous) }
    }

    private static func current(in unit: PostgresUnit) throws -> Data? {
        try unit.query("SELECT key FROM openrealm_signing_keys WHERE retired_at IS NULL") { rows in
            var key: Data?
            for try await value in rows.decode(Data.self) { key = value }
            return key
        }
    }

    private static func insertNew(in unit: PostgresUnit) throws {
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        try unit.perform("""
            INSERT INTO openrealm_signing_keys (key, created_at) VALUES (\(key), \(StorageConventions.nowMilliseconds))
            """)
    }
}
