/// A property value, collection element or dictionary value as it travels.
///
/// The cases mirror ORCore's value types. A link names its target by class name and
/// primary key (never by ORCore's table id and object key, which differ per file), so
/// every link is a typed link: the same case serves a link property and a link held by
/// a mixed property. Links to embedded objects do not travel as values; embedded
/// objects are created in place (``WireInstruction/createEmbeddedObject(object:property:position:values:)``).
///
/// Equality compares floating-point values by their bits, so that a value equals what
/// it decodes to: `.double(.nan) == .double(.nan)` and `.double(0) != .double(-0.0)`.
public enum WireValue: Sendable, Hashable, CustomStringConvertible {
    /// The null value.
    case null
    /// A boolean.
    case bool(Bool)
    /// A 64-bit signed integer.
    case int(Int64)
    /// A 32-bit float.
    case float(Float)
    /// A 64-bit double.
    case double(Double)
    /// A UTF-8 string (may contain NUL).
    case string(String)
    /// Bytes.
    case binary([UInt8])
    /// A point in time.
    case timestamp(WireTimestamp)
    /// A decimal128.
    case decimal128(WireDecimal128)
    /// An ObjectId.
    case objectId(WireObjectId)
    /// A UUID.
    case uuid(WireUUID)
    /// A link to a top-level object, by class name and primary key.
    case link(WireObjectRef)

    /// The tag byte that starts the value's encoding (the `orc_type` number of ORCore).
    public var tag: UInt8 {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int: return 2
        case .float: return 3
        case .double: return 4
        case .string: return 5
        case .binary: return 6
        case .timestamp: return 7
        case .decimal128: return 8
        case .objectId: return 9
        case .uuid: return 10
        case .link: return 11
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let v): return "\(v)"
        case .int(let v): return "\(v)"
        case .float(let v): return "\(v)f"
        case .double(let v): return "\(v)"
        case .string(let v): return "\"\(v)\""
        case .binary(let v): return "binary(\(v.count) bytes)"
        case .timestamp(let v): return "timestamp(\(v))"
        case .decimal128(let v): return "decimal128(\(v))"
        case .objectId(let v): return "oid(\(v))"
        case .uuid(let v): return "uuid(\(v))"
        case .link(let v): return "link(\(v))"
        }
    }

    public static func == (a: WireValue, b: WireValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.float(x), .float(y)): return x.bitPattern == y.bitPattern
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.string(x), .string(y)): return sameUTF8(x, y)
        case let (.binary(x), .binary(y)): return x == y
        case let (.timestamp(x), .timestamp(y)): return x == y
        case let (.decimal128(x), .decimal128(y)): return x == y
        case let (.objectId(x), .objectId(y)): return x == y
        case let (.uuid(x), .uuid(y)): return x == y
        case let (.link(x), .link(y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tag)
        switch self {
        case .null: break
        case .bool(let v): hasher.combine(v)
        case .int(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v.bitPattern)
        case .double(let v): hasher.combine(v.bitPattern)
        case .string(let v): hasher.combine(v.utf8.count); for b in v.utf8 { hasher.combine(b) }
        case .binary(let v): hasher.combine(v)
        case .timestamp(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .link(let v): hasher.combine(v)
        }
    }
}
