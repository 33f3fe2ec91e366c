import Foundation

/// Key-value coding on collections, as the Realm Swift SDK's collections have it:
/// `results.value(forKey: "name")` is the array of every object's `name`,
/// `value(forKey: "self")` the elements themselves, and `list.setValue(x, forKey: "p")`
/// sets `p` on every object (inside a write transaction). Nil values are `NSNull()` in
/// the arrays, as in the SDK's. An empty collection answers an empty array for any key;
/// otherwise a key that is not a property of the objects (or is not `"self"`, for a
/// collection of values) stops the program, as the SDK's `NSUnknownKeyException` does.
///
/// `value(forKeyPath:)` also takes the collection operators `@count`, `@min.p`, `@max.p`,
/// `@sum.p`, `@avg.p` (numbers as `NSNumber`), `@unionOfObjects.p` and
/// `@distinctUnionOfObjects.p`.
protocol _KeyValueCodingCollection {
    /// Every element's value at `keyPath`, in the collection's order.
    func _keyValueCodingValues(forKeyPath keyPath: String) -> [Any]
}

extension RealmCollection {
    /// The value of `key` for every element, in order (a set's as a `Set` when the
    /// values are hashable, as the SDK gives an `NSSet`).
    public func value(forKey key: String) -> Any? {
        let values = KeyValueCoding.values(Array(self), forKey: key)
        guard self is _UnorderedKeyValueCoding else { return values }
        let hashable = values.compactMap { $0 as? AnyHashable }
        return hashable.count == values.count ? Set(hashable) : values
    }

    /// The value at a dotted key path for every element, or a collection operator's
    /// result (`@count`, `@max.age`, ...).
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath.hasPrefix("@") { return KeyValueCoding.apply(operator: keyPath, to: Array(self)) }
        return KeyValueCoding.values(Array(self), forKeyPath: keyPath)
    }

    /// Sets the property `key` of every object of the collection (inside a write
    /// transaction for a managed one); `"self"` replaces every element of a list with
    /// `value`, and a set's elements with `value` alone.
    public func setValue(_ value: Any?, forKey key: String) {
        if let realm { realm.requireWrite() }
        if key == "self", let replaceable = self as? _SelfReplaceable {
            return replaceable._replaceAll(with: value)
        }
        for element in Array(self) {
            guard let object = AnyValueConversion.unwrap(element) as? ObjectBase else {
                KeyValueCoding.unknownKey(key, of: element)
            }
            object.setValue(value, forKey: key)
        }
    }

    func _keyValueCodingValues(forKeyPath keyPath: String) -> [Any] {
        KeyValueCoding.values(Array(self), forKeyPath: keyPath)
    }
}

extension List: _KeyValueCodingCollection {
    /// The value of `key` for every element, in order, as objects (`NSNull()` for nil).
    public func value(forKey key: String) -> [AnyObject] {
        KeyValueCoding.values(Array(self), forKey: key).map { $0 as AnyObject }
    }

    /// The value at a dotted key path for every element, in order, as objects.
    public func value(forKeyPath keyPath: String) -> [AnyObject] {
        KeyValueCoding.values(Array(self), forKeyPath: keyPath).map { $0 as AnyObject }
    }
}

extension MutableSet: _KeyValueCodingCollection, _UnorderedKeyValueCoding {
    /// The value of `key` for every element, as objects (`NSNull()` for nil).
    public func value(forKey key: String) -> [AnyObject] {
        KeyValueCoding.values(Array(self), forKey: key).map { $0 as AnyObject }
    }
}

extension LinkingObjects: _KeyValueCodingCollection {}
extension Results: _KeyValueCodingCollection {}

/// Marks the collections whose `value(forKey:)` is a set.
protocol _UnorderedKeyValueCoding {}

/// A collection whose elements `setValue(_:forKey: "self")` replaces.
protocol _SelfReplaceable {
    func _replaceAll(with value: Any?)
}

extension List: _SelfReplaceable {
    func _replaceAll(with value: Any?) {
        let element = KeyValueCoding.convert(value, to: Element.self, for: "List<\(Element.self)>")
        for index in indices { self[index] = element }
    }
}

extension MutableSet: _SelfReplaceable {
    func _replaceAll(with value: Any?) {
        let element = KeyValueCoding.convert(value, to: Element.self, for: "MutableSet<\(Element.self)>")
        removeAll()
        insert(element)
    }
}

/// The element-wise work of key-value coding on collections.
enum KeyValueCoding {
    /// Each element's value for `key` (`NSNull()` for nil).
    static func values(_ elements: [Any], forKey key: String) -> [Any] {
        elements.map { element in
            let unwrapped = AnyValueConversion.unwrap(element)
            if key == "self" { return unwrapped ?? NSNull() }
            guard let object = unwrapped as? ObjectBase else { unknownKey(key, of: element) }
            return AnyValueConversion.unwrap(object.value(forKey: key)) ?? NSNull()
        }
    }

    /// Each element's value at a dotted path (`NSNull()` for nil).
    static func values(_ elements: [Any], forKeyPath keyPath: String) -> [Any] {
        guard keyPath.contains(".") else { return values(elements, forKey: keyPath) }
        return elements.map { element in
            guard let object = AnyValueConversion.unwrap(element) as? ObjectBase else { unknownKey(keyPath, of: element) }
            return AnyValueConversion.unwrap(object.value(forKeyPath: keyPath)) ?? NSNull()
        }
    }

