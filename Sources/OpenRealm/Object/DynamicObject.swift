import Foundation
import ORCore

/// An object read and written by property name through the stored schema, without a
/// model class: what migrations work with, and what `realm.dynamicObjects(_:)` hands out.
/// Properties read as `object["name"]` or, as members, `object.name`.
@dynamicMemberLookup
public final class DynamicObject: Object {
    var _dynamicEntry: StoredSchema.ClassEntry!
    var _dynamicReadOnly = false
    /// Whether properties go by the model classes' Swift names (a migration's new
    /// objects) rather than by the names the file stores (its old objects): they differ
    /// where a class renames properties with `propertiesMapping()`.
    var _dynamicUsesModelNames = false

    public required init() { super.init() }

    init(realm: Realm, entry: StoredSchema.ClassEntry, key: UInt64, readOnly: Bool, modelNames: Bool = false) {
        super.init()
        _realm = realm
        _key = key
        _epoch = realm.state.invalidations
        _dynamicEntry = entry
        _dynamicReadOnly = readOnly
        _dynamicUsesModelNames = modelNames
    }

    /// The name property `stored` goes by on this object (see `_dynamicUsesModelNames`).
    func _dynamicName(of stored: StoredSchema.PropertyEntry) -> String {
        guard _dynamicUsesModelNames, let info = ObjectTypeInfo.named(_dynamicEntry.name) else { return stored.name }
        return info.propertyName(ofColumnNamed: stored.name) ?? stored.name
    }

    /// The stored property `key` names on this object, or nil.
    func _dynamicProperty(named key: String) -> StoredSchema.PropertyEntry? {
        guard let entry = _dynamicEntry else { return nil }
        guard _dynamicUsesModelNames, let info = ObjectTypeInfo.named(entry.name) else { return entry.property(named: key) }
        return entry.property(named: info.columnName(ofProperty: key))
    }

    static func create(realm: Realm, entry: StoredSchema.ClassEntry, value: Any, modelNames: Bool = false) throws -> DynamicObject {
        let txn = realm.txn
        let values = (value as? [String: Any]) ?? [:]
        let named = DynamicObject(realm: realm, entry: entry, key: 0, readOnly: true, modelNames: modelNames)
        var cols: [UInt16] = []
        var encoded: [orc_value] = []
        var later: [(StoredSchema.PropertyEntry, Any?)] = []
        for property in entry.properties {
            guard let given = values[named._dynamicName(of: property)] else { continue }
            if property.collection != ORC_COLL_NONE { later.append((property, given)); continue }
            cols.append(property.column)
            encoded.append(try DynamicValues.encode(given, property, realm))
        }
        if let pk = entry.properties.first(where: \.isPrimaryKey), values[named._dynamicName(of: pk)] == nil {
            throw RealmError(.invalidValue, "Missing value for primary key property '\(entry.name).\(named._dynamicName(of: pk))'.")
        }
        var key: UInt64 = 0
        try ORC.check(orc_obj_create(txn, entry.table, cols, encoded, cols.count, &key), "Creating a '\(entry.name)'")
        let object = DynamicObject(realm: realm, entry: entry, key: key, readOnly: false, modelNames: modelNames)
        for (property, given) in later { object[object._dynamicName(of: property)] = given }
        return object
    }

    public override var description: String {
        guard let entry = _dynamicEntry else { return "DynamicObject(unbound)" }
        let fields = entry.properties.map(_dynamicName).map { "\($0) = \(self[$0].map { "\($0)" } ?? "nil")" }
        return "\(entry.name) {\n" + fields.map { "    \($0);" }.joined(separator: "\n") + "\n}"
    }

    /// The value of a property by name, as a member: `dog.name` is `dog["name"]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The value of a property by name (the key-value coding fallback the SDK's dynamic
    /// objects answer): `self[key]`.
    public func value(forUndefinedKey key: String) -> Any? { self[key] }

    /// Sets a property by name: `self[key] = value`.
    public func setValue(_ value: Any?, forUndefinedKey key: String) { self[key] = value }

