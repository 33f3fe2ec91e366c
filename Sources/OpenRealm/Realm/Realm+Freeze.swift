import Foundation
import ORCore

/// A read transaction: the snapshot a realm reads. Frozen realms share the snapshot
/// of the realm they were frozen from; it ends with its last holder.
final class ReadSnapshot: @unchecked Sendable {
    let txn: OpaquePointer
    let coordinator: RealmCoordinator

    init(_ coordinator: RealmCoordinator) {
        var txn: OpaquePointer?
        let status = orc_txn_begin(coordinator.env, Int32(ORC_TXN_READ), &txn)
        guard status == ORC_OK, let txn else {
            preconditionFailure("Cannot read the realm at '\(coordinator.path)': \(ORC.lastMessage)")
        }
        self.txn = txn
        self.coordinator = coordinator
    }

    deinit { orc_txn_abort(txn) }
}

extension Realm {
    /// A frozen realm: a read-only view of this realm's current version that never
    /// changes. Frozen realms, and objects and results read from them, may be passed to
    /// other threads (used by one thread at a time).
    public func freeze() -> Realm {
        if isFrozen { return self }
        precondition(!isInWriteTransaction, "Cannot freeze a realm inside a write transaction.")
        _ = txn
        return Realm(coordinator: _coordinator, configuration: configuration, frozen: snapshot)
    }

    /// A live realm of the same file on the current thread, at the latest version.
    public func thaw() -> Realm {
        guard isFrozen else { return self }
        do {
            return try Realm(configuration: configuration)
        } catch {
            preconditionFailure("Cannot thaw the realm at '\(_coordinator.path)': \(error.localizedDescription)")
        }
    }
}

extension ObjectBase {
    /// A frozen copy of this managed object (the object itself when already frozen).
    public func freeze() -> Self {
        if let dynamic = self as? DynamicObject, let realm = _realm {
            if realm.isFrozen { return self }
            guard let frozen = dynamic._dynamicRebound(to: realm.freeze()) else { preconditionFailure("Object has been deleted or invalidated.") }
            return frozen as! Self
        }
        guard let realm = _realm, let bound = _bound else {
            preconditionFailure("Unmanaged objects cannot be frozen.")
        }
        if realm.isFrozen { return self }
        return realm.freeze()._accessor(bound, _key) as! Self
    }

    /// A live copy of a frozen object, or nil when it was deleted since.
    public func thaw() -> Self? {
        if let dynamic = self as? DynamicObject, let realm = _realm {
            guard realm.isFrozen else { return self }
            return dynamic._dynamicRebound(to: realm.thaw()) as? Self
        }
        guard let realm = _realm, let bound = _bound else { return self }
        guard realm.isFrozen else { return self }
        let live = realm.thaw()
        guard let liveBound = live._bindOrNil(bound.info.type), orc_obj_exists(live.txn, liveBound.table, _key) else { return nil }
        return live._accessor(liveBound, _key) as? Self
    }
}

extension Results {
    /// Frozen results: the current objects, fixed, in a frozen realm.
    public func freeze() -> Results<Element> {
        if core.realm.isFrozen { return self }
        let keys = core.keys
        let frozen = core.realm.freeze()
        return Results(core: ResultsCore(realm: frozen, type: core.type, dynamicClassName: core.dynamicClassName, domain: core.domain,
                                         query: core.query, frozenKeys: keys))
    }

    /// Live results of the same query in a live realm on the current thread.
    public func thaw() -> Results<Element>? {
        guard core.realm.isFrozen else { return self }
        return Results(core: ResultsCore(realm: core.realm.thaw(), type: core.type, dynamicClassName: core.dynamicClassName,
                                         domain: core.domain, query: core.query))
    }
}

extension List {
    /// A frozen copy of this managed list: its elements at the realm's current version.
    public func freeze() -> List<Element> {
        guard let location else { preconditionFailure("Unmanaged lists cannot be frozen.") }
        if location.realm.isFrozen { return self }
        return List(managed: location.parent.freeze(), index: location.propertyIndex)
    }

    /// The live list of a frozen list, or nil when its owner was deleted since.
    public func thaw() -> List<Element>? {
        guard let location, location.realm.isFrozen else { return self }
        return location.parent.thaw().map { List(managed: $0, index: location.propertyIndex) }
    }
}

extension MutableSet {
    /// A frozen copy of this managed set: its elements at the realm's current version.
    public func freeze() -> MutableSet<Element> {
        guard let location else { preconditionFailure("Unmanaged sets cannot be frozen.") }
        if location.realm.isFrozen { return self }
        return MutableSet(managed: location.parent.freeze(), index: location.propertyIndex)
    }

