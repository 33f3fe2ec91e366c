import ORCore

/// An ORCore environment (one realm file) and the one place its transactions begin and
/// end: every status is checked where it comes back and thrown as ``ORCoreError``.
///
/// The handle is either **owned** (opened by ``init(path:flags:fileMode:)`` and closed
/// when this object goes) or **borrowed** (``init(borrowing:path:from:)``: the client's
/// `RealmCoordinator` opened it and closes it; this object keeps the owner alive and
/// never closes the handle). Either way the handle is closed once, by its owner.
///
/// Threading: transactions run through ``read(_:)`` and ``write(_:)``, whose bodies are
/// synchronous, so a write transaction begins and ends on one thread as ORCore
/// requires. Writers are serialized by ORCore's writer lock.
public final class ORCoreEnvironment: @unchecked Sendable {
    /// The ORCore handle, valid while this object lives.
    public let handle: OpaquePointer
    /// The path the file was opened with.
    public let path: String
    /// The owner of a borrowed handle (kept alive with it), or nil when the handle is ours.
    private let owner: AnyObject?

    /// Opens the file at `path` (creating it unless `flags` has `ORC_ENV_NO_CREATE` or
    /// `ORC_ENV_READ_ONLY`); a new file and its lock file get `fileMode` (0: 0644).
    ///
    /// - Throws: ``ORCoreError`` with ORCore's status: not found, not a realm, damaged,
    ///   permission denied (an errno value), ...
    public init(path: String, flags: UInt32 = 0, fileMode: UInt32 = 0) throws(ORCoreError) {
        var options = orc_env_options()
        options.file_mode = fileMode
        var env: OpaquePointer?
        let status = orc_env_open(path, flags, &options, &env)
        guard status == ORC_OK, let env else { throw ORCoreError.failure(status, "open '\(path)'") }
        handle = env
        self.path = path
        owner = nil
    }

    /// Uses `handle`, which `owner` opened and will close, keeping `owner` alive as long
    /// as this object.
    public init(borrowing handle: OpaquePointer, path: String, from owner: AnyObject) {
        self.handle = handle
        self.path = path
        self.owner = owner
    }

    deinit {
        if owner == nil { orc_env_close(handle) }
    }

    /// Whether this object closes the handle when it goes (it opened it).
    public var ownsHandle: Bool { owner == nil }

    /// The number of the last committed transaction (each commit adds one).
    public func committedVersion() throws(ORCoreError) -> UInt64 {
        var version: UInt64 = 0
        try ORCoreError.check(orc_env_version(handle, &version), "read the committed version of '\(path)'")
        return version
    }

    /// Runs `body` in a read transaction, ended when `body` returns or throws.
    ///
    /// - Throws: ``ORCoreError`` when the transaction cannot begin; what `body` throws.
    public func read<T>(_ body: (ORCoreTransaction) throws -> T) throws -> T {
        var txn: OpaquePointer?
        try ORCoreError.check(orc_txn_begin(handle, Int32(ORC_TXN_READ), &txn), "begin a read transaction on '\(path)'")
        defer { orc_txn_abort(txn) }
        return try body(ORCoreTransaction(borrowing: txn!))
    }

    /// Runs `body` in a write transaction, then its deferred writes
    /// (``ORCoreTransaction/deferredWrite(_:)``), and commits; a throw aborts it, leaving
    /// nothing of it visible.
    ///
    /// - Throws: ``ORCoreError`` when the transaction cannot begin or commit; what
    ///   `body` or a deferred write throws.
    public func write<T>(_ body: (ORCoreTransaction) throws -> T) throws -> T {
        try writeReturningVersion(body).result
    }

    /// ``write(_:)``, also returning the version the commit made.
    public func writeReturningVersion<T>(_ body: (ORCoreTransaction) throws -> T) throws -> (result: T, version: UInt64) {
        var begun: OpaquePointer?
        try ORCoreError.check(orc_txn_begin(handle, Int32(ORC_TXN_WRITE), &begun), "begin a write transaction on '\(path)'")
        let txn = ORCoreTransaction(borrowing: begun!)
        let result: T
        do {
            result = try body(txn)
            try txn.finishDeferredWrites()
        } catch {
            orc_txn_abort(txn.handle)
            throw error
        }
        var version: UInt64 = 0
        try ORCoreError.check(orc_txn_commit(txn.handle, &version), "commit on '\(path)'")
        return (result, version)
    }

    /// `orc_env_check`: nil when the file is consistent, else how many problems it
    /// found and the error naming the first one.
    public func check() -> (problems: Int, first: ORCoreError)? {
        var problems = 0
        let status = orc_env_check(handle, &problems)
        if status == ORC_OK { return nil }
        return (max(problems, 1), ORCoreError.failure(status, "check '\(path)'"))
    }
}