    /// This object in `realm` (another version of its file), or nil when it is not there.
    func _dynamicRebound(to realm: Realm) -> DynamicObject? {
        _dynamicEntry.flatMap { entry in
            Self._existing(entry.name, key: _key, in: realm, readOnly: _dynamicReadOnly, modelNames: _dynamicUsesModelNames)
        }
    }

    /// The object `key` of the stored class `className` in `realm`, or nil when the class
    /// or the object is not there.
    static func _existing(_ className: String, key: UInt64, in realm: Realm, readOnly: Bool = false,
                          modelNames: Bool = true) -> DynamicObject? {
        guard let entry = realm._coordinator.storedSchema(realm.txn)[className], orc_obj_exists(realm.txn, entry.table, key) else {
            return nil
        }
        return DynamicObject(realm: realm, entry: entry, key: key, readOnly: readOnly, modelNames: modelNames)
    }

    /// The value of a property by name: scalars as Swift values, links as `DynamicObject`,
    /// collections as arrays (dictionaries as `[String: Any]`).
    public override subscript(key: String) -> Any? {
        get {
            guard let entry = _dynamicEntry, let realm = _realm else { return nil }
            _requireNotStale()
            guard let property = _dynamicProperty(named: key) else {
                preconditionFailure("Invalid property name '\(key)' for class '\(entry.name)'.")
            }
            return DynamicValues.read(realm, entry, _key, property, modelNames: _dynamicUsesModelNames)
        }
        set {
            guard let entry = _dynamicEntry, let realm = _realm else { return }
            _requireNotStale()
            guard let property = _dynamicProperty(named: key) else {
                preconditionFailure("Invalid property name '\(key)' for class '\(entry.name)'.")
            }
            precondition(!_dynamicReadOnly, "Cannot modify '\(entry.name).\(key)' of an old object in a migration: modify the new object.")
            realm.requireWrite()
            do {
                try DynamicValues.write(newValue, realm, entry, _key, property)
            } catch {
                realm._failWrite(error)
            }
        }
    }
}

/// Conversions between Swift values and stored values by the stored property's type.
enum DynamicValues {
    static func decode(_ value: orc_value, _ realm: Realm, linkTable: UInt32, modelNames: Bool = false) -> Any? {
        switch value.type {
        case ORC_TYPE_NULL: return nil
        case ORC_TYPE_BOOL: return value.boolean
        case ORC_TYPE_INT: return Int(value.integer)
        case ORC_TYPE_FLOAT: return value.fnum
        case ORC_TYPE_DOUBLE: return value.dnum
        case ORC_TYPE_STRING: return String._orDecode(value, realm)
        case ORC_TYPE_BINARY: return Data._orDecode(value, realm)
        case ORC_TYPE_TIMESTAMP: return Date._orDecode(value, realm)
        case ORC_TYPE_DECIMAL: return Decimal128._orDecode(value, realm)
        case ORC_TYPE_OBJECT_ID: return ObjectId._orDecode(value, realm)
        case ORC_TYPE_UUID: return UUID._orDecode(value, realm)
        case ORC_TYPE_LINK:
            guard let entry = realm._coordinator.storedSchema(realm.txn)[table: value.link.table] else { return nil }
            return DynamicObject(realm: realm, entry: entry, key: value.link.key, readOnly: false, modelNames: modelNames)
        default: return nil
        }
    }

