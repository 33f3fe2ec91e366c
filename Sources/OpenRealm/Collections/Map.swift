import Foundation
import ORCore

/// A dictionary from string keys to values or objects, the type of map properties
/// (`@Persisted var scores: Map<String, Int>`). Keys are non-empty, contain no '.',
/// and do not start with '$'. A managed map keeps its keys in order.
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: Sequence, CustomStringConvertible {
    var unmanaged: [Key: Value]
    /// Where the managed collection lives; nil while unmanaged (set when adopted by an
    /// added object, `_adopt`).
    private(set) var location: CollectionLocation?

    public init() {
        unmanaged = [:]
        location = nil
    }

    init(managed object: ObjectBase, index: Int) {
        unmanaged = [:]
        location = CollectionLocation(object, index)
    }

    public var realm: Realm? { location?.realm }
    /// Whether the owning object was deleted, or the realm invalidated since it was read.
    public var isInvalidated: Bool { location?.isInvalidated ?? false }
    public var isFrozen: Bool { location?.realm.isFrozen ?? false }

    public var count: Int { location?.size() ?? unmanaged.count }
    public var isEmpty: Bool { count == 0 }

    /// The keys, in key order.
    public var keys: [Key] {
        guard let location else { return unmanaged.keys.sorted() }
        return (0..<location.size()).map { i in
            var key = orc_value()
            _ = orc_dict_key_at(location.txn, location.table, location.key, location.column, i, &key)
            return Key(_orKey: String._orDecode(key, location.realm))
        }
    }

    /// The values, in key order.
    public var values: [Value] { keys.compactMap { self[$0] } }

    /// The value at `key`, nil when absent. Setting nil removes the key.
    public subscript(key: Key) -> Value? {
        get {
            guard let location else { return unmanaged[key] }
            var value = orc_value()
            let status = key._orKey.withCString { orc_dict_get(location.txn, location.table, location.key, location.column, $0, strlen($0), &value) }
            guard status == ORC_OK else { return nil }
            return Value._orDecode(value, location.realm)
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    public func object(forKey key: Key) -> Value? { self[key] }

    public func updateValue(_ value: Value, forKey key: Key) {
        guard let location else { unmanaged[key] = value; return }
        location.write("set in") { context, txn in
            if Value._orIsEmbedded, let object = AnyValueConversion.embeddedObject(value) {
                let source = object._detachedCopy()
                var child: UInt64 = 0
                var dictKey = context.arena.string(key._orKey)
                try location.check(orc_obj_create_embedded(txn, location.table, location.key, location.column, 0, &dictKey, &child), "Setting in")
                try location.realm._fillEmbedded(source, key: child, policy: .error)
                return
            }
            var encoded = try value._orEncode(context)
            let name = key._orKey
            let status = name.withCString { orc_dict_set(txn, location.table, location.key, location.column, $0, strlen($0), &encoded) }
            try location.check(status, "Setting key '\(name)' in")
        }
    }


    public func removeObject(for key: Key) {
        guard let location else { unmanaged[key] = nil; return }
        location.write("remove from") { _, txn in
            let status = key._orKey.withCString { orc_dict_erase(txn, location.table, location.key, location.column, $0, strlen($0), nil) }
            try location.check(status, "Removing from")
        }
    }

    public func removeAll() {
        guard let location else { unmanaged.removeAll(); return }
        location.write("clear") { _, txn in
            try location.check(orc_coll_clear(txn, location.table, location.key, location.column), "Clearing")
        }
    }

    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows where S.Element == (key: Key, value: Value) {
        for (key, value) in other {
            if let existing = self[key] { self[key] = try combine(existing, value) } else { self[key] = value }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> {
        keys.compactMap { key in self[key].map { (key: key, value: $0) } }.makeIterator()
    }

    /// The entries as a sequence of key–value pairs.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] { Array(self) }

    /// The elements, described as the Realm Swift SDK does (`DescriptionWithMaxDepth`).
    public var description: String { _description(maxDepth: DescriptionWithMaxDepth.maxDepth) }

    var entries: [(Key, Value)] { location == nil ? unmanaged.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } : map { ($0.key, $0.value) } }
}

extension Map: _Persistable {
    public static var _orDescriptor: _ORPropertyDescriptor {
        var descriptor = Value._orDescriptor
        descriptor.collection = ORC_COLL_DICT
        // A custom type stored as an embedded object may be missing from a map even
        // where it is not optional (it reads as its default), as in the Realm Swift SDK.
        if Value.self is any _CustomPersistable.Type && descriptor.type == ORC_TYPE_LINK { descriptor.optional = true }
        return descriptor
    }
    public static func _orDefault() -> Map<Key, Value> { Map() }
    public static func _orGet(_ object: ObjectBase, _ index: Int) -> Map<Key, Value> {
        object._managedCollection(index) { Map(managed: object, index: index) }
    }
    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: Map<Key, Value>) {
        value._orAssignAsProperty(of: object, index: index)
    }
    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> Map<Key, Value> {
        recorder.append(object, index)
        return Map()
    }
    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Map<Key, Value> {
        let result = Map()
        if let map = value as? Map<Key, Value> {
            for (k, v) in map.entries { result.unmanaged[k] = v }
            return result
        }
        guard let unwrapped = AnyValueConversion.unwrap(value) else { return result }
        guard let dictionary = unwrapped as? [String: Any] else {
            throw RealmError(.invalidValue, "Invalid value '\(unwrapped)' for a Map<String, \(Value.self)>: expected a dictionary.")
        }
        for (k, v) in dictionary { result.unmanaged[Key(_orKey: k)] = try Value._orFromAny(v, context) }
        return result
    }
    public func _orToAny() -> Any? { self }
}

extension Map: CollectionAssignable {
    func _orAssign(to object: ObjectBase, index: Int, context: _ORWriteContext) throws {
        // Embedded values are copied before the clear, which may delete them (`map = map`).
        let source = entries
        let detached = Value._orIsEmbedded ? source.map { AnyValueConversion.embeddedObject($0.1)?._detachedCopy() } : []
        let target = Map(managed: object, index: index)
        let location = target.location!
        try location.check(orc_coll_clear(location.realm.writeTxn!, location.table, location.key, location.column), "Clearing")
        for (i, (key, value)) in source.enumerated() {
            let txn = location.realm.writeTxn!
            if Value._orIsEmbedded, let object = detached[i] {
                var child: UInt64 = 0
                var dictKey = context.arena.string(key._orKey)
                try location.check(orc_obj_create_embedded(txn, location.table, location.key, location.column, 0, &dictKey, &child), "Setting in")
                try location.realm._fillEmbedded(object, key: child, policy: context.policy)
                continue
            }
            var encoded = try value._orEncode(context)
            let status = key._orKey.withCString { orc_dict_set(txn, location.table, location.key, location.column, $0, strlen($0), &encoded) }
            try location.check(status, "Setting key '\(key._orKey)' in")
        }
    }
}

extension Map: EmbeddedCollection {
    func _orDetachedElements() -> Any? {
        guard Value._orIsEmbedded, location != nil else { return nil }
        var result: [String: Any] = [:]
        for (key, value) in self {
            result[key._orKey] = AnyValueConversion.embeddedObject(value)?._detachedCopy() ?? NSNull()
        }
        return result
    }
}

extension Map: _ManagedCollection {
    func _adopt(_ object: ObjectBase, _ index: Int) {
        location = CollectionLocation(object, index)
        unmanaged = [:]
    }
}
