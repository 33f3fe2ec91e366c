import Foundation
import OpenRealmWire

/// An app's synced schema as an operator writes it: the `"schema"` section of the app
/// configuration, what `openrealm-server schema show` prints and `schema apply` reads.
///
/// A production app (``ServerAppConfiguration/developmentMode`` off) gets its schema only from
/// here: clients may declare what it holds, never add to it. Applying is additive, as a
/// development-mode client's declaration is (``AppStorage/applyConfiguredSchema(_:)``).
///
/// ```json
/// "schema": {
///   "Task": {
///     "primaryKey": "_id",
///     "properties": {
///       "_id": { "type": "objectId" },
///       "title": { "type": "string" },
///       "owner": { "type": "string", "indexed": true },
///       "tags": { "type": "string", "collection": "list" },
///       "assignee": { "type": "link", "objectType": "Person", "optional": true },
///       "address": { "type": "link", "objectType": "Address", "optional": true }
///     }
///   },
///   "Person": { "primaryKey": "_id", "properties": { "_id": { "type": "string" } } },
///   "Address": { "kind": "embedded", "properties": { "street": { "type": "string" } } }
/// }
/// ```
///
/// A class has a `kind` (`topLevel`, the default; `embedded`; `asymmetric`), a
/// `primaryKey` naming one of its properties (every kind but `embedded` needs one, of
/// type `int`, `string`, `objectId` or `uuid`, not a collection) and its `properties`.
/// A property has a `type` (`bool`, `int`, `float`, `double`, `string`, `binary`,
/// `timestamp`, `decimal128`, `objectId`, `uuid`, `link`, `mixed`), and optionally
/// `optional`, `collection` (`list`, `set`, `dictionary`), `indexed`, and for a `link`
/// its `objectType`, a class of the same schema.
public struct AppSchema: Sendable, Hashable {
    /// One class and its properties, the primary key among them.
    public struct Class: Sendable, Hashable {
        /// The name, kind and primary key.
        public var schema: WireClassSchema
        /// Every property but the primary key.
        public var properties: [WirePropertySchema]

        public init(schema: WireClassSchema, properties: [WirePropertySchema]) {
            self.schema = schema
            self.properties = properties
        }
    }

    /// The classes, in the order they are applied.
    public var classes: [Class]

    public init(classes: [Class]) {
        self.classes = classes
    }

    /// The schema instructions that make it: every class first, then every property,
    /// so that a link may point to a class declared after its own.
    package var instructions: [WireInstruction] {
        classes.map { WireInstruction.addClass($0.schema) }
            + classes.flatMap { cls in cls.properties.map { WireInstruction.addProperty(className: cls.schema.name, property: $0) } }
    }

    // MARK: JSON

    private static let kinds: [String: WireClassKind] = ["topLevel": .topLevel, "embedded": .embedded, "asymmetric": .asymmetric]
    private static let collections: [String: WireCollectionKind] = ["list": .list, "set": .set, "dictionary": .dictionary]
    private static let types = Dictionary(uniqueKeysWithValues: WirePropertyType.allCases.map { ($0.description, $0) })
    private static let primaryKeyTypes: Set<WirePropertyType> = [.int, .string, .objectId, .uuid]

    /// Parses the schema JSON (the configuration's `"schema"` value); `key` is where it
    /// sits, for errors (`schema`).
    ///
    /// - Throws: ``ServerError`` naming `source` and the bad key: an unknown key, type,
    ///   kind or collection; a missing or bad primary key; a link without an
    ///   `objectType` in the schema, or another type with one; a reserved (`__`) name.
    static func parse(_ value: Any, source: String, key: String = "schema") throws -> AppSchema {
        let reader = ConfigReader(source: source)
        guard let root = try reader.object(value, key) else { return AppSchema(classes: []) }
        func fail(_ message: String) -> ServerError { ServerError("\(source): \(message)") }
        var classes: [Class] = []
        for name in root.keys.sorted() {
            let at = "\(key).\(name)"
            guard !name.isEmpty, !name.hasPrefix(StorageConventions.reservedPrefix) else {
                throw fail("'\(at)': class names starting with '\(StorageConventions.reservedPrefix)' belong to the server")
            }
            guard let object = try reader.object(root[name], at) else { continue }
            try reader.only(object, ["kind", "primaryKey", "properties"], at: at + ".")
            var kind = WireClassKind.topLevel
            if let text = try reader.string(object["kind"], at + ".kind") {
                guard let k = kinds[text] else {
                    throw fail("'\(at).kind' \"\(text)\" is not one of \(kinds.keys.sorted().joined(separator: ", "))")
                }
                kind = k
            }
            let properties = try reader.object(object["properties"], at + ".properties") ?? [:]
            var parsed: [WirePropertySchema] = []
            for property in properties.keys.sorted() {
                parsed.append(try parseProperty(properties[property] as Any, name: property, at: "\(at).properties.\(property)",
                                                reader: reader, classNames: Set(root.keys)))
            }
            var primaryKey: WirePrimaryKeySchema?
            if let pkName = try reader.string(object["primaryKey"], at + ".primaryKey") {
                guard kind != .embedded else { throw fail("'\(at).primaryKey': an embedded class has no primary key") }
                guard let index = parsed.firstIndex(where: { $0.name == pkName }) else {
                    throw fail("'\(at).primaryKey' \"\(pkName)\" is not one of the class's properties")
                }
                let pk = parsed.remove(at: index)
                guard primaryKeyTypes.contains(pk.type), pk.collection == .none else {
                    throw fail("'\(at).properties.\(pkName)': a primary key is one int, string, objectId or uuid")
                }
                primaryKey = WirePrimaryKeySchema(name: pk.name, type: pk.type, isOptional: pk.isOptional)
            } else if kind != .embedded {
                throw fail("'\(at).primaryKey' is required for a \(kind == .asymmetric ? "asymmetric" : "top-level") class")
            }
            classes.append(Class(schema: WireClassSchema(name: name, kind: kind, primaryKey: primaryKey), properties: parsed))
        }
        return AppSchema(classes: classes)
    }

