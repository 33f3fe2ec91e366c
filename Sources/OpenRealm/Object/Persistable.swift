import Foundation
import ORCore

/// A type `@Persisted` can store. Conformances come with OpenRealm (the scalar types,
/// their optionals, `List`, `MutableSet`, `Map`, `LinkingObjects`, `AnyRealmValue`,
/// object links, `PersistableEnum` enums); the requirements are OpenRealm's plumbing.
public protocol _Persistable {
    /// How the property is stored.
    static var _orDescriptor: _ORPropertyDescriptor { get }
    /// The value of a property that was never set.
    static func _orDefault() -> Self
    /// Reads the property `index` of a managed object.
    static func _orGet(_ object: ObjectBase, _ index: Int) -> Self
    /// Writes the property `index` of a managed object (inside a write transaction).
    static func _orSet(_ object: ObjectBase, _ index: Int, _ value: Self)
    /// The value returned while a typed key path is being recorded.
    static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> Self
    /// Converts a value given by name (`Object(value:)`, `object["p"] = v`, `create`).
    static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self
    /// The value as `object["p"]` returns it.
    func _orToAny() -> Any?
    /// The value encoded for ORCore when it is stored as one value; nil for collections.
    func _orEncodeIfValue(_ context: _ORWriteContext) throws -> orc_value?
}

extension _Persistable {
    public func _orEncodeIfValue(_ context: _ORWriteContext) throws -> orc_value? { nil }
}

/// A type stored as one value in the row: scalars, their optionals, links, enums and
/// `AnyRealmValue`.
public protocol _PersistableValue: _Persistable {
    /// Decodes a stored value (which may be null for optional types).
    static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self
    /// Encodes the value for ORCore. Strings and binaries point into `context`'s arena;
    /// an unmanaged linked object is added to `context.realm` first.
    func _orEncode(_ context: _ORWriteContext) throws -> orc_value
}

/// A non-optional type that can also be stored as `Optional<Self>`.
public protocol _OptionalPersistable: _PersistableValue {
    static var _orValueDescriptor: _ORPropertyDescriptor { get }
    /// Decodes a stored value (never null) for `Optional<Self>`: nil where a value that
    /// does not convert to `Self` reads as nil (`FailableCustomPersistable`).
    static func _orDecodeInsideOptional(_ value: orc_value, _ realm: Realm?) -> Self?
    /// Converts a value given by name (never nil) for `Optional<Self>`: nil where a
    /// value that does not convert becomes nil (`FailableCustomPersistable`).
    static func _orFromAnyInsideOptional(_ value: Any?, _ context: _ORWriteContext?) throws -> Self?
}

/// Types that may be `@Persisted(indexed: true)`.
public protocol _Indexable {}
/// Types that may be `@Persisted(primaryKey: true)`.
public protocol _PrimaryKey {}

/// The storage shape of a property type.
public struct _ORPropertyDescriptor: Sendable {
    var type: orc_type
    var collection: orc_collection = ORC_COLL_NONE
    var optional: Bool = false
    /// The linked class for links (and collections of links), the element class for `LinkingObjects`.
    nonisolated(unsafe) var target: ObjectBase.Type? = nil
    var isLinkingObjects: Bool = false
    /// For enums: the Swift type, to describe it in errors.
    var isEnum: Bool = false

    init(_ type: orc_type, optional: Bool = false) {
        self.type = type
        self.optional = optional
    }
}

// MARK: Default behaviour of single-value types

extension _PersistableValue {
    public func _orEncodeIfValue(_ context: _ORWriteContext) throws -> orc_value? { try _orEncode(context) }

    public static func _orGet(_ object: ObjectBase, _ index: Int) -> Self {
        let value = object._readValue(index)
        guard let realm = object._readRealm else { return _orDecode(value, object._realm!) }
        return realm._withUnsafeGuaranteedRef { _orDecode(value, $0) }
    }

    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: Self) {
        let realm = object._realm!
        realm._write(object, index) { context in try value._orEncode(context) }
    }

    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> Self {
        recorder.append(object, index)
        return _orDefault()
    }

    public func _orToAny() -> Any? { self }

    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self {
        if let typed = value as? Self { return typed }
        if let converted = try AnyValueConversion.convert(value, to: Self.self, context) { return converted }
        throw RealmError(.invalidValue, "Invalid value '\(value.map { "\($0)" } ?? "nil")' of type '\(value.map { "\(type(of: $0))" } ?? "nil")' for a property of type '\(Self.self)'.")
    }
}

extension _OptionalPersistable {
    public static var _orDescriptor: _ORPropertyDescriptor { _orValueDescriptor }
    public static func _orDecodeInsideOptional(_ value: orc_value, _ realm: Realm?) -> Self? { _orDecode(value, realm) }
    public static func _orFromAnyInsideOptional(_ value: Any?, _ context: _ORWriteContext?) throws -> Self? {
        try _orFromAny(value, context)
    }
}

