/// A primary key value: what names a top-level object on the wire, together with its
/// class name. Also the type of a partition value (``WireSyncMode/partition(_:)``).
///
/// Primary keys are int, string, ObjectId or UUID, or null for a class whose primary
/// key property is optional. Strings compare by their UTF-8 bytes.
public enum WirePrimaryKey: Sendable, Hashable, CustomStringConvertible {
    /// The null key (an optional primary key property holding null).
    case null
    /// An int key.
    case int(Int64)
    /// A string key.
    case string(String)
    /// An ObjectId key.
    case objectId(WireObjectId)
    /// A UUID key.
    case uuid(WireUUID)

    /// The key as a value, for a `set` of the primary key property or a `link`.
    public var value: WireValue {
        switch self {
        case .null: return .null
        case .int(let v): return .int(v)
        case .string(let v): return .string(v)
        case .objectId(let v): return .objectId(v)
        case .uuid(let v): return .uuid(v)
        }
    }

    /// The key held by `value`, or nil when the value's type cannot be a primary key.
    public init?(_ value: WireValue) {
        switch value {
        case .null: self = .null
        case .int(let v): self = .int(v)
        case .string(let v): self = .string(v)
        case .objectId(let v): self = .objectId(v)
        case .uuid(let v): self = .uuid(v)
        default: return nil
        }
    }

    public var description: String { value.description }

    public static func == (a: WirePrimaryKey, b: WirePrimaryKey) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.int(x), .int(y)): return x == y
        case let (.string(x), .string(y)): return sameUTF8(x, y)
        case let (.objectId(x), .objectId(y)): return x == y
        case let (.uuid(x), .uuid(y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
