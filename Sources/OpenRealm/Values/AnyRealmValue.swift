import Foundation
import ORCore

/// A property that can hold a value of any stored type, or none (`@Persisted var value:
/// AnyRealmValue`).
public enum AnyRealmValue: Hashable {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case object(Object)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)

    public var intValue: Int? { if case .int(let v) = self { return v }; return nil }
    public var boolValue: Bool? { if case .bool(let v) = self { return v }; return nil }
    public var floatValue: Float? { if case .float(let v) = self { return v }; return nil }
    public var doubleValue: Double? { if case .double(let v) = self { return v }; return nil }
    public var stringValue: String? { if case .string(let v) = self { return v }; return nil }
    public var dataValue: Data? { if case .data(let v) = self { return v }; return nil }
    public var dateValue: Date? { if case .date(let v) = self { return v }; return nil }
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { return v }; return nil }
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { return v }; return nil }
    public var uuidValue: UUID? { if case .uuid(let v) = self { return v }; return nil }

    /// The linked object, as `T`, or nil when the value is not an object of that type.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let o) = self { return o as? T }
        return nil
    }

    /// The value as a dynamic object when it is one.
    public var dynamicObject: Object? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// Wraps a Swift value (nil for `.none`); values of other types give `.none`.
    public static func fromAny(_ value: Any?) -> AnyRealmValue {
        guard let value = AnyValueConversion.unwrap(value) else { return .none }
        switch value {
        case let v as AnyRealmValue: return v
        case let v as Bool: return .bool(v)
        case let v as Int: return .int(v)
        case let v as Int8: return .int(Int(v))
        case let v as Int16: return .int(Int(v))
        case let v as Int32: return .int(Int(v))
        case let v as Int64: return .int(Int(v))
        case let v as Float: return .float(v)
        case let v as Double: return .double(v)
        case let v as String: return .string(v)
        case let v as Data: return .data(v)
        case let v as Date: return .date(v)
        case let v as Object: return .object(v)
        case let v as ObjectId: return .objectId(v)
        case let v as Decimal128: return .decimal128(v)
        case let v as UUID: return .uuid(v)
        default: return .none
        }
    }
}

extension AnyRealmValue: _PersistableValue, _Indexable {
    public static var _orDescriptor: _ORPropertyDescriptor { .init(ORC_TYPE_MIXED, optional: true) }
    public static func _orDefault() -> AnyRealmValue { .none }

    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> AnyRealmValue {
        switch value.type {
        case ORC_TYPE_BOOL: return .bool(value.boolean)
        case ORC_TYPE_INT: return .int(Int(value.integer))
        case ORC_TYPE_FLOAT: return .float(value.fnum)
        case ORC_TYPE_DOUBLE: return .double(value.dnum)
        case ORC_TYPE_STRING: return .string(String._orDecode(value, realm))
        case ORC_TYPE_BINARY: return .data(Data._orDecode(value, realm))
        case ORC_TYPE_TIMESTAMP: return .date(Date._orDecode(value, realm))
        case ORC_TYPE_DECIMAL: return .decimal128(Decimal128._orDecode(value, realm))
        case ORC_TYPE_OBJECT_ID: return .objectId(ObjectId._orDecode(value, realm))
        case ORC_TYPE_UUID: return .uuid(UUID._orDecode(value, realm))
        case ORC_TYPE_LINK:
            guard let realm, let object = realm._accessor(linkTable: value.link.table, key: value.link.key) as? Object else { return .none }
            return .object(object)
        default: return .none
        }
    }

    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value {
        switch self {
        case .none: return .null
        case .int(let v): return .int(Int64(v))
        case .bool(let v): return .bool(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return context.arena.string(v)
        case .data(let v): return context.arena.binary(v)
        case .date(let v): return .timestamp(v.orcTimestamp)
        case .object(let v): return try v._orEncode(context)
        case .objectId(let v): return .objectId(v)
        case .decimal128(let v): return .decimal(v)
        case .uuid(let v): return .uuid(v)
        }
    }

    public func _orToAny() -> Any? { self }

    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> AnyRealmValue {
        if let v = value as? AnyRealmValue { return v }
        guard let unwrapped = AnyValueConversion.unwrap(value) else { return .none }
        let converted = fromAny(unwrapped)
        if case .none = converted {
            throw RealmError(.invalidValue, "Invalid value '\(unwrapped)' of type '\(type(of: unwrapped))' for an AnyRealmValue property.")
        }
        return converted
    }
}

extension AnyRealmValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .none: return "none"
        case .int(let v): return "\(v)"
        case .bool(let v): return "\(v)"
        case .float(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .string(let v): return v
        case .data(let v): return "\(v)"
        case .date(let v): return "\(v)"
        case .object(let v): return v.description
        case .objectId(let v): return v.stringValue
        case .decimal128(let v): return v.stringValue
        case .uuid(let v): return v.uuidString
        }
    }
}
