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
    package let _coordinator: RealmCoordinator
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
    /// The write context `add` used last. A context holds nothing of one call for the
    /// next, so a loop of adds with one policy shares one instead of allocating each.
    private var lastAddContext: _ORWriteContext?
    func addContext(_ policy: UpdatePolicy) -> _ORWriteContext {
        if let context = lastAddContext, context.policy == policy { return context }
        let context = _ORWriteContext(realm: self, policy: policy, arena: arena)
        lastAddContext = context
        return context
    }
    /// True for a frozen realm: its snapshot never moves and it cannot write.
    public let isFrozen: Bool

    /// Whether the realm moves to the latest version on its own when another thread,
    /// realm instance or process commits. That happens for realms that have somewhere
    /// to run it: the main thread's realms (through the main queue), actor-isolated
    /// realms (on their actor) and the realms notifications deliver on a queue. A realm
    /// of another thread moves on `refresh()` and when it writes. Shared by the
    /// instances of the file on one thread. With `autorefresh` off, realm observers get
    /// `.refreshRequired` instead.
    public var autorefresh: Bool {
        get { state.autorefresh }
        set { state.autorefresh = newValue }
    }

    /// Opens the default realm.
    public convenience init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    /// Opens the realm at `fileURL` with the default configuration's other settings
    /// (`Realm.Configuration.defaultConfiguration` with `fileURL` set, which clears an
    /// in-memory identifier).
    ///
    /// - Throws: what `Realm(configuration:)` throws.
    public convenience init(fileURL: URL) throws {
        var configuration = Realm.Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
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
        Logger.db(.trace, "Realm opened: \(_coordinator.path), schema version \(configuration.schemaVersion)")
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
            state = RealmState(coordinator: nil)
            state.snapshot = frozen
        } else if privateState {
            state = RealmState(coordinator: coordinator)
        } else {
            state = RealmState.forCurrentThread(coordinator)
        }
    }

    /// A realm of the file with its own transaction state, confined to the queue or
    /// actor `scheduler` runs jobs on (which moves it forward when the file changes).
    init(coordinator: RealmCoordinator, configuration: Configuration, scheduler: DeliveryScheduler) {
        _coordinator = coordinator
        self.configuration = configuration
        isFrozen = false
        state = RealmState(coordinator: coordinator)
        state.attach(scheduler: scheduler)
    }

    // MARK: Transactions

    /// The transaction reads go through: the write transaction, or the read snapshot.
    var txn: OpaquePointer {
        if let owner = state.ownerThread, pthread_equal(owner, pthread_self()) == 0 {
            // A snapshot is used by one thread at a time; a thread-confined realm by its own thread.
            preconditionFailure("Realm accessed from incorrect thread: a realm, and the objects and results read from it, belong to the thread that opened it. Open a Realm on each thread, pass objects with ThreadSafeReference, or freeze them.")
        }
        if let current = state.readTxn { return current }
        let fresh = ReadSnapshot(_coordinator)
        snapshot = fresh
        return fresh.txn
    }

    /// The version of the snapshot this realm reads.
    var snapshotVersion: UInt64 { orc_txn_version(txn) }

    /// Whether the realm is inside a write transaction.
    public var isInWriteTransaction: Bool { writeTxn != nil }

    /// Begins a write transaction; pair it with `commitWrite()` or `cancelWrite()`.
    /// Waits while another thread or process writes. The realm moves to the latest
    /// version first, delivering its notifications of what others committed.
    ///
    /// As in the Realm Swift SDK this cannot throw: beginning a write inside a write, on
    /// a read-only or frozen realm, or on another thread than the one that opened the
    /// realm, stops with a message. `write { }` throws those instead.
    public func beginWrite() {
        do { try _beginWrite() } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
    }

    /// Begins a write transaction.
    ///
    /// - Throws: `.wrongTransactionState` when already in a write, or when called on
    ///   another thread than the one that opened the realm; `.readOnly` for a
    ///   read-only or frozen realm; or a storage error.
    func _beginWrite() throws {
        guard writeTxn == nil else {
            throw RealmError(.wrongTransactionState, "The realm is already in a write transaction.")
        }
        guard !isFrozen else { throw RealmError(.readOnly, "Cannot write to a frozen realm.") }
        guard !configuration.readOnly else {
            throw RealmError(.readOnly, "Cannot write to the read-only realm at '\(_coordinator.path)'.")
        }
        try state.checkThread("begin a write transaction")
        var txn: OpaquePointer?
        for attempt in 0..<3 {
            // Notifications of what others committed are delivered first, so that the
            // changes reported at commit are this transaction's.
            var delivered: UInt64?
            if state.hasObservers {
                _ = state.refresh()
                guard writeTxn == nil else {
                    throw RealmError(.wrongTransactionState, "The realm is already in a write transaction (begun by a notification block).")
                }
                delivered = snapshot.map { orc_txn_version($0.txn) }
            }
            // A read snapshot held by this thread would block map growth during the write.
            snapshot = nil
            try ORC.check(orc_txn_begin(_coordinator.env, Int32(ORC_TXN_WRITE), &txn), "Beginning a write transaction")
            // Another commit slipped in before the write lock: deliver it first.
            guard let delivered, delivered != orc_txn_version(txn), attempt < 2 else { break }
            orc_txn_abort(txn)
            txn = nil
        }
        writeTxn = txn
        state.writeThread = pthread_self()
        pendingWriteError = nil
    }

    /// Commits the write transaction. The notifications of this realm's thread (or
    /// actor) are delivered before this returns, except to the `tokens` given; other
    /// threads, queues, actors and processes are told of the commit.
    ///
    /// - Throws: the first failure of a write inside the transaction (a duplicate
    ///   primary key, a wrong type) — the whole transaction is then rolled back — a
    ///   storage error (disk full), or `.wrongTransactionState` when called on another
    ///   thread than the one that began the transaction (which stays open there).
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        guard let txn = writeTxn else {
            throw RealmError(.wrongTransactionState, "Cannot commit: the realm is not in a write transaction.")
        }
        try state.checkWriteThread("commit")
        writeTxn = nil
        state.writeThread = nil
        arena.reset()
        if let error = pendingWriteError {
            pendingWriteError = nil
            orc_txn_abort(txn)
            throw error
        }
        configuration.sync?.willCommit(self, txn)
        let holds = _coordinator.notifier.prepareCommit(txn)
        var version: UInt64 = 0
        let status = orc_txn_commit(txn, &version)
        _coordinator.notifier.finishCommit(holds, succeeded: status == ORC_OK, version: version)
        try ORC.check(status, "Committing the write transaction")
        Logger.db(.trace, "Commit of version \(version): \(_coordinator.path)")
        _didCommit(version: version, skipping: tokens)
        configuration.sync?.didCommit(self)
    }

    /// Discards every change of the write transaction. Must be called on the thread
    /// that began it (a precondition).
    public func cancelWrite() {
        guard let txn = writeTxn else {
            preconditionFailure("Cannot cancel a write: the realm is not in a write transaction.")
        }
        do { try state.checkWriteThread("cancel") } catch { preconditionFailure(error.message) }
        writeTxn = nil
        state.writeThread = nil
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

    /// Moves the realm to the latest version and delivers the notifications of this
    /// thread's (or actor's) registrations synchronously. Returns whether the realm's
    /// version changed.
    @discardableResult
    public func refresh() -> Bool {
        guard !isFrozen, writeTxn == nil else { return false }
        return state.refresh()
    }

    /// Ends the realm's read transaction (cancelling a write in progress); the next read
    /// starts from the latest version.
    ///
    /// Everything read from the realm before is invalidated, as in the Realm Swift SDK:
    /// objects report `isInvalidated` and stop with a message when a property is read or
    /// written, and `Results`, `List`, `MutableSet`, `Map` and `LinkingObjects` report
    /// `isInvalidated` and stop when read. Read them anew from the realm. Frozen realms
    /// are not affected.
    public func invalidate() {
        guard !isFrozen else { return }
        if writeTxn != nil { cancelWrite() }
        snapshot = nil
        state.invalidations &+= 1
    }

    /// Called after this realm committed: reports the commit to the other threads and
    /// processes of the file, and delivers this state's notifications.
    func _didCommit(version: UInt64, skipping tokens: [NotificationToken]) {
        _coordinator.notifier.fileAdvanced(to: version)
        state.didCommit(version: version, skipping: tokens)
    }

    // MARK: Information

    /// The schema of the realm's file.
    public var schema: Schema { _coordinator.storedSchema(txn).publicSchema(swiftNames: true) }

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
/// `isInWriteTransaction` agrees between them. It also holds the notification
/// registrations its thread (or actor, or queue) delivers (see `RealmState+Delivery`).
final class RealmState {
    var snapshot: ReadSnapshot? {
        didSet { readTxn = writeTxn ?? snapshot?.txn }
    }
    var writeTxn: OpaquePointer? {
        didSet { readTxn = writeTxn ?? snapshot?.txn }
    }
    /// The transaction reads go through now: the write transaction, else the read
    /// snapshot's (nil before the first read). Kept beside them so that a property read
    /// finds it with one load and no reference counting.
    private(set) var readTxn: OpaquePointer?
    var pendingWriteError: RealmError?
    /// How many times `invalidate()` ran. Accessors, collections and results remember
    /// the count of when they were made: when it has moved on, they are invalidated.
    var invalidations: UInt32 = 0
    let arena = ByteArena()
    /// How deep `create` is inside nested values (a guard against cycles).
    var createDepth = 0
    /// The class bound last, with the coordinator's bindings generation it was read at:
    /// adds and lookups of one class after another skip the coordinator's lock.
    var lastBound: (type: ObjectIdentifier, bound: BoundClass, generation: UInt64)?
    /// The file; nil for frozen realms, which never advance.
    let coordinator: RealmCoordinator?
    var autorefresh = true
    /// The thread a thread-confined state belongs to (nil: an actor's or a queue's).
    var ownerThread: pthread_t?
    /// The thread the open write transaction was begun on: it must end there.
    var writeThread: pthread_t?
    /// Where jobs of this state run when the file changes (nil: a plain thread).
    private(set) var scheduler: DeliveryScheduler?
    private(set) var listener: StateListener?
    /// The registrations this state delivers, in registration order.
    let registrationLock = NSLock()
    var registrationList: [NotificationRegistration] = []
    var isDelivering = false
    /// The newest version `.refreshRequired` was posted for.
    var refreshRequiredVersion: UInt64 = 0
    /// `writeAsync` writes waiting for the scheduler, oldest first.
    var pendingAsyncWrites: [PendingAsyncWrite] = []
    var lastAsyncWriteId: AsyncTransactionId = 0

    init(coordinator: RealmCoordinator?) {
        self.coordinator = coordinator
    }

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
        let state = RealmState(coordinator: coordinator)
        state.ownerThread = pthread_self()
        // The main thread has a queue to run autorefresh and notifications on.
        if Thread.isMainThread { state.attach(scheduler: .main) }
        dictionary[key] = WeakBox(state)
        return state
    }

    /// Makes the state advance through `scheduler` when the file changes.
    func attach(scheduler: DeliveryScheduler) {
        guard let coordinator, listener == nil else { return }
        self.scheduler = scheduler
        let listener = StateListener(self, scheduler)
        self.listener = listener
        coordinator.notifier.add(listener)
    }

    /// The transaction a property read goes through, or nil when the fast path does not
    /// apply: the calling thread is not the owner's (the caller then takes the checked
    /// path, which stops with the wrong-thread message) or no snapshot is open yet.
    @inline(__always)
    var readTxnOnOwnerThread: OpaquePointer? {
        if let ownerThread, pthread_equal(ownerThread, pthread_self()) == 0 { return nil }
        return readTxn
    }

    /// `readTxnOnOwnerThread` for an accessor made when `invalidations` was `epoch`: nil
    /// too when the realm was invalidated since (the checked path then stops).
    @inline(__always)
    func readTxnOnOwnerThread(epoch: UInt32) -> OpaquePointer? {
        guard epoch == invalidations else { return nil }
        return readTxnOnOwnerThread
    }

    /// Throws unless the calling thread may use this state.
    func checkThread(_ action: @autoclosure () -> String) throws(RealmError) {
        if let ownerThread, pthread_equal(ownerThread, pthread_self()) == 0 {
            throw RealmError(.wrongTransactionState, "Realm accessed from incorrect thread: cannot \(action()) on a thread other than the one that opened the realm. Open a Realm on each thread, or pass objects with ThreadSafeReference.")
        }
    }

    /// Throws unless the calling thread began the open write transaction.
    func checkWriteThread(_ action: String) throws(RealmError) {
        if let writeThread, pthread_equal(writeThread, pthread_self()) == 0 {
            throw RealmError(.wrongTransactionState, "Cannot \(action) the write transaction on this thread: it was begun on another thread, and must be committed or cancelled there.")
        }
    }
}

extension Realm: CustomStringConvertible {
    public var description: String { "Realm(\(configuration.isInMemory ? "in memory: \(configuration.inMemoryIdentifier!)" : _coordinator.path))" }
}