    static func read(_ realm: Realm, _ entry: StoredSchema.ClassEntry, _ key: UInt64, _ property: StoredSchema.PropertyEntry,
                     modelNames: Bool = false) -> Any? {
        let txn = realm.txn
        var value = orc_value()
        switch property.collection {
        case ORC_COLL_NONE:
            guard orc_obj_get(txn, entry.table, key, property.column, &value) == ORC_OK else { return nil }
            return decode(value, realm, linkTable: property.linkTable, modelNames: modelNames)
        case ORC_COLL_DICT:
            var size = 0
            guard orc_coll_size(txn, entry.table, key, property.column, &size) == ORC_OK else { return nil }
            var result: [String: Any] = [:]
            for i in 0..<size {
                var k = orc_value()
                guard orc_dict_key_at(txn, entry.table, key, property.column, i, &k) == ORC_OK else { continue }
                let name = String._orDecode(k, realm)
                let status = name.withCString { orc_dict_get(txn, entry.table, key, property.column, $0, strlen($0), &value) }
                if status == ORC_OK { result[name] = decode(value, realm, linkTable: property.linkTable, modelNames: modelNames) ?? NSNull() }
            }
            return result
        default:
            var size = 0
            guard orc_coll_size(txn, entry.table, key, property.column, &size) == ORC_OK else { return nil }
            var result: [Any] = []
            for i in 0..<size where orc_coll_get(txn, entry.table, key, property.column, i, &value) == ORC_OK {
                result.append(decode(value, realm, linkTable: property.linkTable, modelNames: modelNames) ?? NSNull())
            }
            return result
        }
    }

    static func encode(_ given: Any?, _ property: StoredSchema.PropertyEntry, _ realm: Realm) throws -> orc_value {
        let context = _ORWriteContext(realm: realm, policy: .error, arena: realm.arena)
        guard let given = AnyValueConversion.unwrap(given) else { return .null }
        func convert<T: _PersistableValue>(_ type: T.Type) throws -> orc_value {
            try T._orFromAny(given, context)._orEncode(context)
        }
        switch property.type {
        case ORC_TYPE_BOOL: return try convert(Bool.self)
        case ORC_TYPE_INT: return try convert(Int64.self)
        case ORC_TYPE_FLOAT: return try convert(Float.self)
        case ORC_TYPE_DOUBLE: return try convert(Double.self)
        case ORC_TYPE_STRING: return try convert(String.self)
        case ORC_TYPE_BINARY: return try convert(Data.self)
        case ORC_TYPE_TIMESTAMP: return try convert(Date.self)
        case ORC_TYPE_DECIMAL: return try convert(Decimal128.self)
        case ORC_TYPE_OBJECT_ID: return try convert(ObjectId.self)
        case ORC_TYPE_UUID: return try convert(UUID.self)
        case ORC_TYPE_MIXED: return try convert(AnyRealmValue.self)
        case ORC_TYPE_LINK:
            if let object = given as? ObjectBase, object._realm != nil {
                let table = object._table ?? 0
                return .link(table, object._key)
            }
            throw RealmError(.invalidValue, "A link value must be a managed object; got '\(given)'.")
        default:
            throw RealmError(.invalidValue, "Cannot store '\(given)' in property '\(property.name)'.")
        }
    }

    static func write(_ given: Any?, _ realm: Realm, _ entry: StoredSchema.ClassEntry, _ key: UInt64, _ property: StoredSchema.PropertyEntry) throws {
        let txn = realm.txn
        switch property.collection {
        case ORC_COLL_NONE:
            var value = try encode(given, property, realm)
            try ORC.check(orc_obj_set(txn, entry.table, key, property.column, &value), "Setting '\(entry.name).\(property.name)'")
        case ORC_COLL_DICT:
            try ORC.check(orc_coll_clear(txn, entry.table, key, property.column), "Setting '\(entry.name).\(property.name)'")
            for (k, v) in (given as? [String: Any]) ?? [:] {
                var value = try encode(v, property, realm)
                try ORC.check(k.withCString { orc_dict_set(txn, entry.table, key, property.column, $0, strlen($0), &value) },
                              "Setting '\(entry.name).\(property.name)[\(k)]'")
            }
        default:
            try ORC.check(orc_coll_clear(txn, entry.table, key, property.column), "Setting '\(entry.name).\(property.name)'")
            let elements = (given as? [Any]) ?? []
            for (i, element) in elements.enumerated() {
                var value = try encode(element, property, realm)
                if property.collection == ORC_COLL_SET {
                    try ORC.check(orc_set_insert(txn, entry.table, key, property.column, &value, nil), "Setting '\(entry.name).\(property.name)'")
                } else {
                    try ORC.check(orc_list_insert(txn, entry.table, key, property.column, i, &value), "Setting '\(entry.name).\(property.name)'")
                }
            }
        }
    }
}