// MARK: Optional

extension Optional: _Persistable where Wrapped: _OptionalPersistable {
    public static var _orDescriptor: _ORPropertyDescriptor {
        var descriptor = Wrapped._orValueDescriptor
        descriptor.optional = true
        return descriptor
    }
    public static func _orDefault() -> Self { nil }

    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: Self) {
        let realm = object._realm!
        if object._bound!.info.properties[index].isEmbeddedLink {
            object._requireNotStale()
            realm.requireWrite()
            do {
                try realm._setEmbedded(object, index, AnyValueConversion.embeddedObject(value), policy: .error)
            } catch {
                realm._failWrite(error)
            }
            return
        }
        realm._write(object, index) { context in try value._orEncode(context) }
    }

    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> Self {
        recorder.append(object, index)
        if let objectType = Wrapped.self as? ObjectBase.Type {
            return (recorder.makeRecordingObject(objectType) as! Wrapped)
        }
        return nil
    }

    public func _orToAny() -> Any? { self.map { $0 as Any } }

    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self {
        guard let value = AnyValueConversion.unwrap(value) else { return nil }
        return try Wrapped._orFromAnyInsideOptional(value, context)
    }
}

extension Optional: _PersistableValue where Wrapped: _OptionalPersistable {
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self {
        value.type == ORC_TYPE_NULL ? nil : Wrapped._orDecodeInsideOptional(value, realm)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value {
        guard let self else { return orc_value(type: ORC_TYPE_NULL) }
        return try self._orEncode(context)
    }
}

extension Optional: _Indexable where Wrapped: _Indexable {}
extension Optional: _PrimaryKey where Wrapped: _PrimaryKey {}

// MARK: Scalars

extension Bool: _OptionalPersistable, _Indexable {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_BOOL) }
    public static func _orDefault() -> Bool { false }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Bool {
        value.type == ORC_TYPE_BOOL ? value.boolean : false
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .bool(self) }
}

/// Integers of every width are stored as 64-bit ints; reading a value that does not fit
/// a narrower type truncates as Realm does.
public protocol _PersistableInteger: _OptionalPersistable, _Indexable, _PrimaryKey, FixedWidthInteger {}

extension _PersistableInteger {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_INT) }
    public static func _orDefault() -> Self { 0 }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self {
        value.type == ORC_TYPE_INT ? Self(truncatingIfNeeded: value.integer) : 0
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .int(Int64(self)) }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Float: _OptionalPersistable {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_FLOAT) }
    public static func _orDefault() -> Float { 0 }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Float {
        value.type == ORC_TYPE_FLOAT ? value.fnum : 0
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .float(self) }
}

extension Double: _OptionalPersistable {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_DOUBLE) }
    public static func _orDefault() -> Double { 0 }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Double {
        value.type == ORC_TYPE_DOUBLE ? value.dnum : 0
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .double(self) }
}

extension String: _OptionalPersistable, _Indexable, _PrimaryKey {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_STRING) }
    public static func _orDefault() -> String { "" }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> String {
        guard value.type == ORC_TYPE_STRING, value.string.size > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: value.string.data, count: value.string.size), as: UTF8.self)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { context.arena.string(self) }
}

extension Data: _OptionalPersistable {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_BINARY) }
    public static func _orDefault() -> Data { Data() }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Data {
        guard value.type == ORC_TYPE_BINARY, value.string.size > 0 else { return Data() }
        return Data(bytes: value.string.data, count: value.string.size)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { context.arena.binary(self) }
}

extension Date: _OptionalPersistable, _Indexable {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_TIMESTAMP) }
    public static func _orDefault() -> Date { Date() }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Date {
        guard value.type == ORC_TYPE_TIMESTAMP else { return Date(timeIntervalSince1970: 0) }
        return Date(orcTimestamp: value.timestamp)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .timestamp(orcTimestamp) }
}

extension Decimal128: _OptionalPersistable {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_DECIMAL) }
    public static func _orDefault() -> Decimal128 { Decimal128() }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Decimal128 {
        guard value.type == ORC_TYPE_DECIMAL else { return Decimal128() }
        return Decimal128(bidLow: value.decimal.w.0, bidHigh: value.decimal.w.1)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .decimal(self) }
}

extension ObjectId: _OptionalPersistable, _Indexable, _PrimaryKey {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_OBJECT_ID) }
    public static func _orDefault() -> ObjectId { ObjectId.generate() }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> ObjectId {
        guard value.type == ORC_TYPE_OBJECT_ID else { return ObjectId() }
        return ObjectId(orcBytes: value.object_id)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .objectId(self) }
}

extension UUID: _OptionalPersistable, _Indexable, _PrimaryKey {
    public static var _orValueDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_UUID) }
    public static func _orDefault() -> UUID { UUID() }
    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> UUID {
        guard value.type == ORC_TYPE_UUID else { return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        return UUID(uuid: value.uuid)
    }
    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { .uuid(self) }
}
