import Foundation
import ORCore

/// A realm: a database of model objects in one file (or in memory).
///
/// ```swift
/// let realm = try Realm(configuration: config)
/// try realm.write {
///     realm.add(Task(value: ["taskName": "Write docs"]))
/// }
/// let open = realm.objects(Task.self).where { $0.completed == false }
/// ```
///
/// A `Realm` instance, and the objects and results read from it, belong to the thread
/// (or actor) that opened it. It reads a consistent snapshot of the file, which moves
/// forward when it writes, on `refresh()`, and when notifications are delivered.
public final class Realm {
    public typealias Error = RealmError

    /// What `add(_:update:)` and `create(_:value:update:)` do with an existing object
    /// that has the same primary key.
    public enum UpdatePolicy: Int, Sendable {
        /// Fail: a duplicate primary key is an error.
        case error = 1
        /// Overwrite only the properties whose values differ.
        case modified = 3
        /// Overwrite every property.
        case all = 2
    }

    /// The configuration the realm was opened with.
    public let configuration: Configuration
    let _coordinator: RealmCoordinator
    /// The transaction state, shared by every live instance of the file on this thread.
    let state: RealmState
    /// The read snapshot, shared with frozen realms made from this one.
    var snapshot: ReadSnapshot? {
        get { state.snapshot }
        set { state.snapshot = newValue }
    }
    var writeTxn: OpaquePointer? {
        get { state.writeTxn }
        set { state.writeTxn = newValue }
    }
    /// The first failure inside the current write; the write rolls back and throws it.
    var pendingWriteError: RealmError? {
        get { state.pendingWriteError }
        set { state.pendingWriteError = newValue }
    }
    var arena: ByteArena { state.arena }
    /// True for a frozen realm: its snapshot never moves and it cannot write.
    public let isFrozen: Bool
    /// Whether the realm moves to the latest version when notifications are delivered.
    public var autorefresh: Bool = true

    /// Opens the default realm.
    public convenience init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    /// Opens (creating unless read-only) the realm the configuration names, checking
    /// the models against the stored schema and running the migration if the schema
    /// version rose.
    ///
    /// - Throws: `Realm.Error` — `.fileNotFound` (read-only and missing), `.invalidDatabase`
    ///   (not a realm, or damaged), `.filePermissionDenied`, `.schemaMismatch` (the models
    ///   differ and no migration applies; the message lists the differences), `.fail`.
    public convenience init(configuration: Configuration) throws {
        self.init(coordinator: try Realm.openCoordinator(configuration), configuration: configuration, frozen: nil)
    }

    /// Opens the file and brings its schema and the models together.
    static func openCoordinator(_ configuration: Configuration) throws -> RealmCoordinator {
        var coordinator: RealmCoordinator? = try RealmCoordinator.coordinator(for: configuration)
        do {
            try SchemaSetup.prepare(coordinator!, configuration)
        } catch is SchemaSetup.DeleteAndRetry {
            coordinator = try RealmCoordinator.recreate(&coordinator, configuration)
            try SchemaSetup.prepare(coordinator!, configuration)
        }
        return coordinator!
    }

    init(coordinator: RealmCoordinator, configuration: Configuration, frozen: ReadSnapshot?, privateState: Bool = false) {
        _coordinator = coordinator
        self.configuration = configuration
        isFrozen = frozen != nil
        if let frozen {
            state = RealmState()
            state.snapshot = frozen
        } else if privateState {
            state = RealmState()
        } else {
            state = RealmState.forCurrentThread(coordinator)
        }
    }

    // MARK: Transactions

    /// The transaction reads go through: the write transaction, or the read snapshot.
    var txn: OpaquePointer {
        if let writeTxn { return writeTxn }
        if let snapshot { return snapshot.txn }
        let fresh = ReadSnapshot(_coordinator)
        snapshot = fresh
        return fresh.txn
    }

    /// The version of the snapshot this realm reads.
    var snapshotVersion: UInt64 { orc_txn_version(txn) }

    /// Whether the realm is inside a write transaction.
    public var isInWriteTransaction: Bool { writeTxn != nil }

    /// Begins a write transaction; pair it with `commitWrite()` or `cancelWrite()`.
    /// Waits while another thread or process writes. The realm moves to the latest version.
    ///
    /// As in the Realm Swift SDK this cannot throw: beginning a write inside a write, or on
    /// a read-only or frozen realm, stops with a message. `write { }` throws those instead.
    public func beginWrite() {
        do { try _beginWrite() } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
    }

    /// Begins a write transaction.
    ///
    /// - Throws: `.wrongTransactionState` when already in a write, `.readOnly` for a
    ///   read-only or frozen realm, or a storage error.
    func _beginWrite() throws {
        guard writeTxn == nil else {
            throw RealmError(.wrongTransactionState, "The realm is already in a write transaction.")
        }
        guard !isFrozen else { throw RealmError(.readOnly, "Cannot write to a frozen realm.") }
        guard !configuration.readOnly else {
            throw RealmError(.readOnly, "Cannot write to the read-only realm at '\(_coordinator.path)'.")
        }
        // A read snapshot held by this thread would block map growth during the write.
        snapshot = nil
        var txn: OpaquePointer?
        try ORC.check(orc_txn_begin(_coordinator.env, Int32(ORC_TXN_WRITE), &txn), "Beginning a write transaction")
        writeTxn = txn
        pendingWriteError = nil
    }

