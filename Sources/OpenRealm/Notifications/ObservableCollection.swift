import Foundation

/// The collections whose changes can be observed — `Results`, `List`, `MutableSet`,
/// `LinkingObjects` and `Map` — and the one implementation of their `observe` calls.
///
/// A conforming collection says which realm manages it and makes a registration for a
/// realm (its own, or the realm of another queue or actor, where it is found again by
/// its owner and property). The underscored members are implementation details.
public protocol _ObservableCollection {
    /// The type whose key paths restrict an observation (`[\Task.name]`): the element
    /// objects, or a map's object values.
    associatedtype _ObservedElement
    /// What the block is called with: `RealmCollectionChange<Self>` or
    /// `RealmMapChange<Self>`.
    associatedtype _ObservedChange

    /// The realm managing the collection, nil when it is unmanaged.
    var _observedRealm: Realm? { get }
    /// How messages name the collection (`'tasks'`, `Results<Task>`).
    var _observedName: String { get }
    /// A registration delivering to `block` made in `realm`, or nil when the collection
    /// cannot be found there. The result is an internal registration object.
    func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (_ObservedChange) -> Void) -> AnyObject?
}

extension _ObservableCollection {
    /// Registers a block called with the collection first, then after every write that
    /// changes which elements are in it, their order, or the objects in it.
    ///
    /// ```swift
    /// let token = realm.objects(Task.self).where { $0.progressMinutes >= 60 }.observe { change in
    ///     switch change {
    ///     case .initial(let tasks): print(tasks.count)
    ///     case .update(_, let deletions, let insertions, let modifications): print(deletions, insertions, modifications)
    ///     case .error(let error): print(error)
    ///     }
    /// }
    /// ```
    ///
    /// Without `keyPaths`, an object counts as modified when one of its properties
    /// changed or an object it links to (up to four links away) changed. With
    /// `keyPaths` (`["name", "owner.name"]`), only changes along those paths count as
    /// modifications; insertions and deletions are always reported. A list reports a
    /// move as a deletion plus an insertion; a set's positions follow its value order;
    /// a map reports keys instead of positions.
    ///
    /// - Parameters:
    ///   - keyPaths: the property paths whose changes are reported as modifications.
    ///   - queue: a serial queue to deliver on, with a realm confined to it; nil to
    ///     deliver on the observed realm's own thread: on the main queue when it is
    ///     the main thread's realm and the queue runs, on its actor for an
    ///     actor-isolated realm, and on other threads — which have no run loop to wait
    ///     on — when the realm refreshes, begins a write or commits. Every realm
    ///     delivers its own commits before `commitWrite` returns.
    ///   - block: called with each change.
    /// - Returns: a token; delivery stops when it is invalidated or released.
    ///
    /// Cannot be called on an unmanaged or frozen collection, nor inside a write
    /// transaction (preconditions, as in Realm).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (_ObservedChange) -> Void) -> NotificationToken {
        Observation.register(observedRealm(), queue: queue, actor: nil, what: _observedName) { realm in
            _registration(in: realm, keyPaths: keyPaths, block) as? NotificationRegistration
        }
    }

    /// Registers a block called on `actor` with a collection confined to it.
    ///
    /// ```swift
    /// let token = await tasks.observe(on: MainActor.shared) { actor, change in ... }
    /// ```
    @preconcurrency
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, _ObservedChange) -> Void) async -> NotificationToken {
        let deliver = Observation.onActor(actor, block)
        return Observation.register(observedRealm(), queue: nil, actor: actor, what: _observedName) { realm in
            _registration(in: realm, keyPaths: keyPaths, deliver) as? NotificationRegistration
        }
    }

    private func observedRealm() -> Realm {
        guard let realm = _observedRealm else {
            preconditionFailure("Cannot observe \(_observedName): only managed collections can be observed.")
        }
        return realm
    }
}

extension _ObservableCollection where _ObservedElement: ObjectBase {
    /// Registers a block for changes, restricted to typed key paths (`[\Task.name]`).
    public func observe(keyPaths: [PartialKeyPath<_ObservedElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (_ObservedChange) -> Void) -> NotificationToken {
        observe(keyPaths: Self.names(keyPaths), on: queue, block)
    }

    /// Registers a block called on `actor`, restricted to typed key paths.
    @preconcurrency
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<_ObservedElement>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, _ObservedChange) -> Void) async -> NotificationToken {
        await observe(keyPaths: Self.names(keyPaths), on: actor, _isolation: _isolation, block)
    }

    private static func names(_ keyPaths: [PartialKeyPath<_ObservedElement>]) -> [String] {
        keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") }
    }
}

extension CollectionObservation {
    /// The restriction of a registration on a collection whose elements (or values)
    /// are `Element`: key paths apply to collections of objects only.
    static func filter<Element: _PersistableValue>(_ keyPaths: [String]?, elements: Element.Type, realm: Realm) -> KeyPathFilter? {
        guard let className = Element._orDescriptor.target?.className(), !className.isEmpty else { return nil }
        return KeyPathFilter(keyPaths, className: className, realm: realm)
    }
}
