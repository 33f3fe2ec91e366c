import Foundation
import OpenRealmWire

extension AppStore {
    /// Assigns a new client file identity to a file of `userId`, in its own transaction.
    func newClientFile(userId: String) throws -> ClientFileRecord {
        try environment.write { txn in try Self.createClientFile(txn, userId: userId) }
    }

    /// Assigns a new client file identity to a file of `userId` in `txn`.
    static func createClientFile(_ txn: StoreTransaction, userId: String) throws -> ClientFileRecord {
        // Salts travel as u64 but ORCore ints are signed: keep them in 0 ..< 2^63.
        let salt = UInt64.random(in: 1...UInt64(Int64.max))
        let ident = try txn.metaUInt64("server.next_ident") ?? 1
        try txn.setMeta("server.next_ident", ident + 1)
        try txn.insertRow("__client_files", [
            "_id": .int(Int64(ident)), "salt": .int(Int64(salt)), "userId": .string(userId),
            "lastIntegratedClientVersion": .int(0), "createdAt": .int(Self.nowMilliseconds),
            // Its changesets are based on nothing (0) or on a version it downloaded,
            // which comes after this one (see AppStore+Trimming.swift).
            "uploadBase": .int(Int64(try txn.metaUInt64("server.version") ?? 0)),
        ])
        return ClientFileRecord(ident: ident, salt: salt, userId: userId, lastIntegratedClientVersion: 0)
    }

    /// The client file `ident`, or nil.
    func clientFile(ident: UInt64) throws -> ClientFileRecord? {
        guard ident <= UInt64(Int64.max) else { return nil }
        return try environment.read { txn in try Self.clientFile(txn, ident: ident) }
    }

    static func clientFile(_ txn: StoreTransaction, ident: UInt64) throws -> ClientFileRecord? {
        guard let row = try txn.readRow("__client_files", .int(Int64(ident))) else { return nil }
        return ClientFileRecord(ident: ident, salt: UInt64(row.int("salt") ?? 0), userId: row.string("userId") ?? "",
                                lastIntegratedClientVersion: UInt64(row.int("lastIntegratedClientVersion") ?? 0))
    }
}
