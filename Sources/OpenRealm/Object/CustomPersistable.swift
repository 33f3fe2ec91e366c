import Foundation
import ORCore

/// A type stored as another type the realm supports: a user's own type kept in a
/// `@Persisted` property, a collection or a map through a conversion it declares.
///
/// ```swift
/// struct Celsius: CustomPersistable {
///     typealias PersistedType = Double
///     var degrees: Double
///     init(degrees: Double) { self.degrees = degrees }
///     init(persistedValue: Double) { degrees = persistedValue }
///     var persistableValue: Double { degrees }
/// }
///
/// class Reading: Object {
///     @Persisted var temperature: Celsius
///     @Persisted var history: List<Celsius>
/// }
/// ```
///
/// The realm stores `persistableValue` and reads values back through
/// `init(persistedValue:)`: the file, sync and queries see only the persisted type.
/// Queries compare the persisted values (`$0.temperature > Celsius(degrees: 20)`
/// compares doubles), and query arguments may be of either type.
///
/// A property not given a default holds `init(persistedValue:)` of the persisted
/// type's default (zero, empty, a new `ObjectId`, ...).
public protocol CustomPersistable: _CustomPersistable {
    /// The value a stored `persistedValue` stands for.
    init(persistedValue: PersistedType)
    /// The value the realm stores for this one.
    var persistableValue: PersistedType { get }
}

/// A `CustomPersistable` whose conversion from the persisted type may fail, such as a
/// `URL` stored as a `String`:
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public typealias PersistedType = String
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
///
/// A stored value that does not convert reads as nil where the property, element or
/// map value is optional; where it is not, reading it stops the program with a message
/// naming the value and the type, as the Realm Swift SDK's exception does. Giving such a
/// value (`Object(value:)`, `create`) to a non-optional place is refused at once with the
/// same message; to an optional place it becomes nil.
///
/// `init(persistedValue:)` must not fail for the persisted type's default value unless
/// every property of the type is optional or declares a default of its own.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// The value a stored `persistedValue` stands for, or nil when there is none.
    init?(persistedValue: PersistedType)
    /// The value the realm stores for this one.
    var persistableValue: PersistedType { get }
}

/// A type that names the type the realm stores for it (`PersistedType`): the type itself
/// for the types the realm supports, the raw value for enums, the declared one for
/// `CustomPersistable` types. Generic code reaches the stored type through it
/// (`Query.persistableValue`).
public protocol _HasPersistedType {
    associatedtype PersistedType
}

/// What `CustomPersistable` and `FailableCustomPersistable` share: OpenRealm's
/// plumbing, which stores a value through its `persistableValue`.
public protocol _CustomPersistable: _HasPersistedType, _OptionalPersistable, RealmCollectionValue
where PersistedType: _OptionalPersistable & RealmCollectionValue {
    /// The value the realm stores for this one.
    var persistableValue: PersistedType { get }
    /// The value a stored one stands for; nil when it does not convert.
    static func _orConvert(_ persistedValue: PersistedType) -> Self?
}

extension CustomPersistable {
    public static func _orConvert(_ persistedValue: PersistedType) -> Self? { Self(persistedValue: persistedValue) }
}

extension FailableCustomPersistable {
    public static func _orConvert(_ persistedValue: PersistedType) -> Self? { Self(persistedValue: persistedValue) }

    /// A property read: a stored value that does not convert stops with the Realm Swift
    /// SDK's message for a non-optional property.
    public static func _orGet(_ object: ObjectBase, _ index: Int) -> Self {
        let persisted = PersistedType._orGet(object, index)
        guard let value = Self(persistedValue: persisted) else {
            preconditionFailure("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
        }
        return value
    }
}

extension _CustomPersistable {
    /// Stored as the persisted type.
    public static var _orValueDescriptor: _ORPropertyDescriptor { PersistedType._orValueDescriptor }

    /// A value of the persisted type's default (nil never reaches a non-optional
    /// property: the SDK's rule, a failing conversion of the default stops).
    public static func _orDefault() -> Self {
        guard let value = _orConvert(PersistedType._orDefault()) else {
            preconditionFailure("Failed to default construct a \(Self.self) using the default value for persisted type \(PersistedType.self). "
                                + "This conversion must either succeed, the property must be optional, or you must explicitly specify a default value for the property.")
        }
        return value
    }

    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self {
        // A type stored as an embedded object reads null as its default.
        if value.type == ORC_TYPE_NULL && PersistedType.self is ObjectBase.Type { return _orDefault() }
        let persisted = PersistedType._orDecode(value, realm)
        guard let converted = _orConvert(persisted) else {
            preconditionFailure("Could not convert value '\(persisted)' to type '\(Self.self)'.")
        }
        return converted
    }

    /// Inside an optional a stored value that does not convert reads as nil.
    public static func _orDecodeInsideOptional(_ value: orc_value, _ realm: Realm?) -> Self? {
        _orConvert(PersistedType._orDecode(value, realm))
    }

    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value {
        try persistableValue._orEncode(context)
    }

