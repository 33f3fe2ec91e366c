import Foundation
import ORCore

/// The type of a property's values.
public enum PropertyType: Int, Sendable, CustomStringConvertible {
    case int = 0
    case bool = 1
    case string = 2
    case data = 3
    case date = 4
    case float = 5
    case double = 6
    case object = 7
    case linkingObjects = 8
    case any = 9
    case objectId = 10
    case decimal128 = 11
    case UUID = 12

    init(_ type: orc_type, linkingObjects: Bool = false) {
        if linkingObjects { self = .linkingObjects; return }
        switch type {
        case ORC_TYPE_BOOL: self = .bool
        case ORC_TYPE_INT: self = .int
        case ORC_TYPE_FLOAT: self = .float
        case ORC_TYPE_DOUBLE: self = .double
        case ORC_TYPE_STRING: self = .string
        case ORC_TYPE_BINARY: self = .data
        case ORC_TYPE_TIMESTAMP: self = .date
        case ORC_TYPE_DECIMAL: self = .decimal128
        case ORC_TYPE_OBJECT_ID: self = .objectId
        case ORC_TYPE_UUID: self = .UUID
        case ORC_TYPE_LINK: self = .object
        default: self = .any
        }
    }

    public var description: String {
        switch self {
        case .int: return "int"
        case .bool: return "bool"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .float: return "float"
        case .double: return "double"
        case .object: return "object"
        case .linkingObjects: return "linking objects"
        case .any: return "mixed"
        case .objectId: return "object id"
        case .decimal128: return "decimal128"
        case .UUID: return "uuid"
        }
    }
}

/// One property of an ``ObjectSchema``.
public final class Property: CustomStringConvertible, Equatable, @unchecked Sendable {
    public let name: String
    public let type: PropertyType
    public let isIndexed: Bool
    public let isPrimary: Bool
    public let isOptional: Bool
    public let isArray: Bool
    public let isSet: Bool
    public let isMap: Bool
    /// The linked class for `.object` and `.linkingObjects` properties.
    public let objectClassName: String?
    /// For `.linkingObjects`: the property of `objectClassName` that links here.
    public let linkOriginPropertyName: String?

    /// The name the property is stored under in the file and synced as: the class's
    /// ``ObjectBase/propertiesMapping()`` entry for it, else `name`.
    public let columnName: String

    init(name: String, columnName: String? = nil, type: PropertyType, isIndexed: Bool, isPrimary: Bool, isOptional: Bool,
         collection: orc_collection, objectClassName: String?, linkOriginPropertyName: String?) {
        self.name = name
        self.columnName = columnName ?? name
        self.type = type
        self.isIndexed = isIndexed || isPrimary
        self.isPrimary = isPrimary
        self.isOptional = isOptional
        isArray = collection == ORC_COLL_LIST
        isSet = collection == ORC_COLL_SET
        isMap = collection == ORC_COLL_DICT
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
    }

    convenience init(_ info: ObjectTypeInfo.PropertyInfo) {
        let d = info.descriptor
        self.init(name: info.name, columnName: info.columnName, type: PropertyType(d.type, linkingObjects: d.isLinkingObjects),
                  isIndexed: info.isIndexed, isPrimary: info.isPrimaryKey, isOptional: d.optional,
                  collection: d.collection, objectClassName: d.target?.className(),
                  linkOriginPropertyName: info.originProperty)
    }

    /// A short declaration such as `tasks: List<Task>` or `assignee: string?`.
    var typeDescription: String {
        var base = type == .object ? (objectClassName ?? "object") : type.description
        if type == .linkingObjects { return "LinkingObjects<\(objectClassName ?? "?")>.\(linkOriginPropertyName ?? "?")" }
        if isOptional && type != .any && !(type == .object && !(isArray || isSet || isMap)) { base += "?" }
        if isArray { return "List<\(base)>" }
        if isSet { return "MutableSet<\(base)>" }
        if isMap { return "Map<String, \(base)>" }
        if type == .object { return base + "?" }
        return base
    }

    public var description: String {
        var flags: [String] = []
        if isPrimary { flags.append("primary key") }
        if isIndexed && !isPrimary { flags.append("indexed") }
        return "\(name): \(typeDescription)" + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")
    }

    public static func == (lhs: Property, rhs: Property) -> Bool {
        lhs.name == rhs.name && lhs.columnName == rhs.columnName && lhs.type == rhs.type && lhs.isIndexed == rhs.isIndexed
            && lhs.isPrimary == rhs.isPrimary && lhs.isOptional == rhs.isOptional && lhs.isArray == rhs.isArray
            && lhs.isSet == rhs.isSet && lhs.isMap == rhs.isMap && lhs.objectClassName == rhs.objectClassName
            && lhs.linkOriginPropertyName == rhs.linkOriginPropertyName
    }
}

/// The schema of one class: its name and properties.
public final class ObjectSchema: CustomStringConvertible, Equatable, @unchecked Sendable {
    public let className: String
    public let properties: [Property]
    public let isEmbedded: Bool
    public let isAsymmetric: Bool

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property named `propertyName`.
    public subscript(propertyName: String) -> Property? { properties.first { $0.name == propertyName } }

    init(className: String, properties: [Property], isEmbedded: Bool, isAsymmetric: Bool) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.isAsymmetric = isAsymmetric
    }

    convenience init(_ info: ObjectTypeInfo) {
        self.init(className: info.className, properties: info.properties.map(Property.init),
                  isEmbedded: info.kind == ORC_CLASS_EMBEDDED, isAsymmetric: info.kind == ORC_CLASS_ASYMMETRIC)
    }

    public var description: String {
        "\(className) {\n" + properties.map { "    \($0)" }.joined(separator: "\n") + "\n}"
    }

    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.properties == rhs.properties && lhs.isEmbedded == rhs.isEmbedded
    }
}

/// The schema of a realm: its classes.
public struct Schema: CustomStringConvertible, Equatable, Sendable {
    public let objectSchema: [ObjectSchema]

    public subscript(className: String) -> ObjectSchema? { objectSchema.first { $0.className == className } }

    public var description: String { objectSchema.map(\.description).joined(separator: "\n") }

    /// Two schemas are equal when they have the same classes, each with an equal
    /// `ObjectSchema`, in whatever order (as the SDK compares them).
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        guard lhs.objectSchema.count == rhs.objectSchema.count else { return false }
        return lhs.objectSchema.allSatisfy { schema in rhs[schema.className] == schema }
    }
}