extension ObjectBase {
    /// The table of a managed object's class: its binding's, or a `DynamicObject`'s
    /// stored class's; nil for an unmanaged object.
    final var _table: UInt32? { _bound?.table ?? (self as? DynamicObject)?._dynamicEntry?.table }
}

// MARK: Links and collections of dynamic objects

extension DynamicObject {
    /// A link read as a `DynamicObject` of the class it points to (in `List<DynamicObject>`,
    /// `MutableSet<DynamicObject>`, `Map<String, DynamicObject?>`).
    static func _decodeLink(_ value: orc_value, _ realm: Realm) -> DynamicObject {
        guard let entry = realm._coordinator.storedSchema(realm.txn)[table: value.link.table] else {
            preconditionFailure("A link points to table \(value.link.table), which the realm's schema does not have.")
        }
        return DynamicObject(realm: realm, entry: entry, key: value.link.key, readOnly: false, modelNames: true)
    }

    /// A link to this object: it must be managed by the realm written to.
    func _encodeLink(_ context: _ORWriteContext) throws -> orc_value {
        guard let entry = _dynamicEntry, let realm = _realm, let target = context.realm, realm._coordinator === target._coordinator else {
            throw RealmError(.invalidValue, "A DynamicObject can be linked to only by objects of its own realm.")
        }
        return .link(entry.table, _key)
    }
}

extension Object {
    /// The list property `propertyName` of this managed object, its objects read as
    /// `DynamicObject`s.
    ///
    /// Stops when the object is unmanaged or has no list of objects of that name.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        let (owner, index) = _dynamicCollection(propertyName, ORC_COLL_LIST, "list")
        return List<DynamicObject>(managed: owner, index: index)
    }

    /// The set property `propertyName` of this managed object, its objects read as
    /// `DynamicObject`s.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        let (owner, index) = _dynamicCollection(propertyName, ORC_COLL_SET, "set")
        return MutableSet<DynamicObject>(managed: owner, index: index)
    }

    /// The map property `propertyName` of this managed object, its objects read as
    /// `DynamicObject`s.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        let (owner, index) = _dynamicCollection(propertyName, ORC_COLL_DICT, "map")
        return Map<Key, DynamicObject?>(managed: owner, index: index)
    }

    /// The accessor that owns the collection `propertyName` (a model accessor of this
    /// object's row) and the property's index in its class: what managed collections
    /// are made of. A `DynamicObject` of a class with no model class in this process has
    /// none.
    private func _dynamicCollection(_ propertyName: String, _ kind: orc_collection, _ what: String) -> (ObjectBase, Int) {
        guard let realm = _realm else {
            preconditionFailure("'\(propertyName)' of an unmanaged object cannot be read as a \(what) of DynamicObjects: add the object to a realm first.")
        }
        _requireNotStale()
        var owner: ObjectBase = self
        if let dynamic = self as? DynamicObject {
            guard let entry = dynamic._dynamicEntry, let bound = realm._coordinator.binding(table: entry.table) else {
                preconditionFailure("'\(propertyName)' of a '\(dynamic._dynamicEntry?.name ?? "?")' cannot be read as a \(what): the class has no model class in this process; read dynamicObject[\"\(propertyName)\"] instead.")
            }
            owner = realm._accessor(bound, _key)
        }
        guard let bound = owner._bound, let index = bound.info.index(ofProperty: propertyName),
              bound.info.properties[index].descriptor.collection == kind,
              bound.info.properties[index].descriptor.type == ORC_TYPE_LINK else {
            preconditionFailure("Property '\(propertyName)' of '\(owner._bound?.className ?? "?")' is not a \(what) of objects.")
        }
        return (owner, index)
    }
}
