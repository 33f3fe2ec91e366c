/// The schema as the query compiler sees it: classes by name, each with its ORCore
/// table id and its properties with their column ids, types, collection kinds and
/// link targets. The Realm layer builds it from the models (it alone knows the
/// LinkingObjects properties, which have no column); tests build it by hand.
package protocol QuerySchema {
    /// The class named `name`, or nil.
    func queryClass(named name: String) -> QuerySchemaClass?
}

/// A property's value type. Raw values are ORCore's `orc_type` codes.
package enum QueryPropertyType: UInt8, Hashable, Sendable, CaseIterable {
    case bool = 1
    case int = 2
    case float = 3
    case double = 4
    case string = 5
    case binary = 6
    case timestamp = 7
    case decimal = 8
    case objectId = 9
    case uuid = 10
    /// A link to an object of `linkTargetClass` (embedded or not).
    case link = 11
    /// Holds a value of any type (`AnyRealmValue`).
    case mixed = 12

    /// Whether ORCore compares the type's values with other numbers.
    package var isNumeric: Bool { self == .int || self == .float || self == .double || self == .decimal }

    /// The name used in messages.
    package var name: String {
        switch self {
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .binary: return "binary"
        case .timestamp: return "date"
        case .decimal: return "decimal128"
        case .objectId: return "ObjectId"
        case .uuid: return "UUID"
        case .link: return "object"
        case .mixed: return "mixed"
        }
    }
}

/// Whether a property holds one value or a collection. Raw values are ORCore's
/// `orc_collection` codes.
package enum QueryCollectionKind: UInt8, Hashable, Sendable {
    case none = 0
    case list = 1
    case set = 2
    /// String keys to values.
    case dictionary = 3
}

/// One property of a class.
package struct QuerySchemaProperty: Hashable, Sendable {
    /// The property's name as queries spell it.
    package var name: String
    /// The ORCore column id (unused for a LinkingObjects property).
    package var column: UInt16
    /// The value type (of the elements, for a collection).
    package var type: QueryPropertyType
    /// One value, or a list, set or dictionary of them.
    package var collection: QueryCollectionKind
    /// Whether values (or collection elements) may be null.
    package var isOptional: Bool
    /// For `.link`: the name of the target class.
    package var linkTargetClass: String?
    /// A LinkingObjects property: the objects of `originClass` whose `originProperty`
    /// links here. It has no column; queries follow it as an ORCore backlink step.
    package var isBacklink: Bool
    /// For a LinkingObjects property: the class holding the forward link.
    package var originClass: String?
    /// For a LinkingObjects property: the forward link property.
    package var originProperty: String?

    /// A stored property.
    package init(name: String, column: UInt16, type: QueryPropertyType, collection: QueryCollectionKind = .none,
         isOptional: Bool = false, linkTargetClass: String? = nil) {
        self.name = name
        self.column = column
        self.type = type
        self.collection = collection
        self.isOptional = isOptional
        self.linkTargetClass = linkTargetClass
        self.isBacklink = false
        self.originClass = nil
        self.originProperty = nil
    }

    /// A LinkingObjects property: `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`
    /// is `.linkingObjects(name: "owners", originClass: "Person", originProperty: "dogs")`.
    package static func linkingObjects(name: String, originClass: String, originProperty: String) -> QuerySchemaProperty {
        var p = QuerySchemaProperty(name: name, column: 0, type: .link, collection: .list, isOptional: false,
                                    linkTargetClass: originClass)
        p.isBacklink = true
        p.originClass = originClass
        p.originProperty = originProperty
        return p
    }

    /// How messages describe the property's type: "int", "list of string", "optional date", ...
    package var typeDescription: String {
        let element = type == .link ? "object '\(linkTargetClass ?? "?")'" : type.name
        switch collection {
        case .none: return (isOptional && type != .link && type != .mixed ? "optional " : "") + element
        case .list: return isBacklink ? "linking objects of '\(originClass ?? "?")'" : "list of \(element)"
        case .set: return "set of \(element)"
        case .dictionary: return "dictionary of \(element)"
        }
    }
}

/// One class: its name, table id and properties.
package struct QuerySchemaClass: Hashable, Sendable {
    /// The class name.
    package var name: String
    /// The ORCore table id.
    package var table: UInt32
    /// Whether objects are embedded (owned by one parent link).
    package var isEmbedded: Bool
    /// The properties, LinkingObjects ones included.
    package var properties: [QuerySchemaProperty]

    package init(name: String, table: UInt32, isEmbedded: Bool = false, properties: [QuerySchemaProperty]) {
        self.name = name
        self.table = table
        self.isEmbedded = isEmbedded
        self.properties = properties
    }

    /// The property named `name`, or nil.
    package func property(named name: String) -> QuerySchemaProperty? {
        properties.first { $0.name == name }
    }
}

/// A ``QuerySchema`` over a fixed list of classes.
package struct QuerySchemaList: QuerySchema, Sendable {
    private let classes: [String: QuerySchemaClass]

    package init(_ classes: [QuerySchemaClass]) {
        var byName: [String: QuerySchemaClass] = [:]
        for c in classes { byName[c.name] = c }
        self.classes = byName
    }

    package func queryClass(named name: String) -> QuerySchemaClass? { classes[name] }
}
