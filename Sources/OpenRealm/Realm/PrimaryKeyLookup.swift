import Foundation
import ORCore

/// The primary-key lookup of `object(ofType:forPrimaryKey:)` for the key types models
/// use most (`ObjectId`, `Int`, `String`, `UUID`), when the key's type is exactly the
/// primary key property's (not optional, not a narrower integer): the key is encoded
/// straight from its type, with no conversion through `Any`, no existential and no
/// write context (a string's bytes are handed over in place). Any other key goes the
/// general way, with the same answers.
enum PrimaryKeyLookup {
    /// The object key found (`.some(nil)`: no such object), or nil when `key`'s type
    /// is not `property`'s value type or not one this path handles, and the general
    /// path must decide.
    static func find<KeyType>(_ key: KeyType, _ property: ObjectTypeInfo.PropertyInfo, _ txn: OpaquePointer,
                              _ table: UInt32) -> UInt64?? {
        guard ObjectIdentifier(property.valueType) == ObjectIdentifier(KeyType.self) else { return nil }
        switch property.descriptor.type {
        case ORC_TYPE_OBJECT_ID where KeyType.self == ObjectId.self:
            return lookup(.objectId(unsafeBitCast(key, to: ObjectId.self)), txn, table)
        case ORC_TYPE_INT where KeyType.self == Int.self:
            return lookup(.int(Int64(unsafeBitCast(key, to: Int.self))), txn, table)
        case ORC_TYPE_UUID where KeyType.self == UUID.self:
            return lookup(.uuid(unsafeBitCast(key, to: UUID.self)), txn, table)
        case ORC_TYPE_STRING where KeyType.self == String.self:
            var text = unsafeBitCast(key, to: String.self)
            return text.withUTF8 { bytes in
                var value = orc_value(type: ORC_TYPE_STRING)
                value.string.data = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self)
                value.string.size = bytes.count
                return lookup(value, txn, table)
            }
        default:
            return nil
        }
    }

    private static func lookup(_ value: orc_value, _ txn: OpaquePointer, _ table: UInt32) -> UInt64?? {
        var value = value
        var objectKey: UInt64 = 0
        return .some(orc_obj_find(txn, table, &value, &objectKey) == ORC_OK ? objectKey : nil)
    }
}
