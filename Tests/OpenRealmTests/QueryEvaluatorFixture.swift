import Foundation
import ORCore
import XCTest
@testable import OpenRealmQuery
import OpenRealmTestSupport

/// A realm file of random objects with a property of every kind, for comparing the
/// query evaluator with ORCore: the objects are written with ORCore's C API, then read
/// back into plain images (``StoredImage``), as a server reads post-images.
///
/// Classes: `Target` (name, n, x, tags; `owners`, the LinkingObjects of `Obj.lt`) and
/// `Obj` (every value type single, optional, in lists, sets and dictionaries, a mixed
/// value and mixed collections, and links to `Target` single, in a list, a set and a
/// dictionary).
final class QueryEvaluatorFixture {
    /// A property of the fixture's schema.
    struct Property {
        var name: String
        var type: QueryPropertyType
        var collection: QueryCollectionKind = .none
        var optional = false
        var indexed = false
        var target: String?
    }

    static let targetProperties: [Property] = [
        Property(name: "name", type: .string, indexed: true),
        Property(name: "n", type: .int, optional: true),
        Property(name: "x", type: .double),
        Property(name: "tags", type: .string, collection: .list),
    ]

    static let objProperties: [Property] = {
        var out: [Property] = [
            Property(name: "b", type: .bool), Property(name: "i", type: .int, indexed: true),
            Property(name: "f", type: .float), Property(name: "d", type: .double),
            Property(name: "s", type: .string, indexed: true), Property(name: "bin", type: .binary),
            Property(name: "date", type: .timestamp), Property(name: "dec", type: .decimal),
            Property(name: "oid", type: .objectId), Property(name: "uid", type: .uuid),
            Property(name: "m", type: .mixed, optional: true, indexed: true),
        ]
        let optionals: [(String, QueryPropertyType)] = [
            ("ob", .bool), ("oi", .int), ("of", .float), ("od", .double), ("os", .string), ("obin", .binary),
            ("odate", .timestamp), ("odec", .decimal), ("ooid", .objectId), ("ouid", .uuid),
        ]
        out += optionals.map { Property(name: $0.0, type: $0.1, optional: true) }
        let lists: [(String, QueryPropertyType, Bool)] = [
            ("lb", .bool, false), ("li", .int, false), ("loi", .int, true), ("lf", .float, false),
            ("ld", .double, false), ("ls", .string, false), ("los", .string, true), ("lbin", .binary, false),
            ("ldate", .timestamp, false), ("ldec", .decimal, false), ("loid", .objectId, false),
            ("luid", .uuid, false), ("lm", .mixed, true),
        ]
        out += lists.map { Property(name: $0.0, type: $0.1, collection: .list, optional: $0.2) }
        let sets: [(String, QueryPropertyType)] = [
            ("si", .int), ("sf", .float), ("sd", .double), ("ss", .string), ("sdec", .decimal),
            ("sdate", .timestamp), ("sm", .mixed),
        ]
        out += sets.map { Property(name: $0.0, type: $0.1, collection: .set, optional: $0.1 == .mixed) }
        let dictionaries: [(String, QueryPropertyType, Bool)] = [
            ("di", .int, true), ("dd", .double, false), ("ds", .string, false), ("ddec", .decimal, false),
            ("dbin", .binary, false), ("dm", .mixed, true),
        ]
        out += dictionaries.map { Property(name: $0.0, type: $0.1, collection: .dictionary, optional: $0.2) }
        out += [
            Property(name: "t", type: .link, optional: true, target: "Target"),
            Property(name: "lt", type: .link, collection: .list, target: "Target"),
            Property(name: "st", type: .link, collection: .set, target: "Target"),
            Property(name: "dt", type: .link, collection: .dictionary, optional: true, target: "Target"),
        ]
        return out
    }()

    let realm: QueryTestRealm
    private(set) var targetTable: UInt32 = 0
    private(set) var objTable: UInt32 = 0
    /// The images read back, by class name and key.
    private(set) var images: [String: [UInt64: StoredImage]] = [:]
    /// The values objects were made of (and predicates compare with).
    private(set) var values = QueryEvaluatorValues(targetTable: 0, targetKeys: [])

