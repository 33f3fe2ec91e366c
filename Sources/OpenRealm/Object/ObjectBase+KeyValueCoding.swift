import Foundation

/// Key-value coding on objects, as the Realm Swift SDK's objects inherit it from
/// `NSObject`: a property by name (`dog.value(forKey: "name")`), `"self"` for the object
/// itself, dotted paths through links (`value(forKeyPath: "owner.name")`). Linux has no
/// Objective-C runtime, so this is written out: the keys are the persisted properties
/// (and `LinkingObjects` properties) of the class.
extension ObjectBase {
    /// The value of the property named `key` (as `object[key]` reads it), or the object
    /// itself for `"self"`. An unknown key stops the program, as the SDK's
    /// `NSUnknownKeyException` does.
    public func value(forKey key: String) -> Any? {
        if key == "self" { return self }
        _requireKeyValueCodingKey(key)
        return self[key]
    }

    /// Sets the property named `key` (as `object[key] = value` does): on a managed
    /// object only inside a write transaction, else the program stops. An unknown key
    /// stops the program, as the SDK's `NSUnknownKeyException` does.
    public func setValue(_ value: Any?, forKey key: String) {
        _requireKeyValueCodingKey(key)
        self[key] = value
    }

    /// The value at a dotted path through links (`"owner.address.city"`); nil past a nil
    /// link. Through a collection property the rest of the path applies to each of its
    /// elements (`"dogs.name"` is the array of the dogs' names).
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let head = String(keyPath[..<dot]), rest = String(keyPath[keyPath.index(after: dot)...])
        switch AnyValueConversion.unwrap(value(forKey: head)) {
        case nil: return nil
        case let object as ObjectBase: return object.value(forKeyPath: rest)
        case let collection as _KeyValueCodingCollection: return collection._keyValueCodingValues(forKeyPath: rest)
        case let other?:
            preconditionFailure("NSUnknownKeyException: '\(_typeInfo.className).\(head)' is a \(type(of: other)), which has no key '\(rest)' (in key path '\(keyPath)').")
        }
    }

    /// Sets the property at the end of a dotted path through links (`"owner.name"`).
    /// A nil link on the way stops the program.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.lastIndex(of: ".") else { return setValue(value, forKey: keyPath) }
        let path = String(keyPath[..<dot]), key = String(keyPath[keyPath.index(after: dot)...])
        guard let target = AnyValueConversion.unwrap(self.value(forKeyPath: path)) as? ObjectBase else {
            preconditionFailure("Cannot set '\(keyPath)' of a '\(_typeInfo.className)': '\(path)' is not an object.")
        }
        target.setValue(value, forKey: key)
    }

    /// Stops with the SDK's exception name unless `key` names a property of the class.
    /// Dynamic objects check their own schema in their subscript.
    final func _requireKeyValueCodingKey(_ key: String) {
        guard !(self is DynamicObject), _typeInfo.index(ofProperty: key) == nil else { return }
        preconditionFailure("NSUnknownKeyException: this class is not key value coding-compliant for the key '\(key)': class '\(_typeInfo.className)' has no property of that name.")
    }
}
