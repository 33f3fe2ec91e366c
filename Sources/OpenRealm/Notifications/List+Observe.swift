import Foundation
import ORCore

/// What the collection registrations share: the owning object's place, the class of
/// linked elements, and the elements' modifications.
enum CollectionObservation {
    /// The table of the objects a collection of `Element` links to, nil for values.
    static func targetTable<Element: _PersistableValue>(_ type: Element.Type, _ realm: Realm) -> UInt32? {
        let descriptor = Element._orDescriptor
        guard descriptor.type == ORC_TYPE_LINK, let target = descriptor.target else { return nil }
        return realm._bindOrNil(target)?.table
    }

    /// The linked objects modified: along the key paths, or (without) directly or
    /// through their own links.
    static func modifiedTargets(_ table: UInt32?, _ filter: KeyPathFilter?, _ context: ChangeContext) -> Set<UInt64> {
        guard let table else { return [] }
        return filter.map { $0.modified(context) } ?? context.deepModified(table: table)
    }

    /// The property index of a collection location in its owner's class.
    static func propertyIndex(_ location: CollectionLocation) -> Int? {
        location.propertyIndex
    }

    /// The owner of `location` read through `realm` (nil when it is gone).
    static func owner(_ location: CollectionLocation, in realm: Realm) -> ObjectBase? {
        guard let bound = realm._bindOrNil(location.parentBound.info.type), orc_obj_exists(realm.txn, bound.table, location.key) else { return nil }
        return realm._accessor(bound, location.key)
    }

    /// The managed collection at `location` as `realm` reads it: `collection` itself when
    /// it belongs to `realm`, else the same property of its owner read through `realm`
    /// (`make(owner, propertyIndex)`); nil when the owner is gone there.
    static func resolve<C>(_ collection: C, at location: CollectionLocation, in realm: Realm,
                           _ make: (ObjectBase, Int) -> C) -> C? {
        if realm === location.realm { return collection }
        guard let owner = owner(location, in: realm), let index = propertyIndex(location) else { return nil }
        return make(owner, index)
    }
}

/// The registration of a `List` observer: list operations from the log are replayed on
/// the old positions (`CollectionDiff.list`).
final class ListRegistration<Element: RealmCollectionValue>: IndexedCollectionRegistration<List<Element>> {
    private var count = 0
    /// The linked objects' keys at the old positions (lists of objects only).
    private var elementKeys: [UInt64] = []

    private func readState() {
        guard let location = observed.location, orc_obj_exists(location.txn, location.table, location.key) else {
            count = 0
            elementKeys = []
            return
        }
        count = location.size()
        elementKeys = CollectionObservation.targetTable(Element.self, location.realm) == nil ? [] : location.linkKeys()
    }

    override func deliverInitial(txn: OpaquePointer) {
        readState()
        deliver(.initial(observed))
    }

    override func rebase(_ context: ChangeContext) { readState() }

    override func deliverWithoutLog(txn: OpaquePointer) {
        let old = count
        readState()
        deliverUpdate(.replaceAll(oldCount: old, newCount: count))
    }

    override func deliverChange(_ context: ChangeContext) {
        guard let location = observed.location else { return }
        if context.summary[table: location.table].erased.contains(location.key) {
            let old = count
            count = 0
            elementKeys = []
            deliverOwnerDeleted(count: old)
            return
        }
        let operations = context.summary.operations(.init(table: location.table, key: location.key, column: location.column))
        let target = CollectionObservation.targetTable(Element.self, location.realm)
        let modified = CollectionObservation.modifiedTargets(target, filter, context)
        if operations.isEmpty && modified.isEmpty { return }
        let oldKeys = elementKeys
        let oldCount = count
        if !operations.isEmpty { readState() }
        let changes = CollectionDiff.list(oldCount: oldCount, newCount: count, operations: operations) { i in
            i < oldKeys.count && modified.contains(oldKeys[i])
        } ?? .replaceAll(oldCount: oldCount, newCount: count)
        deliverUpdate(changes)
    }
}

/// The registration of a `MutableSet` observer: sets keep their elements in value
/// order, so old and new elements are compared.
final class MutableSetRegistration<Element: RealmCollectionValue>: IndexedCollectionRegistration<MutableSet<Element>> {
    private var elements: [Element] = []

    private func readElements() -> [Element] {
        guard let location = observed.location, orc_obj_exists(location.txn, location.table, location.key) else { return [] }
        return observed.elements
    }

    override func deliverInitial(txn: OpaquePointer) {
        elements = readElements()
        deliver(.initial(observed))
    }

