import Foundation

/// Key-value access over collections of objects, as the SDK's collections have it:
/// `results.value(forKey: "taskName")` is the array of every object's `taskName`.
extension Results where Element: ObjectBase {
    /// The values of a property (or dotted path through links) of every object, in order.
    public func value(forKey key: String) -> Any? { map { $0._value(forKeyPath: key) } }
    /// The same as `value(forKey:)` for a dotted path.
    public func value(forKeyPath keyPath: String) -> Any? { value(forKey: keyPath) }
    /// Sets a property of every object (inside a write transaction).
    public func setValue(_ value: Any?, forKey key: String) { for object in self { object[key] = value } }
}

extension _ObjectCollectionQueries where Self: Sequence, Self.Element: ObjectBase {
    /// The values of a property (or dotted path through links) of every object, in order.
    public func value(forKey key: String) -> Any? { map { $0._value(forKeyPath: key) } }
    /// The same as `value(forKey:)` for a dotted path.
    public func value(forKeyPath keyPath: String) -> Any? { value(forKey: keyPath) }
}

extension ObjectBase {
    /// A property's value, following links for a dotted path (nil past a nil link).
    func _value(forKeyPath keyPath: String) -> Any {
        var current: Any? = self
        for name in keyPath.split(separator: ".") {
            guard let object = AnyValueConversion.unwrap(current) as? ObjectBase else { return current as Any }
            current = object[String(name)]
        }
        return current as Any
    }
}
