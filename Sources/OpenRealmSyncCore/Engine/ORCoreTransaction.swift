import ORCore

/// A live ORCore transaction, valid only inside the ``ORCoreEnvironment/read(_:)`` or
/// ``ORCoreEnvironment/write(_:)`` body that received it (or, for one made with
/// ``init(borrowing:)``, while whoever began it keeps it open). Methods on it check
/// every status and throw ``ORCoreError`` at once.
///
/// Strings and bytes ORCore returns point into the map; the methods copy them into
/// Swift values before returning, so nothing read outlives the transaction by accident.
public final class ORCoreTransaction {
    /// The ORCore transaction handle.
    public let handle: OpaquePointer
    /// Scratch memory for strings and bytes handed to ORCore during one call.
    public private(set) lazy var scratch = ValueScratch()

    /// State that callers keep in memory for the length of a write transaction and write
    /// once, at its end, by type (``deferredWrite(_:)``).
    private var deferred: [ObjectIdentifier: any ORCoreDeferredWrite] = [:]
    private var deferredOrder: [any ORCoreDeferredWrite] = []
    /// What users of the transaction remember between their own calls, by type
    /// (``state(_:)``): a few at most, so a list searched by identity — asked for
    /// several times per instruction of an upload, it must cost neither a hash nor a cast.
    private var states: [(type: ObjectIdentifier, state: AnyObject)] = []

    /// Wraps a transaction someone else began and will end (the environment for its
    /// bodies; the local API for the hooks it calls inside its own transactions).
    public init(borrowing handle: OpaquePointer) {
        self.handle = handle
    }

    /// The version the transaction reads (a write transaction: the last committed one;
    /// its commit makes `version + 1`).
    public var version: UInt64 { orc_txn_version(handle) }

    /// The transaction's one `W`, made by `make` on first use; its
    /// ``ORCoreDeferredWrite/write(_:)`` runs when the write body returns, before the
    /// commit (``ORCoreEnvironment/write(_:)``). An aborted transaction drops it.
    public func deferredWrite<W: ORCoreDeferredWrite>(_ make: () -> W) -> W {
        if let existing = deferred[ObjectIdentifier(W.self)] as? W { return existing }
        let made = make()
        deferred[ObjectIdentifier(W.self)] = made
        deferredOrder.append(made)
        return made
    }

    /// The transaction's one `S`, made by `make` on first use: what a user of the
    /// transaction remembers between its own calls for the transaction's length (the
    /// server's schema and object keys). It goes with the transaction.
    public func state<S: AnyObject>(_ make: () -> S) -> S {
        let type = ObjectIdentifier(S.self)
        for entry in states where entry.type == type {
            // Stored under its own type's identifier below.
            return unsafeDowncast(entry.state, to: S.self)
        }
        let made = make()
        states.append((type, made))
        return made
    }

    /// Runs the deferred writes, in the order they were first used.
    func finishDeferredWrites() throws {
        guard !deferredOrder.isEmpty else { return }
        let writes = deferredOrder
        deferredOrder = []
        deferred = [:]
        for write in writes { try write.write(self) }
    }
}

/// What a caller of a write transaction keeps in memory and writes once, at its end
/// (``ORCoreTransaction/deferredWrite(_:)``).
public protocol ORCoreDeferredWrite: AnyObject {
    func write(_ txn: ORCoreTransaction) throws
}