    init(seed: UInt64, targets: Int, objects: Int) throws {
        realm = try QueryTestRealm()
        var rng = SplitMix64(seed: seed)
        try realm.beginWrite()
        targetTable = try realm.addClass("Target")
        for p in Self.targetProperties { try add(p, to: targetTable) }
        objTable = try realm.addClass("Obj")
        for p in Self.objProperties { try add(p, to: objTable) }
        realm.addLinkingObjects(targetTable, "owners", originClass: "Obj", originProperty: "lt")

        var targetKeys: [UInt64] = []
        for _ in 0..<targets {
            let key = try realm.create(targetTable, [
                "name": .string(rng.pick(QueryEvaluatorValues.strings)),
                "n": rng.chance(0.3) ? .null : .int(rng.pick(QueryEvaluatorValues.smallInts)),
                "x": .double(rng.pick(QueryEvaluatorValues.doubles)),
            ])
            try realm.append(targetTable, key, "tags", (0..<rng.int(0...3)).map { _ in .string(rng.pick(QueryEvaluatorValues.strings)) })
            targetKeys.append(key)
        }
        values = QueryEvaluatorValues(targetTable: targetTable, targetKeys: targetKeys)
        for _ in 0..<objects {
            var singles: [String: QueryValue] = [:]
            for p in Self.objProperties where p.collection == .none {
                if p.optional && rng.chance(0.25) {
                    singles[p.name] = .null
                } else {
                    singles[p.name] = values.random(p.type, &rng)
                }
            }
            let key = try realm.create(objTable, singles)
            for p in Self.objProperties where p.collection != .none {
                let n = rng.chance(0.2) ? 0 : rng.int(1...4)
                func element() -> QueryValue {
                    p.optional && rng.chance(0.15) ? .null : values.random(p.type, &rng)
                }
                switch p.collection {
                case .list: try realm.append(objTable, key, p.name, (0..<n).map { _ in element() })
                case .set: try realm.insert(objTable, key, p.name, (0..<n).map { _ in element() })
                default:
                    var entries: [String: QueryValue] = [:]
                    for _ in 0..<n { entries[rng.pick(QueryEvaluatorValues.dictionaryKeys)] = element() }
                    try realm.put(objTable, key, p.name, entries)
                }
            }
        }
        try realm.commit()
        try readImages()
    }

    private func add(_ p: Property, to table: UInt32) throws {
        try realm.addProperty(table, p.name, p.type, p.collection, optional: p.optional, indexed: p.indexed,
                              target: p.target)
    }

    var schema: QuerySchemaList { realm.schema }

    /// The keys of the objects of `className` that ORCore's query engine selects for `query`.
    func orcoreMatches(_ query: ParsedQuery, className: String) throws -> Set<UInt64> {
        let program = try QueryCompiler.compile(query, className: className, schema: schema)
        return Set(try realm.run(program: program, className: className).keys)
    }

    /// The keys of the objects of `className` whose images `evaluator` matches.
    func evaluatorMatches(_ evaluator: QueryEvaluator, className: String) throws -> Set<UInt64> {
        Set(try images[className, default: [:]].filter { try evaluator.matches($0.value) }.keys)
    }

    // MARK: - Reading back

    private func readImages() throws {
        var read: OpaquePointer?
        try realm.check(orc_txn_begin(realm.env, Int32(ORC_TXN_READ), &read))
        defer { orc_txn_abort(read) }
        for cls in realm.classes {
            var keys = orc_keys()
            defer { orc_keys_free(&keys) }
            try realm.check(orc_table_keys(read, cls.table, &keys))
            images[cls.name] = Dictionary(uniqueKeysWithValues: (0..<keys.count).map {
                (keys.keys[$0], StoredImage(key: keys.keys[$0]))
            })
        }
        for cls in realm.classes {
            for (key, image) in images[cls.name]! {
                for p in cls.properties where !p.isBacklink {
                    image.properties[p.name] = try property(read, cls.table, key, p)
                }
            }
        }
        // Linking objects of Target from every link property of Obj, as ORCore lists them.
        let obj = realm.classes.first { $0.name == "Obj" }!
        for (key, image) in images["Target"]! {
            for p in obj.properties where p.type == .link && !p.isBacklink {
                var keys = orc_keys()
                defer { orc_keys_free(&keys) }
                try realm.check(orc_obj_backlinks(read, targetTable, key, objTable, p.column, &keys))
                image.backlinks["Obj.\(p.name)"] = (0..<keys.count).map { images["Obj"]![keys.keys[$0]]! }
            }
        }
    }

