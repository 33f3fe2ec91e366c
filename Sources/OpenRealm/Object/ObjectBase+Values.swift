import Foundation
import ORCore

extension ObjectBase {
    /// Sets an unmanaged object's properties from a dictionary (by name), an array (in
    /// property order) or another object (by name). Returns the indexes of the
    /// properties given. With `realm`, nested values that describe objects are created
    /// in it.
    @discardableResult
    func _setValues(from value: Any, policy: Realm.UpdatePolicy, realm: Realm?) throws -> Set<Int> {
        let info = _typeInfo
        let context = realm.map { realm -> _ORWriteContext in
            let context = _ORWriteContext(realm: realm, policy: policy, arena: realm.arena)
            context.copiesObjects = true
            return context
        }
        var given = Set<Int>()
        func assign(_ index: Int, _ raw: Any?) throws {
            let property = info.properties[index]
            guard property.isStored else { return }
            let converted: Any
            do {
                converted = try property.valueType._orFromAny(raw, context)
            } catch let error as RealmError {
                throw RealmError(error.code, "Invalid value for property '\(info.className).\(property.name)': \(error.message)")
            }
            guard property.field.setUnmanaged(self, property.offset, converted) else {
                throw RealmError(.invalidValue, "Invalid value '\(raw.map { "\($0)" } ?? "nil")' for property '\(info.className).\(property.name)'.")
            }
            given.insert(index)
        }
        switch value {
        case let dictionary as [String: Any?]:
            for (name, raw) in dictionary {
                guard let index = info.index(ofProperty: name) else {
                    throw RealmError(.invalidValue, "Invalid property name '\(name)' for class '\(info.className)'.")
                }
                try assign(index, raw)
            }
        case let dictionary as [String: Any]:
            for (name, raw) in dictionary {
                guard let index = info.index(ofProperty: name) else {
                    throw RealmError(.invalidValue, "Invalid property name '\(name)' for class '\(info.className)'.")
                }
                try assign(index, raw)
            }
        case let array as [Any]:
            // As in the Realm Swift SDK, fewer values than properties set the first ones
            // (the others keep their defaults); only more values than properties are refused.
            let stored = info.properties.indices.filter { info.properties[$0].isStored }
            guard array.count <= stored.count else {
                throw RealmError(.invalidValue, "Invalid array input: more values (\(array.count)) than properties (\(stored.count)) of class '\(info.className)'.")
            }
            for (index, raw) in zip(stored, array) { try assign(index, raw) }
        case let object as ObjectBase:
            if object.isInvalidated {
                throw RealmError(.objectInvalidated, "Object has been deleted or invalidated. (The '\(object._typeInfo.className)' given as the value of a '\(info.className)'.)")
            }
            for (index, property) in info.properties.enumerated() where property.isStored {
                let sourceInfo = object._typeInfo
                if let dynamic = object as? DynamicObject {
                    // A dynamic object of stored names holds the property under its column name.
                    let key = dynamic._dynamicUsesModelNames ? property.name : property.columnName
                    if dynamic._dynamicProperty(named: key) != nil { try assign(index, object[key]) }
                } else if sourceInfo.index(ofProperty: property.name) != nil {
                    try assign(index, object[property.name])
                }
            }
        default:
            throw RealmError(.invalidValue, "Invalid value '\(value)' of type '\(type(of: value))' to initialize an object of class '\(info.className)': use a dictionary, an array or an object.")
        }
        return given
    }
}

extension ObjectBase {
    /// An unmanaged deep copy of a managed embedded object (the object itself when
    /// unmanaged): what assigning it to a property copies. Taken before any row changes,
    /// because the assignment may delete the very object it copies
    /// (`parent.child = parent.child`, `list[0] = list[0]`).
    func _detachedCopy() -> ObjectBase {
        guard _realm != nil, self is EmbeddedObject else { return self }
        let info = _typeInfo
        let copy = type(of: self).init()
        for (i, property) in info.properties.enumerated() where property.isStored {
            var value = property.field.getAny(self, i)
            if let child = AnyValueConversion.embeddedObject(value) as? EmbeddedObject {
                value = child._detachedCopy()
            } else if let collection = value as? EmbeddedCollection, let detached = collection._orDetachedElements() {
                value = detached
            }
            if let converted = try? property.valueType._orFromAny(value, nil) {
                _ = property.field.setUnmanaged(copy, property.offset, converted)
            }
        }
        return copy
    }

    /// Typed property reads by index for the dynamic paths (`object["name"]`).
    func _value(at index: Int) -> Any? {
        _typeInfo.properties[index].field.getAny(self, index)
    }
}

extension PersistedField {
    /// Reads a property without knowing its static type.
    static func getAny(_ object: ObjectBase, _ index: Int) -> Any? {
        let property = object._typeInfo.properties[index]
        if object._realm != nil, object._bound != nil {
            return property.valueType._orGetAny(object, index)
        }
        return unmanagedValue(object, property.offset)._orToAny()
    }

    /// Writes a property without knowing its static type: converts the value first.
    static func setAny(_ object: ObjectBase, _ index: Int, _ value: Any?, policy: Realm.UpdatePolicy) throws {
        let property = object._typeInfo.properties[index]
        guard property.isStored else {
            throw RealmError(.invalidArgument, "Property '\(property.name)' is a LinkingObjects property and cannot be set.")
        }
        if let realm = object._realm, object._bound != nil {
            realm.requireWrite()
            let context = _ORWriteContext(realm: realm, policy: policy, arena: realm.arena)
            let converted = try property.valueType._orFromAny(value, context)
            property.valueType._orSetAny(object, index, converted)
            return
        }
        let converted = try property.valueType._orFromAny(value, nil)
        _ = setUnmanaged(object, property.offset, converted)
    }
}

extension _Persistable {
    static func _orGetAny(_ object: ObjectBase, _ index: Int) -> Any? {
        _orGet(object, index)._orToAny()
    }

    static func _orSetAny(_ object: ObjectBase, _ index: Int, _ value: Any) {
        guard let typed = value as? Self else { return }
        _orSet(object, index, typed)
    }
}
