/// The type of a property declared by a schema instruction. The raw values are ORCore's
/// `orc_type` numbers and part of the protocol.
public enum WirePropertyType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// `Bool`.
    case bool = 1
    /// `Int` (64-bit).
    case int = 2
    /// `Float`.
    case float = 3
    /// `Double`.
    case double = 4
    /// `String`.
    case string = 5
    /// `Data`.
    case binary = 6
    /// `Date`.
    case timestamp = 7
    /// `Decimal128`.
    case decimal128 = 8
    /// `ObjectId`.
    case objectId = 9
    /// `UUID`.
    case uuid = 10
    /// A link to an object of ``WirePropertySchema/linkTarget``.
    case link = 11
    /// `AnyRealmValue`: any value, links included.
    case mixed = 12

    public var description: String {
        switch self {
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .binary: return "binary"
        case .timestamp: return "timestamp"
        case .decimal128: return "decimal128"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        case .link: return "link"
        case .mixed: return "mixed"
        }
    }
}

/// Whether a property holds one value or a collection. Raw values are ORCore's `orc_collection`.
public enum WireCollectionKind: UInt8, Sendable, CaseIterable {
    /// One value.
    case none = 0
    /// `List`: ordered, duplicates allowed.
    case list = 1
    /// `MutableSet`: unique values.
    case set = 2
    /// `Map`: string keys.
    case dictionary = 3
}

/// The kind of a class. Raw values are ORCore's `orc_class_kind`.
public enum WireClassKind: UInt8, Sendable, CaseIterable {
    /// An ordinary class whose objects are named by their primary key.
    case topLevel = 0
    /// `EmbeddedObject`: objects exist only inside one parent.
    case embedded = 1
    /// `AsymmetricObject`: objects are created by the client and only uploaded.
    case asymmetric = 2
}

/// The primary key property a class is declared with.
public struct WirePrimaryKeySchema: Sendable, Hashable {
    /// The property name (`"_id"` for synced classes).
    public var name: String
    /// `.int`, `.string`, `.objectId` or `.uuid`; the encoder and decoder refuse others.
    public var type: WirePropertyType
    /// Whether the key may be null.
    public var isOptional: Bool

    /// A primary key property `name` of `type`.
    public init(name: String, type: WirePropertyType, isOptional: Bool = false) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }
}

/// A class declared by an ``WireInstruction/addClass(_:)`` instruction. Its other
/// properties follow as ``WireInstruction/addProperty(className:property:)``.
public struct WireClassSchema: Sendable, Hashable {
    /// The class name.
    public var name: String
    /// Top-level, embedded or asymmetric.
    public var kind: WireClassKind
    /// The primary key property; nil only for embedded classes.
    public var primaryKey: WirePrimaryKeySchema?

    /// A class `name` of `kind` with `primaryKey`.
    public init(name: String, kind: WireClassKind = .topLevel, primaryKey: WirePrimaryKeySchema?) {
        self.name = name
        self.kind = kind
        self.primaryKey = primaryKey
    }
}

/// A property declared by an ``WireInstruction/addProperty(className:property:)`` instruction.
public struct WirePropertySchema: Sendable, Hashable {
    /// The property name.
    public var name: String
    /// The value (or element) type.
    public var type: WirePropertyType
    /// One value, a list, a set or a dictionary.
    public var collection: WireCollectionKind
    /// Whether values (or elements) may be null.
    public var isOptional: Bool
    /// Whether the property has a secondary index.
    public var isIndexed: Bool
    /// The class a `.link` property points to; nil for every other type.
    public var linkTarget: String?

    /// A property `name` of `type`.
    public init(name: String, type: WirePropertyType, collection: WireCollectionKind = .none,
                isOptional: Bool = false, isIndexed: Bool = false, linkTarget: String? = nil) {
        self.name = name
        self.type = type
        self.collection = collection
        self.isOptional = isOptional
        self.isIndexed = isIndexed
        self.linkTarget = linkTarget
    }
}
