import Foundation
import ORCore

/// An enum stored through its raw value (an integer or string type):
///
/// ```swift
/// enum Priority: Int, PersistableEnum { case low, medium, high }
/// class Task: Object { @Persisted var priority: Priority }
/// ```
///
/// A property holding a raw value no case matches reads as the first case. Enums can
/// also be the elements of `List`, `MutableSet` and `Map`.
///
/// An enum is stored as its raw value: that is its `PersistedType`.
public protocol PersistableEnum: _OptionalPersistable, RawRepresentable, CaseIterable, RealmCollectionValue, _HasPersistedType
where RawValue: _OptionalPersistable, PersistedType == RawValue {}

extension PersistableEnum {
    public static var _orValueDescriptor: _ORPropertyDescriptor {
        var descriptor = RawValue._orValueDescriptor
        descriptor.isEnum = true
        return descriptor
    }

    public static func _orDefault() -> Self { allCases.first! }

    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self {
        Self(rawValue: RawValue._orDecode(value, realm)) ?? allCases.first!
    }

    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value {
        try rawValue._orEncode(context)
    }

    public func _orToAny() -> Any? { self }

    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self {
        if let typed = value as? Self { return typed }
        let raw = try RawValue._orFromAny(value, context)
        guard let result = Self(rawValue: raw) else {
            throw RealmError(.invalidValue, "'\(raw)' is not a raw value of enum '\(Self.self)'.")
        }
        return result
    }
}

// An enum may be indexed or the primary key when its raw value type may: the index and
// the key hold the raw values (`object(ofType:forPrimaryKey:)` takes the enum or its raw value).

extension Persisted where Value: PersistableEnum, Value.RawValue: _Indexable {
    /// An indexed enum property, indexed by its raw values.
    @inlinable
    public init(indexed: Bool) {
        self.init(options: indexed ? .indexed : [])
    }

    /// An indexed enum property with a default value.
    @inlinable
    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(options: indexed ? .indexed : [])
        storage = .unmanaged(value)
    }
}

extension Persisted where Value: PersistableEnum, Value.RawValue: _PrimaryKey {
    /// The primary key, of an enum type: objects are found by its raw value.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(options: primaryKey ? .primaryKey : [])
    }

    /// A primary key of an enum type with a default value.
    @inlinable
    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(options: primaryKey ? .primaryKey : [])
        storage = .unmanaged(value)
    }
}

extension Persisted {
    /// An indexed optional enum property.
    @inlinable
    public init<W: PersistableEnum>(indexed: Bool) where Value == W?, W.RawValue: _Indexable {
        self.init(options: indexed ? .indexed : [])
    }

    /// An optional primary key of an enum type.
    @inlinable
    public init<W: PersistableEnum>(primaryKey: Bool) where Value == W?, W.RawValue: _PrimaryKey {
        self.init(options: primaryKey ? .primaryKey : [])
    }
}