    /// Commits the write transaction.
    ///
    /// - Throws: the first failure of a write inside the transaction (a duplicate
    ///   primary key, a wrong type) — the whole transaction is then rolled back — or a
    ///   storage error (disk full).
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        guard let txn = writeTxn else {
            throw RealmError(.wrongTransactionState, "Cannot commit: the realm is not in a write transaction.")
        }
        writeTxn = nil
        arena.reset()
        if let error = pendingWriteError {
            pendingWriteError = nil
            orc_txn_abort(txn)
            throw error
        }
        var version: UInt64 = 0
        try ORC.check(orc_txn_commit(txn, &version), "Committing the write transaction")
        _didCommit(version: version, skipping: tokens)
    }

    /// Discards every change of the write transaction.
    public func cancelWrite() {
        guard let txn = writeTxn else {
            preconditionFailure("Cannot cancel a write: the realm is not in a write transaction.")
        }
        writeTxn = nil
        pendingWriteError = nil
        arena.reset()
        orc_txn_abort(txn)
    }

    /// Runs `block` in a write transaction and commits it, returning the block's result.
    /// If the block throws, or a write in it fails, nothing of it is committed and the
    /// error is thrown.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try _beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Records a failure of a non-throwing write inside the transaction: the write will
    /// roll back and throw it.
    func _failWrite(_ error: Swift.Error) {
        guard pendingWriteError == nil else { return }
        pendingWriteError = (error as? RealmError) ?? RealmError(.fail, "\(error)")
    }

    /// Stops unless the realm is in a write transaction (Realm's rule for non-throwing writes).
    func requireWrite(_ what: @autoclosure () -> String = "modify objects") {
        if writeTxn == nil {
            if isFrozen { preconditionFailure("Cannot \(what()) in a frozen realm.") }
            preconditionFailure("Cannot \(what()) outside of a write transaction: call beginWrite() or write { } on the realm first.")
        }
    }

    /// Moves the realm to the latest version. Returns whether anything changed.
    @discardableResult
    public func refresh() -> Bool {
        guard !isFrozen, writeTxn == nil, snapshot != nil else { return false }
        let before = orc_txn_version(snapshot!.txn)
        if !isKnownUniquelyReferenced(&state.snapshot!) || orc_txn_renew(snapshot!.txn) != ORC_OK {
            snapshot = nil
        }
        let after = snapshotVersion
        if after != before { _didAdvance() }
        return after != before
    }

    /// Releases the realm's snapshot; the next read starts from the latest version.
    public func invalidate() {
        guard !isFrozen else { return }
        if writeTxn != nil { cancelWrite() }
        snapshot = nil
    }

    /// Called after this realm committed: the next read sees the new version.
    func _didCommit(version: UInt64, skipping tokens: [NotificationToken]) {
        _didAdvance()
    }

    /// Hook for notifications (the live-objects layer) when the snapshot moves.
    func _didAdvance() {}

    // MARK: Information

    /// The schema of the realm's file.
    public var schema: Schema { _coordinator.storedSchema(txn).publicSchema }

    /// Whether a file exists for the configuration (for in-memory realms: whether one is open).
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard let path = try? configuration.resolvedPath() else { return false }
        if configuration.isInMemory { return RealmCoordinator.isOpen(path) }
        return FileManager.default.fileExists(atPath: path)
    }

    /// Deletes the realm's file and its lock file. Returns whether a file existed.
    ///
    /// - Throws: `.alreadyOpen`-style `.fileAccess` when this process has the realm open,
    ///   or the file system's error.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        let path = try configuration.resolvedPath()
        if RealmCoordinator.isOpen(path) {
            throw RealmError(.fileAccess, "Cannot delete the files of '\(path)': the realm is open in this process.")
        }
        let existed = FileManager.default.fileExists(atPath: path)
        try ORC.check(orc_env_delete_files(path), "Deleting '\(path)'")
        return existed
    }
}

extension Realm: Equatable {
    /// Two instances are equal when they are the same realm on the same thread (they
    /// share their transaction state), or the same frozen instance.
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.state === rhs.state }
}

/// What the live `Realm` instances of one file on one thread share, as Realm's
/// per-thread instance cache does: the read snapshot and the write transaction. A
/// write through one instance is seen by the others at once, and
/// `isInWriteTransaction` agrees between them.
final class RealmState {
    var snapshot: ReadSnapshot?
    var writeTxn: OpaquePointer?
    var pendingWriteError: RealmError?
    let arena = ByteArena()
    /// How deep `create` is inside nested values (a guard against cycles).
    var createDepth = 0

    deinit {
        if let writeTxn { orc_txn_abort(writeTxn) }
    }

    private final class WeakBox {
        weak var state: RealmState?
        init(_ state: RealmState) { self.state = state }
    }

    static func forCurrentThread(_ coordinator: RealmCoordinator) -> RealmState {
        let key = "openrealm.state." + coordinator.path
        let dictionary = Thread.current.threadDictionary
        if let box = dictionary[key] as? WeakBox, let state = box.state { return state }
        let state = RealmState()
        dictionary[key] = WeakBox(state)
        return state
    }
}

extension Realm: CustomStringConvertible {
    public var description: String { "Realm(\(configuration.isInMemory ? "in memory: \(configuration.inMemoryIdentifier!)" : _coordinator.path))" }
}
