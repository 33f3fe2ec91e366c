import OpenRealmQuery
import OpenRealmServer
import OpenRealmWire

/// ORCore's rules for the values of objects, kept by the PostgreSQL store's working set
/// so that a changeset both stores refuse is refused on both, and one they accept leaves
/// the same objects (`orcore.h`, object.c and collection.c):
///
/// - Defaults: a property never written reads as null when it is optional, mixed or a
///   link, and otherwise as its type's zero (`""`, empty bytes, 0, false, 0E0, the zero
///   timestamp, ObjectId and UUID); collections as empty.
/// - Null is accepted by an optional or mixed property, and by a dictionary of links.
/// - A value of another type than the property's is refused (mixed takes any); a link
///   must name an object of the property's target class; a timestamp's nanoseconds must
///   be under a second, with the sign of its seconds; a string primary key has at most
///   256 bytes; a dictionary key is not empty, holds no `.` and does not start with `$`.
/// - Sets are kept in ORCore's value order (`orc_value_compare`): numbers by value
///   across types, links by their class's position and then the object's key.
enum PostgresObjectValues {
    /// ORCore's `ORC_MAX_PK_STRING`.
    static let maxPrimaryKeyBytes = 256

    /// What `property` holds before it is first written.
    static func defaultValue(_ property: StoredProperty, _ schema: SyncSchema) -> PostgresObjectNode.Value {
        switch property.collection {
        case .list: return .list([])
        case .set: return .set([])
        case .dictionary: return .dictionary([])
        case .none: break
        }
        if schema.embeddedTarget(of: property) != nil { return .embedded(nil) }
        return .single(defaultSingle(property))
    }

    static func defaultSingle(_ property: StoredProperty) -> WireValue {
        if property.isOptional || property.type == .mixed || property.type == .link { return .null }
        switch property.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .binary: return .binary([])
        case .timestamp: return .timestamp(WireTimestamp(seconds: 0, nanoseconds: 0))
        case .decimal128: return .decimal128(WireDecimal128(low: 0, high: 0x3040_0000_0000_0000))
        case .objectId: return .objectId(WireObjectId(bytes: [UInt8](repeating: 0, count: 12))!)
        case .uuid: return .uuid(WireUUID(bytes: [UInt8](repeating: 0, count: 16))!)
        case .link, .mixed: return .null
        }
    }

    /// Checks `value` for `property` of `cls`, a single value or (`inCollection`) an
    /// element; `writing` false for a set erase, which accepts null anywhere.
    ///
    /// - Throws: ``PostgresObjectError`` naming the property and what is wrong.
    static func check(_ value: WireValue, for property: StoredProperty, of cls: String, inCollection: Bool,
                      writing: Bool = true) throws {
        let name = "'\(cls).\(property.name)'"
        guard value != .null else {
            let nullable = property.isOptional || property.type == .mixed
                || (inCollection && property.type == .link && property.collection == .dictionary)
            if !nullable && writing { throw PostgresObjectError("\(name) cannot hold null") }
            return
        }
        if property.type != .mixed, let type = propertyType(of: value), type != property.type {
            throw PostgresObjectError("\(name) holds \(property.type) values, not \(type)")
        }
        switch value {
        case .timestamp(let t):
            if t.nanoseconds <= -1_000_000_000 || t.nanoseconds >= 1_000_000_000 || (t.seconds > 0 && t.nanoseconds < 0)
                || (t.seconds < 0 && t.nanoseconds > 0) {
                throw PostgresObjectError("\(name) got the malformed timestamp \(t.seconds)s \(t.nanoseconds)ns")
            }
        case .link(let ref):
            if property.type == .link, ref.className != property.linkTarget {
                throw PostgresObjectError("\(name) links to class '\(property.linkTarget ?? "?")', not to \(ref)")
            }
        case .string(let s):
            if property.isPrimaryKey, s.utf8.count > maxPrimaryKeyBytes {
                throw PostgresObjectError("\(name) is the primary key; its strings have at most \(maxPrimaryKeyBytes) bytes, not \(s.utf8.count)")
            }
        default:
            break
        }
    }

    /// A dictionary key ORCore stores: non-empty, no `.`, not starting with `$`.
    static func checkKey(_ key: String, for property: StoredProperty, of cls: String) throws {
        if key.isEmpty || key.hasPrefix("$") || key.contains(".") {
            throw PostgresObjectError("dictionary key '\(key)' of '\(cls).\(property.name)' is empty, starts with '$' or contains '.'")
        }
    }

    /// The property type of a value that is not null.
    static func propertyType(of value: WireValue) -> WirePropertyType? {
        switch value {
        case .null: return nil
        case .bool: return .bool
        case .int: return .int
        case .float: return .float
        case .double: return .double
        case .string: return .string
        case .binary: return .binary
        case .timestamp: return .timestamp
        case .decimal128: return .decimal128
        case .objectId: return .objectId
        case .uuid: return .uuid
        case .link: return .link
        }
    }

    /// `orc_value_compare` on wire values; `linkOrder` gives a linked object's class
    /// position and object key.
    static func compare(_ a: WireValue, _ b: WireValue, schema: SyncSchema,
                        linkOrder: (WireObjectRef) -> (UInt32, UInt64)) -> Int {
        QueryValueComparison.compare(ordered(a, schema, linkOrder), ordered(b, schema, linkOrder))
    }

    private static func ordered(_ value: WireValue, _ schema: SyncSchema, _ linkOrder: (WireObjectRef) -> (UInt32, UInt64)) -> QueryValue {
        if case .link(let ref) = value {
            let (table, key) = linkOrder(ref)
            return .link(table: table, key: key)
        }
        return EvaluableImage.queryValue(value, schema: schema.query)
    }

    /// Dictionary keys in ORCore's order: their UTF-8 bytes.
    static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// A value or operation the PostgreSQL store's objects refuse, as ORCore refuses it:
/// the integrator reports it as a bad changeset naming the instruction.
package struct PostgresObjectError: Error, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
