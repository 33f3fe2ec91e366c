import Foundation
import ORCore

/// One ORCore environment (a file), owned by this handle and closed with it.
///
/// Threading: transactions are run through ``read(_:)`` and ``write(_:)``, whose bodies
/// are synchronous, so a write transaction begins and ends on one thread as ORCore
/// requires. Writers are serialized by ORCore's writer lock.
final class StoreEnvironment: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String

    /// Opens (creating) the environment at `path`.
    ///
    /// The store keeps no ORCore changeset log (`ORC_ENV_NO_LOG`): its history is the
    /// server's own (`__history`), and nothing reads the engine's; a store an earlier
    /// build wrote has its log emptied by the first commit.
    ///
    /// - Throws: ``StoreError`` when ORCore cannot open the file (not a realm, damaged,
    ///   permission denied, ...).
    init(path: String) throws(StoreError) {
        var env: OpaquePointer?
        var options = orc_env_options()
        options.file_mode = 0o600 // the file and its lock file: private to the server's user
        let status = orc_env_open(path, UInt32(ORC_ENV_NO_LOG), &options, &env)
        guard status == ORC_OK, let env else { throw StoreError.orcore(status, "open store '\(path)'") }
        self.handle = env
        self.path = path
    }

    deinit {
        orc_env_close(handle)
    }

    /// The number of the last committed transaction (each commit adds one).
    func committedVersion() throws -> UInt64 {
        var version: UInt64 = 0
        try StoreError.check(orc_env_version(handle, &version), "read the committed version")
        return version
    }

    /// Runs `body` in a read transaction.
    func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        var txn: OpaquePointer?
        try StoreError.check(orc_txn_begin(handle, Int32(ORC_TXN_READ), &txn), "begin read transaction")
        let t = StoreTransaction(txn!)
        defer { orc_txn_abort(t.handle) }
        return try body(t)
    }

    /// Runs `body` in a write transaction and commits it; a throw aborts it, leaving
    /// nothing of it visible.
    func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        var txn: OpaquePointer?
        try StoreError.check(orc_txn_begin(handle, Int32(ORC_TXN_WRITE), &txn), "begin write transaction")
        let t = StoreTransaction(txn!)
        let result: T
        do {
            result = try body(t)
            try t.finishDeferredWrites()
        } catch {
            orc_txn_abort(t.handle)
            throw error
        }
        try StoreError.check(orc_txn_commit(t.handle, nil), "commit")
        return result
    }
}
