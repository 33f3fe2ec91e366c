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
    convenience init(path: String) throws(StoreError) {
        var options = orc_env_options()
        options.file_mode = 0o600 // the file and its lock file: private to the server's user
        try self.init(path: path, flags: UInt32(ORC_ENV_NO_LOG), options: &options, what: "open store '\(path)'")
    }

    /// Opens the existing environment at `path` read-only, for an operator's copy or
    /// check beside a server that may be writing it; `verify` checks every page's
    /// structure first (for files that may be damaged).
    ///
    /// - Throws: ``StoreError`` naming the file and ORCore's reason.
    convenience init(readingExisting path: String, verify: Bool) throws(StoreError) {
        let flags = UInt32(ORC_ENV_READ_ONLY) | UInt32(ORC_ENV_NO_CREATE) | (verify ? UInt32(ORC_ENV_VERIFY) : 0)
        try self.init(path: path, flags: flags, options: nil, what: "open '\(path)'")
    }

    private init(path: String, flags: UInt32, options: UnsafeMutablePointer<orc_env_options>?, what: String) throws(StoreError) {
        var env: OpaquePointer?
        let status = orc_env_open(path, flags, options, &env)
        guard status == ORC_OK, let env else { throw StoreError.orcore(status, what) }
        self.handle = env
        self.path = path
    }

    deinit {
        orc_env_close(handle)
    }

    /// The number of the last committed transaction (each commit adds one).
    func committedVersion() throws -> UInt64 {
        var version: UInt64 = 0
        try StoreError.check(orc_env_version(handle, &version), "read the committed version of '\(path)'")
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