    /// The live set of a frozen set, or nil when its owner was deleted since.
    public func thaw() -> MutableSet<Element>? {
        guard let location, location.realm.isFrozen else { return self }
        return location.parent.thaw().map { MutableSet(managed: $0, index: location.propertyIndex) }
    }
}

extension LinkingObjects {
    /// Whether these are the backlinks of a frozen object.
    public var isFrozen: Bool { owner?.isFrozen ?? false }

    /// The backlinks of the frozen copy of the owning object.
    public func freeze() -> LinkingObjects<Element> {
        guard let owner else { preconditionFailure("LinkingObjects of an unmanaged object cannot be frozen.") }
        if owner.isFrozen { return self }
        return LinkingObjects(owner: owner.freeze(), propertyName: propertyName)
    }

    /// The live backlinks of a frozen object, or nil when it was deleted since.
    public func thaw() -> LinkingObjects<Element>? {
        guard let owner, owner.isFrozen else { return self }
        return owner.thaw().map { LinkingObjects(owner: $0, propertyName: propertyName) }
    }
}

/// A way to hand a managed object or `Results` to another thread: make a reference on
/// one thread and `resolve` it in a realm on another.
///
/// ```swift
/// let ref = ThreadSafeReference(to: task)
/// DispatchQueue.global().async {
///     let realm = try! Realm(configuration: config)
///     let task = realm.resolve(ref)
/// }
/// ```
public final class ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    let payload: ThreadConfinedPayload
    private var resolved = false
    private let lock = NSLock()

    /// A reference to a managed object or results.
    public init(to threadConfined: Confined) {
        payload = threadConfined._threadConfinedPayload
    }

    /// Whether `resolve` was already called (a reference resolves once).
    public var isInvalidated: Bool { lock.withLock { resolved } }

    func take() -> ThreadConfinedPayload? {
        lock.withLock {
            if resolved { return nil }
            resolved = true
            return payload
        }
    }
}

/// What a `ThreadSafeReference` carries: the class and key of an object, or a query
/// (and, for results of a collection, where the collection is).
public struct ThreadConfinedPayload: @unchecked Sendable {
    let type: ObjectBase.Type
    let key: UInt64?
    let query: ParsedQuery?
    var domain: ResultsDomain? = nil
    /// The class of dynamic results or of a `DynamicObject`, by name.
    var dynamicClassName: String? = nil
}

/// Types that belong to one thread and can be handed over with `ThreadSafeReference`.
public protocol ThreadConfined {
    /// The realm the value belongs to; nil for an unmanaged object.
    var realm: Realm? { get }
    var _threadConfinedPayload: ThreadConfinedPayload { get }
    static func _resolve(_ payload: ThreadConfinedPayload, in realm: Realm) -> Self?
}

extension Object: ThreadConfined {
    public var _threadConfinedPayload: ThreadConfinedPayload {
        precondition(_realm != nil, "Only managed objects can be passed with a ThreadSafeReference.")
        return ThreadConfinedPayload(type: type(of: self), key: _key, query: nil,
                                     dynamicClassName: (self as? DynamicObject)?._dynamicEntry?.name)
    }
    public static func _resolve(_ payload: ThreadConfinedPayload, in realm: Realm) -> Self? {
        if let name = payload.dynamicClassName {
            return payload.key.flatMap { DynamicObject._existing(name, key: $0, in: realm) } as? Self
        }
        guard let key = payload.key, let bound = realm._bindOrNil(payload.type), orc_obj_exists(realm.txn, bound.table, key) else { return nil }
        return realm._accessor(bound, key) as? Self
    }
}

extension Results: ThreadConfined {
    public var _threadConfinedPayload: ThreadConfinedPayload {
        ThreadConfinedPayload(type: core.type, key: nil, query: core.query, domain: core.domain, dynamicClassName: core.dynamicClassName)
    }
    public static func _resolve(_ payload: ThreadConfinedPayload, in realm: Realm) -> Results<Element>? {
        guard let query = payload.query else { return nil }
        return Results(core: ResultsCore(realm: realm, type: payload.type, dynamicClassName: payload.dynamicClassName,
                                         domain: payload.domain, query: query))
    }
}

extension Realm {
    /// The object or results a reference points at, in this realm; nil when the object
    /// was deleted. A reference resolves once.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        guard let payload = reference.take() else {
            preconditionFailure("A ThreadSafeReference can be resolved only once.")
        }
        refresh()
        return Confined._resolve(payload, in: self)
    }
}