    private func property(_ txn: OpaquePointer?, _ table: UInt32, _ key: UInt64, _ p: QuerySchemaProperty) throws -> QueryPropertyValue {
        func object(_ v: QueryValue) -> StoredImage? {
            guard case .link(_, let k) = v else { return nil }
            return images[p.linkTargetClass!]![k]
        }
        var v = orc_value()
        switch p.collection {
        case .none:
            try realm.check(orc_obj_get(txn, table, key, p.column, &v))
            let value = Self.queryValue(v)
            return p.type == .link ? .object(object(value)) : .value(value)
        case .list, .set:
            var n = 0
            try realm.check(orc_coll_size(txn, table, key, p.column, &n))
            var values: [QueryValue] = []
            for i in 0..<n {
                try realm.check(orc_coll_get(txn, table, key, p.column, i, &v))
                values.append(Self.queryValue(v))
            }
            return p.type == .link ? .objects(values.compactMap(object)) : .values(values)
        case .dictionary:
            var n = 0
            try realm.check(orc_coll_size(txn, table, key, p.column, &n))
            var entries: [(key: String, value: QueryValue)] = []
            for i in 0..<n {
                var k = orc_value()
                try realm.check(orc_dict_key_at(txn, table, key, p.column, i, &k))
                try realm.check(orc_coll_get(txn, table, key, p.column, i, &v))
                guard case .string(let name) = Self.queryValue(k) else { throw QueryEvaluationError("a dictionary key that is not a string") }
                entries.append((name, Self.queryValue(v)))
            }
            if p.type == .link { return .objectDictionary(entries.map { ($0.key, object($0.value)) }) }
            return .dictionary(entries)
        }
    }

    /// An ORCore value as a query value.
    static func queryValue(_ v: orc_value) -> QueryValue {
        switch v.type {
        case ORC_TYPE_BOOL: return .bool(v.boolean)
        case ORC_TYPE_INT: return .int(v.integer)
        case ORC_TYPE_FLOAT: return .float(v.fnum)
        case ORC_TYPE_DOUBLE: return .double(v.dnum)
        case ORC_TYPE_STRING:
            return .string(String(decoding: UnsafeRawBufferPointer(start: v.string.data, count: v.string.size), as: UTF8.self))
        case ORC_TYPE_BINARY:
            return .binary(v.string.size == 0 ? Data() : Data(bytes: v.string.data, count: v.string.size))
        case ORC_TYPE_TIMESTAMP: return .timestamp(seconds: v.timestamp.seconds, nanoseconds: v.timestamp.nanoseconds)
        case ORC_TYPE_DECIMAL: return .decimal(Decimal128(bidLow: v.decimal.w.0, bidHigh: v.decimal.w.1))
        case ORC_TYPE_OBJECT_ID: return .objectId(ObjectId(orcBytes: v.object_id))
        case ORC_TYPE_UUID: return .uuid(UUID(uuid: v.uuid))
        case ORC_TYPE_LINK: return .link(table: v.link.table, key: v.link.key)
        default: return .null
        }
    }
}

/// An object read back from the realm: what a server's image of it holds.
final class StoredImage: QueryEvaluable, CustomStringConvertible {
    let key: UInt64
    var properties: [String: QueryPropertyValue] = [:]
    /// Linking objects by "Class.property".
    var backlinks: [String: [StoredImage]] = [:]

    init(key: UInt64) { self.key = key }

    func queryProperty(_ name: String) -> QueryPropertyValue? { properties[name] }
    var queryObjectKey: UInt64? { key }
    func queryLinkingObjects(className: String, property: String) -> [any QueryEvaluable]? {
        backlinks["\(className).\(property)"]
    }

    var description: String {
        func text(_ v: QueryValue) -> String { QueryRenderer.value(v) }
        func image(_ o: (any QueryEvaluable)?) -> String { (o as? StoredImage).map { "#\($0.key)" } ?? "nil" }
        let fields = properties.keys.sorted().map { name -> String in
            switch properties[name]! {
            case .value(let v): return "\(name): \(text(v))"
            case .object(let o): return "\(name): \(image(o))"
            case .values(let vs): return "\(name): [\(vs.map(text).joined(separator: ", "))]"
            case .objects(let os): return "\(name): [\(os.map(image).joined(separator: ", "))]"
            case .dictionary(let es): return "\(name): [\(es.map { "\($0.key): \(text($0.value))" }.joined(separator: ", "))]"
            case .objectDictionary(let es): return "\(name): [\(es.map { "\($0.key): \(image($0.value))" }.joined(separator: ", "))]"
            }
        }
        return "#\(key) {" + fields.joined(separator: "; ") + "}"
    }
}

