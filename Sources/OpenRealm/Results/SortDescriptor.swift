import Foundation

/// A sort key for `sorted(by:)`: a key path and a direction.
public struct SortDescriptor: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The property (or dotted path through to-one links) to sort by.
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// A sort key from a typed key path (`SortDescriptor(keyPath: \Task.dueDate)`).
    public init<Root: ObjectBase, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        self.keyPath = _KeyPathRecorder.names(of: keyPath).joined(separator: ".")
        self.ascending = ascending
    }

    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key in the other direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }

    public var description: String { "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))" }
}

/// Types `min` and `max` apply to.
public protocol MinMaxType {}
extension Int: MinMaxType {}
extension Int8: MinMaxType {}
extension Int16: MinMaxType {}
extension Int32: MinMaxType {}
extension Int64: MinMaxType {}
extension Float: MinMaxType {}
extension Double: MinMaxType {}
extension Date: MinMaxType {}
extension Decimal128: MinMaxType {}
extension AnyRealmValue: MinMaxType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}

/// Types `sum` and `average` apply to.
public protocol AddableType {}
extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}
extension Float: AddableType {}
extension Double: AddableType {}
extension Decimal128: AddableType {}
extension AnyRealmValue: AddableType {}
extension Optional: AddableType where Wrapped: AddableType {}

/// Types a typed key path can sort by (`sorted(by: \.age)`): the stored types the
/// Realm Swift SDK sorts, plus `ObjectId` and `UUID`, which OpenRealm orders too. A
/// `PersistableEnum` or `CustomPersistable` property sorts by its persisted type.
public protocol SortableType {}
extension Int: SortableType {}
extension Int8: SortableType {}
extension Int16: SortableType {}
extension Int32: SortableType {}
extension Int64: SortableType {}
extension Float: SortableType {}
extension Double: SortableType {}
extension String: SortableType {}
extension Data: SortableType {}
extension Date: SortableType {}
extension Decimal128: SortableType {}
extension ObjectId: SortableType {}
extension UUID: SortableType {}
extension AnyRealmValue: SortableType {}
extension Optional: SortableType where Wrapped: SortableType {}
