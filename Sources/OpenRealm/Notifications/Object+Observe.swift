import Foundation
import ORCore

/// The registration of an object observer. Without key paths it reports the
/// object's own properties that changed (a collection property changes with its
/// elements; an embedded object's change is a change of the property holding it);
/// with key paths, the first property of each path along which something changed.
final class ObjectRegistration<T: ObjectBase>: ObserverRegistration<T, ObjectChange<T>> {
    init(_ object: T, filter: KeyPathFilter?, block: @escaping (ObjectChange<T>) -> Void) {
        super.init(object, filter: filter, error: { .error($0) }, block: block)
        // Objects have no initial notification: changes are reported from the version
        // the registration was made at, even when its first delivery runs later.
        needsInitial = false
    }

    override func deliverInitial(txn: OpaquePointer) {}

    override func rebase(_ context: ChangeContext) {}

    override func deliverWithoutLog(txn: OpaquePointer) {
        guard let bound = observed._bound else { return }
        if !orc_obj_exists(txn, bound.table, observed._key) { deliverDeleted() }
    }

    override func deliverChange(_ context: ChangeContext) {
        guard let bound = observed._bound, let realm = observed._realm else { return }
        let table = bound.table, key = observed._key
        if context.summary[table: table].erased.contains(key) || !orc_obj_exists(context.txn, table, key) {
            deliverDeleted()
            return
        }
        let info = bound.info
        var changedIndexes: [Int] = []
        if let filter {
            // Each key path reports its first property when something changed along it.
            for (path, steps) in zip(filter.paths, filter.steps(context.schema)) {
                guard context.modified(paths: [steps]).contains(key) else { continue }
                let first = String(path.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0])
                if let index = info.index(ofProperty: first), !changedIndexes.contains(index) { changedIndexes.append(index) }
            }
            changedIndexes.sort()
        } else if let columns = context.summary.modifiedColumns(table: table, key: key) {
            changedIndexes = info.properties.indices.filter { info.properties[$0].isStored && columns.contains(bound.columns[$0]) }
        }
        guard !changedIndexes.isEmpty, isActive else { return }
        let changes = changedIndexes.map { index -> PropertyChange in
            let property = info.properties[index]
            guard property.descriptor.collection == ORC_COLL_NONE, property.isStored else {
                return PropertyChange(name: property.name, oldValue: nil, newValue: nil)
            }
            let newValue = AnyValueConversion.unwrap(observed[property.name])
            var oldValue: Any?
            if let oldTxn = context.oldTxn, let type = property.valueType as? any _PersistableValue.Type {
                var raw = orc_value()
                if orc_obj_get(oldTxn, table, key, bound.columns[index], &raw) == ORC_OK {
                    oldValue = AnyValueConversion.unwrap(type._orDecode(raw, realm)._orToAny())
                }
            }
            return PropertyChange(name: property.name, oldValue: oldValue, newValue: newValue)
        }
        deliver(.change(observed, changes))
    }

    private func deliverDeleted() {
        let wasActive = isActive
        cancel()
        if wasActive { block(.deleted) }
    }
}

extension Object {
    /// Registers a block called after every write that modifies or deletes the object.
    /// There is no first call: the block runs only for changes.
    ///
    /// ```swift
    /// let token = dog.observe { (change: ObjectChange<Dog>) in
    ///     if case .change(_, let properties) = change { print(properties.map(\.name)) }
    /// }
    /// ```
    ///
    /// Without `keyPaths`, changes of the object's own properties are reported (not
    /// those of objects it links to). With `keyPaths` (`["owner.name"]`), a change
    /// along a path reports the path's first property. `oldValue` is available when
    /// the change came from another thread, realm instance or process.
    ///
    /// - Parameters:
    ///   - keyPaths: the property paths to watch; nil for every property of the object.
    ///   - queue: a serial queue to deliver on (the object passed to the block belongs
    ///     to a realm confined to it); nil for the object's own thread (see
    ///     `Results.observe(keyPaths:on:_:)` for when that delivers).
    ///   - block: called with each change; `.deleted` is the last call.
    /// - Returns: a token; delivery stops when it is invalidated or released.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        _observeObject(keyPaths: keyPaths, queue: queue, actor: nil, block)
    }

    /// Registers a block for changes along typed key paths (`[\Dog.name, \Dog.owner]`).
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        _observeObject(keyPaths: keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") }, queue: queue, actor: nil, block)
    }

    /// Registers a block called on `actor` with a copy of the object confined to it.
    @preconcurrency
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        _observeObject(keyPaths: keyPaths, queue: nil, actor: actor, Observation.onActor(actor, block))
    }

    /// Registers a block called on `actor`, for changes along typed key paths.
    @preconcurrency
    public func observe<A: Actor, T: Object>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        _observeObject(keyPaths: keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") }, queue: nil, actor: actor,
                       Observation.onActor(actor, block))
    }

}

extension EmbeddedObject {
    /// Registers a block called after every write that modifies or deletes the
    /// embedded object (see `Object.observe(keyPaths:on:_:)`).
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        _observeObject(keyPaths: keyPaths, queue: queue, actor: nil, block)
    }

    /// Registers a block for changes along typed key paths.
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        _observeObject(keyPaths: keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") }, queue: queue, actor: nil, block)
    }
}

extension ObjectBase {
    func _observeObject<T: ObjectBase>(keyPaths: [String]?, queue: DispatchQueue?, actor: (any Actor)?,
                                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let realm = _realm, let bound = _bound else {
            preconditionFailure("Only objects which are managed by a Realm can be observed: add the object to a realm first.")
        }
        precondition(!isInvalidated, "Cannot observe an object of class '\(bound.className)' that has been deleted or invalidated.")
        precondition(self is T, "The block observes ObjectChange<\(T.self)>, but the object is a '\(type(of: self))'.")
        let key = _key
        return Observation.register(realm, queue: queue, actor: actor, what: "an object of class '\(bound.className)'") { target in
            let observed: T
            if target === realm {
                observed = self as! T
            } else {
                guard let targetBound = target._bindOrNil(bound.info.type), orc_obj_exists(target.txn, targetBound.table, key),
                      let accessor = target._accessor(targetBound, key) as? T else { return nil }
                observed = accessor
            }
            return ObjectRegistration(observed, filter: KeyPathFilter(keyPaths, className: bound.className, realm: target), block: block)
        }
    }
}
