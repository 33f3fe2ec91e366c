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
/// property from a closure compiled for the concrete type; other types (links,
/// collections, enums, `AnyRealmValue`) have none and keep the generic path.
typealias UnmanagedEncoder = @Sendable (ObjectBase, _ORWriteContext) throws -> orc_value

enum UnmanagedEncoders {
    /// The specialized encoder for a field of type `field` at byte `offset` of its
    /// object, or nil when its value type is not one of the scalar types.
    static func make(_ field: any PersistedField.Type, offset: Int) -> UnmanagedEncoder? {
        switch ObjectIdentifier(field) {
        case ObjectIdentifier(Persisted<Int>.self): return encoder(Int.self, offset)
        case ObjectIdentifier(Persisted<Int?>.self): return encoder(Int?.self, offset)
        case ObjectIdentifier(Persisted<Int64>.self): return encoder(Int64.self, offset)
        case ObjectIdentifier(Persisted<Int64?>.self): return encoder(Int64?.self, offset)
        case ObjectIdentifier(Persisted<Int32>.self): return encoder(Int32.self, offset)
        case ObjectIdentifier(Persisted<Int32?>.self): return encoder(Int32?.self, offset)
        case ObjectIdentifier(Persisted<Int16>.self): return encoder(Int16.self, offset)
        case ObjectIdentifier(Persisted<Int16?>.self): return encoder(Int16?.self, offset)
        case ObjectIdentifier(Persisted<Int8>.self): return encoder(Int8.self, offset)
        case ObjectIdentifier(Persisted<Int8?>.self): return encoder(Int8?.self, offset)
        case ObjectIdentifier(Persisted<Bool>.self): return encoder(Bool.self, offset)
        case ObjectIdentifier(Persisted<Bool?>.self): return encoder(Bool?.self, offset)
        case ObjectIdentifier(Persisted<Double>.self): return encoder(Double.self, offset)
        case ObjectIdentifier(Persisted<Double?>.self): return encoder(Double?.self, offset)
        case ObjectIdentifier(Persisted<Float>.self): return encoder(Float.self, offset)
        case ObjectIdentifier(Persisted<Float?>.self): return encoder(Float?.self, offset)
        case ObjectIdentifier(Persisted<String>.self): return encoder(String.self, offset)
        case ObjectIdentifier(Persisted<String?>.self): return encoder(String?.self, offset)
        case ObjectIdentifier(Persisted<Data>.self): return encoder(Data.self, offset)
        case ObjectIdentifier(Persisted<Data?>.self): return encoder(Data?.self, offset)
        case ObjectIdentifier(Persisted<Date>.self): return encoder(Date.self, offset)
        case ObjectIdentifier(Persisted<Date?>.self): return encoder(Date?.self, offset)
        case ObjectIdentifier(Persisted<Decimal128>.self): return encoder(Decimal128.self, offset)
        case ObjectIdentifier(Persisted<Decimal128?>.self): return encoder(Decimal128?.self, offset)
        case ObjectIdentifier(Persisted<ObjectId>.self): return encoder(ObjectId.self, offset)
        case ObjectIdentifier(Persisted<ObjectId?>.self): return encoder(ObjectId?.self, offset)
        case ObjectIdentifier(Persisted<UUID>.self): return encoder(UUID.self, offset)
        case ObjectIdentifier(Persisted<UUID?>.self): return encoder(UUID?.self, offset)
        default: return nil
        }
    }

    /// Called with a concrete `Value`, so the closure is compiled for it.
    @inline(__always)
    private static func encoder<Value: _PersistableValue>(_: Value.Type, _ offset: Int) -> UnmanagedEncoder {
        { object, context in
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
}