    /// Written as an optional value is: that path also sets the embedded object a type
    /// may be stored as.
    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: Self) {
        Optional<Self>._orSet(object, index, value)
    }

    public func _orToAny() -> Any? { self }

    /// A value given untyped: this type itself, or anything the persisted type takes
    /// (`Object(value: ["url": "https://…"])`).
    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self {
        if let typed = value as? Self { return typed }
        // A type stored as an embedded object takes nil as its default.
        if PersistedType.self is ObjectBase.Type && AnyValueConversion.unwrap(value) == nil { return _orDefault() }
        let persisted = try PersistedType._orFromAny(value, context)
        guard let converted = _orConvert(persisted) else {
            throw RealmError(.invalidValue, "Could not convert value '\(persisted)' to type '\(Self.self)'.")
        }
        return converted
    }

    /// Inside an optional a value that does not convert becomes nil.
    public static func _orFromAnyInsideOptional(_ value: Any?, _ context: _ORWriteContext?) throws -> Self? {
        if let typed = value as? Self { return typed }
        return _orConvert(try PersistedType._orFromAny(value, context))
    }

    /// Recording a key path reads no value: the property's declared default stands in
    /// for it, else the persisted default's conversion (which a failable type need not
    /// have when its properties declare defaults).
    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> Self {
        recorder.append(object, index)
        let property = object._typeInfo.properties[index]
        if let declared = property.field.declaredValue(object, property.offset) as? Self { return declared }
        return _orDefault()
    }

    /// Hashes the persisted value, so that values equal as stored hash alike.
    public func hash(into hasher: inout Hasher) {
        persistableValue.hash(into: &hasher)
    }
}

// MARK: The types the realm stores itself

extension Bool: _HasPersistedType { public typealias PersistedType = Bool }
extension Int: _HasPersistedType { public typealias PersistedType = Int }
extension Int8: _HasPersistedType { public typealias PersistedType = Int8 }
extension Int16: _HasPersistedType { public typealias PersistedType = Int16 }
extension Int32: _HasPersistedType { public typealias PersistedType = Int32 }
extension Int64: _HasPersistedType { public typealias PersistedType = Int64 }
extension Float: _HasPersistedType { public typealias PersistedType = Float }
extension Double: _HasPersistedType { public typealias PersistedType = Double }
extension String: _HasPersistedType { public typealias PersistedType = String }
extension Data: _HasPersistedType { public typealias PersistedType = Data }
extension Date: _HasPersistedType { public typealias PersistedType = Date }
extension Decimal128: _HasPersistedType { public typealias PersistedType = Decimal128 }
extension ObjectId: _HasPersistedType { public typealias PersistedType = ObjectId }
extension UUID: _HasPersistedType { public typealias PersistedType = UUID }
extension AnyRealmValue: _HasPersistedType { public typealias PersistedType = AnyRealmValue }
extension Optional: _HasPersistedType where Wrapped: _HasPersistedType {
    public typealias PersistedType = Wrapped.PersistedType?
}

// MARK: Indexes and primary keys

// A custom type may be indexed or the primary key when its persisted type may: the
// index and the key hold the persisted values.

extension Persisted where Value: _CustomPersistable, Value.PersistedType: _Indexable {
    /// An indexed property of a custom type, indexed by its persisted values.
    @inlinable
    public init(indexed: Bool) {
        self.init(options: indexed ? .indexed : [])
    }

    /// An indexed property of a custom type with a default value.
    @inlinable
    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(options: indexed ? .indexed : [])
        storage = .unmanaged(value)
    }
}

extension Persisted {
    /// An indexed optional property of a custom type.
    @inlinable
    public init<W: _CustomPersistable>(indexed: Bool) where Value == W?, W.PersistedType: _Indexable {
        self.init(options: indexed ? .indexed : [])
    }

    /// An indexed optional property of a custom type with a default value.
    @inlinable
    public init<W: _CustomPersistable>(wrappedValue value: Value, indexed: Bool) where Value == W?, W.PersistedType: _Indexable {
        self.init(options: indexed ? .indexed : [])
        storage = .unmanaged(value)
    }

    /// An optional primary key of a custom type.
    @inlinable
    public init<W: _CustomPersistable>(primaryKey: Bool) where Value == W?, W.PersistedType: _PrimaryKey {
        self.init(options: primaryKey ? .primaryKey : [])
    }

    /// An optional primary key of a custom type with a default value.
    @inlinable
    public init<W: _CustomPersistable>(wrappedValue value: Value, primaryKey: Bool) where Value == W?, W.PersistedType: _PrimaryKey {
        self.init(options: primaryKey ? .primaryKey : [])
        storage = .unmanaged(value)
    }
}

extension Persisted where Value: _CustomPersistable, Value.PersistedType: _PrimaryKey {
    /// The primary key, of a custom type: objects are found by its persisted value.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(options: primaryKey ? .primaryKey : [])
    }

    /// A primary key of a custom type with a default value.
    @inlinable
    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(options: primaryKey ? .primaryKey : [])
        storage = .unmanaged(value)
    }
}