    /// The result of a collection operator (`@count`, `@sum.age`, ...) over `elements`.
    static func apply(operator keyPath: String, to elements: [Any]) -> Any? {
        if keyPath == "@count" { return NSNumber(value: elements.count) }
        guard let dot = keyPath.firstIndex(of: ".") else { unsupported(keyPath) }
        let name = keyPath[..<dot], rest = String(keyPath[keyPath.index(after: dot)...])
        let present = values(elements, forKeyPath: rest).filter { !($0 is NSNull) }
        switch name {
        case "@unionOfObjects":
            return present
        case "@distinctUnionOfObjects":
            var seen = Set<AnyHashable>()
            return present.filter { value in (value as? AnyHashable).map { seen.insert($0).inserted } ?? true }
        case "@min", "@max":
            let ordered = present.map { comparable($0, keyPath) }
            let pick = name == "@min" ? ordered.min(by: { $0.key < $1.key }) : ordered.max(by: { $0.key < $1.key })
            return pick?.value
        case "@sum", "@avg":
            let numbers = present.map { number($0, keyPath) }
            if name == "@avg" {
                guard !numbers.isEmpty else { return nil }
                return NSNumber(value: numbers.reduce(0) { $0 + $1.doubleValue } / Double(numbers.count))
            }
            if present.allSatisfy({ $0 is any BinaryInteger }) {
                return NSNumber(value: numbers.reduce(Int64(0)) { $0 + $1.int64Value })
            }
            return NSNumber(value: numbers.reduce(0) { $0 + $1.doubleValue })
        default:
            unsupported(keyPath)
        }
    }

    /// A value `@min` and `@max` can order, with the value they return for it.
    private static func comparable(_ value: Any, _ keyPath: String) -> (key: Double, value: Any) {
        if let date = value as? Date { return (date.timeIntervalSinceReferenceDate, date) }
        let number = number(value, keyPath)
        return (number.doubleValue, number)
    }

    private static func number(_ value: Any, _ keyPath: String) -> NSNumber {
        switch value {
        case let number as NSNumber: return number
        case let value as Int: return NSNumber(value: value)
        case let value as Int8: return NSNumber(value: value)
        case let value as Int16: return NSNumber(value: value)
        case let value as Int32: return NSNumber(value: value)
        case let value as Int64: return NSNumber(value: value)
        case let value as Float: return NSNumber(value: value)
        case let value as Double: return NSNumber(value: value)
        case let value as Decimal128: return NSNumber(value: value.doubleValue)
        default:
            preconditionFailure("Cannot apply '\(keyPath)': the value '\(value)' of type '\(type(of: value))' is not a number.")
        }
    }

    /// Converts a value given to `setValue(_:forKey: "self")` to the element type.
    static func convert<Element: RealmCollectionValue>(_ value: Any?, to _: Element.Type, for collection: String) -> Element {
        do {
            return try Element._orFromAny(value, nil)
        } catch {
            preconditionFailure("Invalid value '\(value.map { "\($0)" } ?? "nil")' for an element of \(collection): \(error.localizedDescription)")
        }
    }

    static func unknownKey(_ key: String, of element: Any) -> Never {
        preconditionFailure("NSUnknownKeyException: this class is not key value coding-compliant for the key '\(key)': the elements are values of type '\(type(of: element))', whose only key is 'self'.")
    }

    private static func unsupported(_ keyPath: String) -> Never {
        preconditionFailure("Unsupported KVC collection operator found in key path '\(keyPath)'")
    }
}

/// Key-value coding on a map, as the SDK's: the key is a key of the map, not a property.
extension Map {
    /// The value at `key` as an object, nil when the map has no such key.
    public func value(forKey key: String) -> AnyObject? {
        AnyValueConversion.unwrap(self[Key(_orKey: key)] as Any?).map { $0 as AnyObject }
    }

    /// The value at `key` for a key without dots; through a dotted path, the value of
    /// the rest of the path in the object at the first key (`"home.city"`). Collection
    /// operators (`@count`, `@max.p`, ...) apply to the values.
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        if keyPath.hasPrefix("@") {
            return KeyValueCoding.apply(operator: keyPath, to: values.map { $0 as Any }).map { $0 as AnyObject }
        }
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        guard let object = value(forKey: String(keyPath[..<dot])) as? ObjectBase else { return nil }
        return AnyValueConversion.unwrap(object.value(forKeyPath: String(keyPath[keyPath.index(after: dot)...]))).map { $0 as AnyObject }
    }

    /// Sets the value at `key` (nil removes the key); inside a write transaction for a
    /// managed map. A value that is not a `Value` stops the program.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value else {
            self[Key(_orKey: key)] = nil
            return
        }
        self[Key(_orKey: key)] = KeyValueCoding.convert(value, to: Value.self, for: "Map<String, \(Value.self)>")
    }
}

/// The wrapper answers as the wrapped collection does (a set's values as a `Set`).
extension AnyRealmCollection {
    public func value(forKey key: String) -> Any? { base.value(forKey: key) }
    public func value(forKeyPath keyPath: String) -> Any? { base.value(forKeyPath: keyPath) }
    public func setValue(_ value: Any?, forKey key: String) { base.setValue(value, forKey: key) }
}