    override func rebase(_ context: ChangeContext) { elements = readElements() }

    override func deliverWithoutLog(txn: OpaquePointer) {
        let old = elements
        elements = readElements()
        deliverUpdate(CollectionDiff.ordered(old: old, new: elements) { _ in false })
    }

    override func deliverChange(_ context: ChangeContext) {
        guard let location = observed.location else { return }
        if context.summary[table: location.table].erased.contains(location.key) {
            let old = elements.count
            elements = []
            deliverOwnerDeleted(count: old)
            return
        }
        let operations = context.summary.operations(.init(table: location.table, key: location.key, column: location.column))
        let target = CollectionObservation.targetTable(Element.self, location.realm)
        let modified = CollectionObservation.modifiedTargets(target, filter, context)
        if operations.isEmpty && modified.isEmpty { return }
        let old = elements
        if !operations.isEmpty { elements = readElements() }
        deliverUpdate(CollectionDiff.ordered(old: old, new: elements) { element in
            guard let object = element as? ObjectBase else { return false }
            return modified.contains(object._key)
        })
    }
}

/// The registration of a `LinkingObjects` observer: the linking objects, in key order,
/// are read again when their class changed.
final class LinkingObjectsRegistration<Element: ObjectBase>: IndexedCollectionRegistration<LinkingObjects<Element>> {
    private var keys: [UInt64] = []

    private func readKeys() -> [UInt64] {
        guard let owner = observed.owner, !owner.isInvalidated else { return [] }
        return observed.keys
    }

    override func deliverInitial(txn: OpaquePointer) {
        keys = readKeys()
        deliver(.initial(observed))
    }

    override func rebase(_ context: ChangeContext) { keys = readKeys() }

    override func deliverWithoutLog(txn: OpaquePointer) {
        let old = keys
        keys = readKeys()
        deliverUpdate(CollectionDiff.keys(old: old, new: keys, inKeyOrder: true, modified: []))
    }

    override func deliverChange(_ context: ChangeContext) {
        guard let owner = observed.owner, let ownerBound = owner._bound else { return }
        if context.summary[table: ownerBound.table].erased.contains(owner._key) {
            let old = keys.count
            keys = []
            deliverOwnerDeleted(count: old)
            return
        }
        guard let origin = observed.origin() else { return }
        let newKeys = context.summary.touches(table: origin.table) || context.summary.schemaChanged ? readKeys() : keys
        let modified = filter.map { $0.modified(context) } ?? context.deepModified(table: origin.table)
        let changes = CollectionDiff.keys(old: keys, new: newKeys, inKeyOrder: true, modified: modified)
        keys = newKeys
        deliverUpdate(changes)
    }
}

// MARK: Observable collections

extension List: _ObservableCollection {
    public typealias _ObservedElement = Element
    public var _observedRealm: Realm? { location?.realm }
    public var _observedName: String { location.map { "'\($0.name)'" } ?? "an unmanaged List" }

    public func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> AnyObject? {
        guard let location, let list = CollectionObservation.resolve(self, at: location, in: realm, List.init(managed:index:)) else { return nil }
        return ListRegistration(list, filter: CollectionObservation.filter(keyPaths, elements: Element.self, realm: realm), block: block)
    }
}

extension MutableSet: _ObservableCollection {
    public typealias _ObservedElement = Element
    public var _observedRealm: Realm? { location?.realm }
    public var _observedName: String { location.map { "'\($0.name)'" } ?? "an unmanaged MutableSet" }

    public func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> AnyObject? {
        guard let location, let set = CollectionObservation.resolve(self, at: location, in: realm, MutableSet.init(managed:index:)) else { return nil }
        return MutableSetRegistration(set, filter: CollectionObservation.filter(keyPaths, elements: Element.self, realm: realm), block: block)
    }
}

extension LinkingObjects: _ObservableCollection {
    public typealias _ObservedElement = Element
    public var _observedRealm: Realm? { owner?._realm }
    public var _observedName: String { "LinkingObjects<\(Element.className())>" }

    public func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> AnyObject? {
        guard let owner else { return nil }
        let collection: LinkingObjects<Element>
        if realm === owner._realm {
            collection = self
        } else {
            guard let bound = realm._bindOrNil(type(of: owner)), orc_obj_exists(realm.txn, bound.table, owner._key) else { return nil }
            collection = LinkingObjects(owner: realm._accessor(bound, owner._key), propertyName: propertyName)
        }
        return LinkingObjectsRegistration(collection, filter: KeyPathFilter(keyPaths, className: Element.className(), realm: realm), block: block)
    }
}