    private static func parseProperty(_ value: Any, name: String, at: String, reader: ConfigReader,
                                      classNames: Set<String>) throws -> WirePropertySchema {
        func fail(_ message: String) -> ServerError { ServerError("\(reader.source): \(message)") }
        guard !name.isEmpty, !name.hasPrefix(StorageConventions.reservedPrefix) else {
            throw fail("'\(at)': property names starting with '\(StorageConventions.reservedPrefix)' belong to the server")
        }
        guard let object = try reader.object(value, at) else { throw fail("'\(at)' must be an object") }
        try reader.only(object, ["type", "optional", "collection", "indexed", "objectType"], at: at + ".")
        guard let typeName = try reader.string(object["type"], at + ".type") else { throw fail("'\(at).type' is required") }
        guard let type = types[typeName] else {
            throw fail("'\(at).type' \"\(typeName)\" is not one of \(WirePropertyType.allCases.map(\.description).joined(separator: ", "))")
        }
        var collection = WireCollectionKind.none
        if let text = try reader.string(object["collection"], at + ".collection") {
            guard let c = collections[text] else {
                throw fail("'\(at).collection' \"\(text)\" is not one of \(collections.keys.sorted().joined(separator: ", "))")
            }
            collection = c
        }
        let target = try reader.string(object["objectType"], at + ".objectType")
        if type == .link {
            guard let target else { throw fail("'\(at).objectType' is required for a link") }
            guard classNames.contains(target) else { throw fail("'\(at).objectType' \"\(target)\" is not a class of the schema") }
        } else if target != nil {
            throw fail("'\(at).objectType' is for links only, not a property of type \(type)")
        }
        return WirePropertySchema(name: name, type: type, collection: collection,
                                  isOptional: try reader.bool(object["optional"], at + ".optional") ?? false,
                                  isIndexed: try reader.bool(object["indexed"], at + ".indexed") ?? false, linkTarget: target)
    }

    /// Reads a schema file for `schema apply` (``parseFile(_:source:)``).
    ///
    /// - Throws: ``ServerError`` naming the file: unreadable (with the OS reason), a
    ///   JSON syntax error, a bad key.
    public static func load(from url: URL) throws -> AppSchema {
        try parseFile(try SmallFile.read(url, what: "the schema file", limit: 16 << 20), source: url.lastPathComponent)
    }

    /// Parses a schema file for `schema apply`: what `schema show` prints, or a whole
    /// app configuration (an object with `appId`), whose `"schema"` is taken.
    ///
    /// - Throws: ``ServerError`` naming the file and the bad key.
    public static func parseFile(_ data: Data, source: String) throws -> AppSchema {
        let root = try ConfigJSON.object(data, source: source)
        if root["appId"] != nil {
            guard let schema = root["schema"] else { throw ServerError("\(source): the configuration has no 'schema'") }
            return try parse(schema, source: source)
        }
        return try parse(root, source: source)
    }

    /// The JSON value of the configuration's `"schema"` key; defaults are left out.
    public var jsonObject: [String: Any] {
        var root: [String: Any] = [:]
        for cls in classes {
            var object: [String: Any] = [:]
            var properties: [String: Any] = [:]
            if let pk = cls.schema.primaryKey {
                object["primaryKey"] = pk.name
                properties[pk.name] = Self.json(WirePropertySchema(name: pk.name, type: pk.type, isOptional: pk.isOptional))
            }
            for p in cls.properties { properties[p.name] = Self.json(p) }
            switch cls.schema.kind {
            case .topLevel: break
            case .embedded: object["kind"] = "embedded"
            case .asymmetric: object["kind"] = "asymmetric"
            }
            object["properties"] = properties
            root[cls.schema.name] = object
        }
        return root
    }

    private static func json(_ p: WirePropertySchema) -> [String: Any] {
        var object: [String: Any] = ["type": p.type.description]
        if p.isOptional { object["optional"] = true }
        if p.isIndexed { object["indexed"] = true }
        if let target = p.linkTarget { object["objectType"] = target }
        switch p.collection {
        case .none: break
        case .list: object["collection"] = "list"
        case .set: object["collection"] = "set"
        case .dictionary: object["collection"] = "dictionary"
        }
        return object
    }

    /// ``jsonObject`` as pretty-printed JSON with sorted keys, ready to paste into a
    /// configuration as the value of `"schema"`.
    public func jsonText() throws -> String {
        let data = try JSONSerialization.data(withJSONObject: jsonObject, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
