import Foundation
import ORCore

/// The registration of a `Map` observer: keys are compared before and after; a key
/// set again, or whose object value was modified, is a modification.
final class MapRegistration<Key: _MapKey, Value: RealmCollectionValue>: ObserverRegistration<Map<Key, Value>, RealmMapChange<Map<Key, Value>>> {
    private var keys: [Key] = []

    init(_ map: Map<Key, Value>, filter: KeyPathFilter?, block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) {
        super.init(map, filter: filter, error: { .error($0) }, block: block)
    }

    private func readKeys() -> [Key] {
        guard let location = observed.location, orc_obj_exists(location.txn, location.table, location.key) else { return [] }
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
        let oldSet = Set(old), newSet = Set(keys)
        deliver(deletions: old.filter { !newSet.contains($0) }, insertions: keys.filter { !oldSet.contains($0) }, modifications: [])
    }

    override func deliverChange(_ context: ChangeContext) {
        guard let location = observed.location else { return }
        if context.summary[table: location.table].erased.contains(location.key) {
            let old = keys
            keys = []
            deliver(deletions: old, insertions: [], modifications: [])
            cancel()
            return
        }
        let operations = context.summary.operations(.init(table: location.table, key: location.key, column: location.column))
        let target = CollectionObservation.targetTable(Value.self, location.realm)
        let modifiedObjects = CollectionObservation.modifiedTargets(target, filter, context)
        if operations.isEmpty && modifiedObjects.isEmpty { return }
        let old = keys
        if !operations.isEmpty { keys = readKeys() }
        let oldSet = Set(old), newSet = Set(keys)
        var setAgain = Set<String>()
        for operation in operations {
            switch operation {
            case .dictSet(let key): setAgain.insert(key)
            case .clear: setAgain.removeAll()
            default: break
            }
        }
        var modifications: [Key] = []
        for key in keys where oldSet.contains(key) {
            if setAgain.contains(key._orKey) {
                modifications.append(key)
            } else if !modifiedObjects.isEmpty, let object = AnyValueConversion.unwrap(observed[key]) as? ObjectBase,
                      modifiedObjects.contains(object._key) {
                modifications.append(key)
            }
        }
        deliver(deletions: old.filter { !newSet.contains($0) }, insertions: keys.filter { !oldSet.contains($0) },
                modifications: modifications)
    }

    private func deliver(deletions: [Key], insertions: [Key], modifications: [Key]) {
        guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
        deliver(.update(observed, deletions: deletions, insertions: insertions, modifications: modifications))
    }
}

/// A map is observed as the other collections are (`_ObservableCollection`): the
/// block gets the keys added, removed and set, or (for maps of objects) whose object
/// was modified; key paths name properties of the object values.
extension Map: _ObservableCollection {
    public typealias _ObservedElement = Value
    public var _observedRealm: Realm? { location?.realm }
    public var _observedName: String { location.map { "'\($0.name)'" } ?? "an unmanaged Map" }

    public func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> AnyObject? {
        guard let location, let map = CollectionObservation.resolve(self, at: location, in: realm, Map.init(managed:index:)) else { return nil }
        return MapRegistration(map, filter: CollectionObservation.filter(keyPaths, elements: Value.self, realm: realm), block: block)
    }
}
