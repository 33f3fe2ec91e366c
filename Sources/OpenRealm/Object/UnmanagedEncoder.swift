import Foundation
import ORCore

/// Encodes the value an unmanaged object holds in one `@Persisted` field for ORCore,
/// with code specialized for the field's value type: how `add` reads an object's values
/// before the object becomes managed.
///
/// The type-erased path (`PersistedField.unmanagedValue`, then `_orEncodeIfValue` on
/// the existential) runs unspecialized generic code: it looks up the metadata of
/// `Persisted<Value>.Storage` at run time, copies the payload through value witnesses
/// and boxes it in an existential, which cost more per property than storing the row.
/// For the scalar types (and their optionals) an encoder is made once per class
/// property; other types (links, collections, enums, `AnyRealmValue`) have none and
/// keep the generic path.
///
/// An encoder is the field's type, as a case, and its offset: calling it switches to
/// code compiled for that type. (Closures made per type did the same, but calling a
/// closure read out of an array retained and released its context, twice per property
/// of every object added.)
struct UnmanagedEncoder: Sendable {
    enum Kind: UInt8, Sendable {
        case int, intOpt, int64, int64Opt, int32, int32Opt, int16, int16Opt, int8, int8Opt
        case bool, boolOpt, double, doubleOpt, float, floatOpt, string, stringOpt, data, dataOpt
        case date, dateOpt, decimal128, decimal128Opt, objectId, objectIdOpt, uuid, uuidOpt
    }

    let kind: Kind
    /// The field's byte offset in its object.
    let offset: Int

    /// The encoder for a field of type `field` at byte `offset` of its object, or nil
    /// when its value type is not one of the scalar types.
    init?(_ field: any PersistedField.Type, offset: Int) {
        let kind: Kind
        switch ObjectIdentifier(field) {
        case ObjectIdentifier(Persisted<Int>.self): kind = .int
        case ObjectIdentifier(Persisted<Int?>.self): kind = .intOpt
        case ObjectIdentifier(Persisted<Int64>.self): kind = .int64
        case ObjectIdentifier(Persisted<Int64?>.self): kind = .int64Opt
        case ObjectIdentifier(Persisted<Int32>.self): kind = .int32
        case ObjectIdentifier(Persisted<Int32?>.self): kind = .int32Opt
        case ObjectIdentifier(Persisted<Int16>.self): kind = .int16
        case ObjectIdentifier(Persisted<Int16?>.self): kind = .int16Opt
        case ObjectIdentifier(Persisted<Int8>.self): kind = .int8
        case ObjectIdentifier(Persisted<Int8?>.self): kind = .int8Opt
        case ObjectIdentifier(Persisted<Bool>.self): kind = .bool
        case ObjectIdentifier(Persisted<Bool?>.self): kind = .boolOpt
        case ObjectIdentifier(Persisted<Double>.self): kind = .double
        case ObjectIdentifier(Persisted<Double?>.self): kind = .doubleOpt
        case ObjectIdentifier(Persisted<Float>.self): kind = .float
        case ObjectIdentifier(Persisted<Float?>.self): kind = .floatOpt
        case ObjectIdentifier(Persisted<String>.self): kind = .string
        case ObjectIdentifier(Persisted<String?>.self): kind = .stringOpt
        case ObjectIdentifier(Persisted<Data>.self): kind = .data
        case ObjectIdentifier(Persisted<Data?>.self): kind = .dataOpt
        case ObjectIdentifier(Persisted<Date>.self): kind = .date
        case ObjectIdentifier(Persisted<Date?>.self): kind = .dateOpt
        case ObjectIdentifier(Persisted<Decimal128>.self): kind = .decimal128
        case ObjectIdentifier(Persisted<Decimal128?>.self): kind = .decimal128Opt
        case ObjectIdentifier(Persisted<ObjectId>.self): kind = .objectId
        case ObjectIdentifier(Persisted<ObjectId?>.self): kind = .objectIdOpt
        case ObjectIdentifier(Persisted<UUID>.self): kind = .uuid
        case ObjectIdentifier(Persisted<UUID?>.self): kind = .uuidOpt
        default: return nil
        }
        self.kind = kind
        self.offset = offset
    }

    /// The value `object` holds in the field, encoded (strings and data into `context`).
    func callAsFunction(_ object: ObjectBase, _ context: _ORWriteContext) throws -> orc_value {
        switch kind {
        case .int: try Self.encode(Int.self, object, offset, context)
        case .intOpt: try Self.encode(Int?.self, object, offset, context)
        case .int64: try Self.encode(Int64.self, object, offset, context)
        case .int64Opt: try Self.encode(Int64?.self, object, offset, context)
        case .int32: try Self.encode(Int32.self, object, offset, context)
        case .int32Opt: try Self.encode(Int32?.self, object, offset, context)
        case .int16: try Self.encode(Int16.self, object, offset, context)
        case .int16Opt: try Self.encode(Int16?.self, object, offset, context)
        case .int8: try Self.encode(Int8.self, object, offset, context)
        case .int8Opt: try Self.encode(Int8?.self, object, offset, context)
        case .bool: try Self.encode(Bool.self, object, offset, context)
        case .boolOpt: try Self.encode(Bool?.self, object, offset, context)
        case .double: try Self.encode(Double.self, object, offset, context)
        case .doubleOpt: try Self.encode(Double?.self, object, offset, context)
        case .float: try Self.encode(Float.self, object, offset, context)
        case .floatOpt: try Self.encode(Float?.self, object, offset, context)
        case .string: try Self.encode(String.self, object, offset, context)
        case .stringOpt: try Self.encode(String?.self, object, offset, context)
        case .data: try Self.encode(Data.self, object, offset, context)
        case .dataOpt: try Self.encode(Data?.self, object, offset, context)
        case .date: try Self.encode(Date.self, object, offset, context)
        case .dateOpt: try Self.encode(Date?.self, object, offset, context)
        case .decimal128: try Self.encode(Decimal128.self, object, offset, context)
        case .decimal128Opt: try Self.encode(Decimal128?.self, object, offset, context)
        case .objectId: try Self.encode(ObjectId.self, object, offset, context)
        case .objectIdOpt: try Self.encode(ObjectId?.self, object, offset, context)
        case .uuid: try Self.encode(UUID.self, object, offset, context)
        case .uuidOpt: try Self.encode(UUID?.self, object, offset, context)
        }
    }

    /// Called with a concrete `Value`, so each case above is compiled for its type.
    @inline(__always)
    private static func encode<Value: _PersistableValue>(_: Value.Type, _ object: ObjectBase, _ offset: Int,
                                                          _ context: _ORWriteContext) throws -> orc_value {
        let field = (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Persisted<Value>.self)
        switch field.pointee.storage {
        case .unmanaged(let value):
            return try value._orEncode(context)
        case .unmanagedNoDefault:
            // As the generic path does: the default becomes the object's value, so
            // that a generated default (ObjectId, UUID, Date) reads back the same.
            let value = Value._orDefault()
            field.pointee.storage = .unmanaged(value)
            return try value._orEncode(context)
        }
    }
}