/// The values the fixture stores and the predicates compare with: edge values of every
/// type (NaN, -0.0, infinities, Int64.min / max, 2^53 + 1, dates before 1970, invalid
/// UTF-8 in binaries, case pairs, composed and decomposed accents, non-Latin scripts).
struct QueryEvaluatorValues {
    let targetTable: UInt32
    let targetKeys: [UInt64]

    static let smallInts: [Int64] = [0, 1, -1, 2, 3, 7, -7, 42]
    static let ints: [Int64] = smallInts + [.max, .min, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
    static let floats: [Float] = [0, -0.0, 1, 1.5, -2.25, 0.1, 3, .nan, .infinity, -.infinity, .greatestFiniteMagnitude]
    static let doubles: [Double] = [0, -0.0, 1, 1.5, 0.1, -2.25, 3, 0.30000000000000004, .nan, .infinity, -.infinity,
                                    9_007_199_254_740_992, 9_223_372_036_854_775_807, 1e300, 5e-324, 42]
    static let decimals: [Decimal128] = ["0", "-0", "1", "1.0", "1.5", "0.1", "-2.25", "3", "1E+10", "42",
                                         "123456789012345678901234567890.1234", "9223372036854775808", "NaN",
                                         "Infinity", "-Infinity"].compactMap { try? Decimal128(string: $0) }
    static let strings: [String] = ["", "a", "A", "ab", "Ab", "abc", "b", "é", "e\u{301}", "É", "e", "E", "ß", "ss", "SS",
                                    "Σ", "σ", "ς", "i", "İ", "ǅ", "ǆ", "日本", "🙂", "a*b", "a?c", "*", "straße", "STRASSE",
                                    "Ångström", "angstrom", "й", "и", "Ё", "е", "Ω", "ω", "\u{2126}", "ﬁ", "x\u{0}y",
                                    "µ", "μ", "ΆΈ", "αε", "Łódź", "lodz"]
    static let patterns: [String] = ["*", "a*", "*b", "?", "??", "a?c", "*é*", "A*", "*ß", "", "*\u{301}", "?b*", "*s*",
                                     "Σ*", "*ω"]
    static let binaries: [Data] = [Data(), Data([0]), Data([0x61]), Data("abc".utf8), Data("ab".utf8), Data([0xFF, 0xFE]),
                                   Data([0xC3]), Data("é".utf8), Data("A".utf8)]
    static let dates: [(Int64, Int32)] = [(0, 0), (-1, -500_000_000), (-3_155_760_000, 0), (1_600_000_000, 0),
                                          (1_600_000_000, 1), (-62_135_596_800, 0), (253_402_300_799, 999_999_999), (0, 1)]
    static let objectIds: [ObjectId] = ["000000000000000000000000", "507f1f77bcf86cd799439011", "507f1f77bcf86cd799439012",
                                        "ffffffffffffffffffffffff"].map { try! ObjectId(string: $0) }
    static let uuids: [UUID] = ["00000000-0000-0000-0000-000000000000", "d1b186e1-e9e0-4768-a1a7-c492519d47ee",
                                "ffffffff-ffff-ffff-ffff-ffffffffffff"].map { UUID(uuidString: $0)! }
    static let dictionaryKeys = ["a", "b", "A", "é", "e\u{301}", "日", "k1", "zz"]

    /// A value of `type` (for mixed: of any type, objects and null included).
    func random(_ type: QueryPropertyType, _ rng: inout SplitMix64) -> QueryValue {
        switch type {
        case .bool: return .bool(rng.chance(0.5))
        case .int: return .int(rng.pick(Self.ints))
        case .float: return .float(rng.pick(Self.floats))
        case .double: return .double(rng.pick(Self.doubles))
        case .string: return .string(rng.pick(Self.strings))
        case .binary: return .binary(rng.pick(Self.binaries))
        case .timestamp:
            let (s, ns) = rng.pick(Self.dates)
            return .timestamp(seconds: s, nanoseconds: ns)
        case .decimal: return .decimal(rng.pick(Self.decimals))
        case .objectId: return .objectId(rng.pick(Self.objectIds))
        case .uuid: return .uuid(rng.pick(Self.uuids))
        case .link: return .link(table: targetTable, key: rng.pick(targetKeys))
        case .mixed:
            let kinds: [QueryPropertyType] = [.bool, .int, .float, .double, .string, .binary, .timestamp, .decimal,
                                              .objectId, .uuid, .link]
            return rng.chance(0.1) ? .null : random(rng.pick(kinds), &rng)
        }
    }
}
