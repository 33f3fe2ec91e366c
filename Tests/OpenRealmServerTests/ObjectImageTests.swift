import Foundation
import XCTest
import OpenRealmQuery
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// Objects read as images (``ObjectReading/images(_:)``) and rendered by
/// ``ObjectSnapshot`` give, instruction for instruction, what the snapshot read from the
/// store's objects directly gave before images (``StoreReadSnapshot``, kept here as the
/// reference), for objects with every kind of property: single values and nulls, links
/// (to a missing object too), lists, sets and dictionaries of values and of links, and
/// embedded objects as a single link, in a list and in a dictionary, nested.
final class ObjectImageTests: StoreFileTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try store.write { txn in
            var integrator = Integrator(objects: try txn.workingSet(WorkingSetRequest(Self.schema + Self.objects)), developmentMode: true,
                                        stamp: WriteStamp(timestamp: WireHybridTimestamp(milliseconds: 1_000), originFileIdent: 1))
            _ = try integrator.apply(Self.schema + Self.objects)
        }
    }

    static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Person", primaryKey: WirePrimaryKeySchema(name: "_id", type: .string))),
        property("Person", "name", .string),
        .addClass(WireClassSchema(name: "Geo", kind: .embedded, primaryKey: nil)),
        property("Geo", "lat", .double),
        .addClass(WireClassSchema(name: "Address", kind: .embedded, primaryKey: nil)),
        property("Address", "street", .string),
        property("Address", "codes", .int, .list),
        property("Address", "geo", .link, optional: true, link: "Geo"),
        .addClass(WireClassSchema(name: "Item", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        property("Item", "title", .string),
        property("Item", "note", .string, optional: true),
        property("Item", "count", .int, optional: true),
        property("Item", "any", .mixed, optional: true),
        property("Item", "tags", .string, .list),
        property("Item", "labels", .string, .set),
        property("Item", "ratings", .double, .dictionary),
        property("Item", "owner", .link, optional: true, link: "Person"),
        property("Item", "friends", .link, .list, link: "Person"),
        property("Item", "byName", .link, .dictionary, optional: true, link: "Person"),
        property("Item", "address", .link, optional: true, link: "Address"),
        property("Item", "lines", .link, .list, link: "Address"),
        property("Item", "places", .link, .dictionary, optional: true, link: "Address"),
    ]

    static func item(_ id: Int64) -> WireObjectPath { WireObjectPath(className: "Item", primaryKey: .int(id)) }
    static func person(_ id: String) -> WireValue { .link(WireObjectRef(className: "Person", primaryKey: .string(id))) }

    static let objects: [WireInstruction] = {
        let full = item(1)
        let address = WireObjectPath(full.root, path: [.property("address")])
        let line1 = WireObjectPath(full.root, path: [.property("lines"), .index(1)])
        let home = WireObjectPath(full.root, path: [.property("places"), .key("home")])
        return [
            .createObject(className: "Person", primaryKey: .string("p1"), values: [WirePropertyValue("name", .string("Ann"))]),
            .createObject(className: "Person", primaryKey: .string("p2"), values: [WirePropertyValue("name", .string("Bo"))]),
            .createObject(className: "Item", primaryKey: .int(1), values: [
                WirePropertyValue("title", .string("full")), WirePropertyValue("note", .null),
                WirePropertyValue("count", .int(3)), WirePropertyValue("any", .double(2.5)),
                WirePropertyValue("owner", person("p1")),
            ]),
            .listInsert(object: full, property: "tags", index: 0, value: .string("a")),
            .listInsert(object: full, property: "tags", index: 1, value: .string("b")),
            .listInsert(object: full, property: "tags", index: 2, value: .string("a")),
            .setInsert(object: full, property: "labels", value: .string("x")),
            .setInsert(object: full, property: "labels", value: .string("y")),
            .dictionarySet(object: full, property: "ratings", key: "q", value: .double(1.5)),
            .dictionarySet(object: full, property: "ratings", key: "r", value: .double(2)),
            .listInsert(object: full, property: "friends", index: 0, value: person("p2")),
            .listInsert(object: full, property: "friends", index: 1, value: person("p1")),
            .dictionarySet(object: full, property: "byName", key: "ann", value: person("p1")),
            .dictionarySet(object: full, property: "byName", key: "nobody", value: .null),
            .createEmbeddedObject(object: full, property: "address", position: .single,
                                  values: [WirePropertyValue("street", .string("Main"))]),
            .listInsert(object: address, property: "codes", index: 0, value: .int(7)),
            .listInsert(object: address, property: "codes", index: 1, value: .int(9)),
            .createEmbeddedObject(object: address, property: "geo", position: .single, values: [WirePropertyValue("lat", .double(52.5))]),
            .createEmbeddedObject(object: full, property: "lines", position: .listIndex(0), values: [WirePropertyValue("street", .string("l0"))]),
            .createEmbeddedObject(object: full, property: "lines", position: .listIndex(1), values: [WirePropertyValue("street", .string("l1"))]),
            .createEmbeddedObject(object: line1, property: "geo", position: .single, values: [WirePropertyValue("lat", .double(1))]),
            .createEmbeddedObject(object: full, property: "places", position: .dictionaryKey("home"),
                                  values: [WirePropertyValue("street", .string("Home"))]),
            .listInsert(object: home, property: "codes", index: 0, value: .int(1)),
            .dictionarySet(object: full, property: "places", key: "none", value: .null),
            // Sparse: empty collections, null links, no embedded object.
            .createObject(className: "Item", primaryKey: .int(2), values: [WirePropertyValue("title", .string("sparse"))]),
            // A link to an object that does not exist is stored as null.
            .createObject(className: "Item", primaryKey: .int(3), values: [
                WirePropertyValue("title", .string("dangling")),
                WirePropertyValue("owner", person("missing")),
            ]),
            .listInsert(object: item(3), property: "friends", index: 0, value: person("p2")),
        ]
    }()

    static let refs = [Int64(1), 2, 3].map { WireObjectRef(className: "Item", primaryKey: .int($0)) }
        + ["p1", "p2"].map { WireObjectRef(className: "Person", primaryKey: .string($0)) }

    func testImagesRenderAsTheStoreSnapshots() throws {
        try store.read { txn in
            let schema = try txn.schema()
            let images = try txn.images(Self.refs)
            XCTAssertEqual(images.map(\.ref), Self.refs)
            var kinds: Set<String> = []
            for (ref, image) in zip(Self.refs, images) {
                let cls = try XCTUnwrap(schema.topLevelClass(named: ref.className))
                let key = try XCTUnwrap(try txn.findObject(cls, ref.primaryKey))
                for clearing in [false, true] {
                    let old = try StoreReadSnapshot.instructions(txn, schema, cls, key: key, clearingEveryCollection: clearing)
                    let new = ObjectSnapshot.instructions(image, clearingEveryCollection: clearing)
                    XCTAssertEqual(new, old, "\(ref), clearing every collection: \(clearing)")
                    for instruction in new { kinds.insert(Self.kind(instruction)) }
                }
            }
            // The objects cover every kind of instruction a snapshot makes.
            XCTAssertEqual(kinds, ["createObject", "clearCollection", "listInsert", "setInsert", "dictionarySet", "set null",
                                   "createEmbeddedObject single", "createEmbeddedObject list", "createEmbeddedObject dictionary"])
        }
    }

    static func kind(_ instruction: WireInstruction) -> String {
        switch instruction {
        case .createObject: return "createObject"
        case .clearCollection: return "clearCollection"
        case .listInsert: return "listInsert"
        case .setInsert: return "setInsert"
        case .dictionarySet: return "dictionarySet"
        case .set(_, _, .null): return "set null"
        case .createEmbeddedObject(_, _, .single, _): return "createEmbeddedObject single"
        case .createEmbeddedObject(_, _, .listIndex, _): return "createEmbeddedObject list"
        case .createEmbeddedObject(_, _, .dictionaryKey, _): return "createEmbeddedObject dictionary"
        default: return "\(instruction)"
        }
    }

    func testImagesLeaveOutObjectsThatDoNotExist() throws {
        try store.read { txn in
            let missing = WireObjectRef(className: "Item", primaryKey: .int(99))
            let unknown = WireObjectRef(className: "Nothing", primaryKey: .int(1))
            XCTAssertEqual(try txn.images([missing, Self.refs[1], unknown]).map(\.ref), [Self.refs[1]])
            XCTAssertEqual(try txn.existing([missing, Self.refs[0], unknown]), [Self.refs[0]])
        }
    }

    func testMatchingAnswersInReferencesAmongOrEveryObject() throws {
        try store.read { txn in
            let titled = try QueryParser.parse("title BEGINSWITH 'd' OR title == 'full'").normalized().predicate
            XCTAssertEqual(Set(try txn.matching(titled, in: "Item", among: nil)), [Self.refs[0], Self.refs[2]])
            let missing = WireObjectRef(className: "Item", primaryKey: .int(99))
            XCTAssertEqual(try txn.matching(titled, in: "Item", among: [Self.refs[2], Self.refs[1], missing, Self.refs[0]]),
                           [Self.refs[2], Self.refs[0]], "among given objects, in their order, the missing one left out")
            XCTAssertEqual(try txn.matching(titled, in: "Address", among: nil), [], "embedded objects are not named by references")
            let unknownProperty = try QueryParser.parse("colour == 'red'").normalized().predicate
            XCTAssertEqual(try txn.matching(unknownProperty, in: "Item", among: nil), [], "a predicate that does not fit matches nothing")
        }
    }
}

/// The snapshot as the server made it before images: read from the store object by
/// object, property by property (the reference the image path must equal).
enum StoreReadSnapshot {
    /// The instructions for object `key` of `cls`.
    ///
    /// - Parameter clearingEveryCollection: whether to clear every collection property
    ///   first, even empty ones, and to null empty embedded links (for a client whose
    ///   copy may differ, such as one whose write is reverted); otherwise only non-empty
    ///   collections are cleared.
    static func instructions(_ txn: StoreTransaction, _ schema: SyncSchema, _ cls: StoredClass, key: UInt64,
                             clearingEveryCollection: Bool = false) throws -> [WireInstruction] {
        let ref = try txn.objectRef(cls, key)
        let (values, rest) = try contents(txn, schema, cls, key: key, path: WireObjectPath(ref),
                                          clearing: clearingEveryCollection)
        return [.createObject(className: ref.className, primaryKey: ref.primaryKey, values: values)] + rest
    }

    /// The single values of object `key` of `cls` (for its create instruction), and the
    /// instructions that fill its collections and embedded objects, addressed by `path`.
    private static func contents(_ txn: StoreTransaction, _ schema: SyncSchema, _ cls: StoredClass, key: UInt64,
                                 path: WireObjectPath, clearing: Bool) throws -> ([WirePropertyValue], [WireInstruction]) {
        var values: [WirePropertyValue] = []
        var rest: [WireInstruction] = []
        // The server's own columns (the hidden partition and clocks) are not among the properties.
        for prop in cls.properties where !prop.isPrimaryKey {
            let embedded = schema.embeddedTarget(of: prop)
            let size = prop.collection == .none ? 0 : try txn.collectionSize(cls, key, prop)
            // A client that already holds the object gets its collections replaced, not appended to.
            if prop.collection != .none && (clearing || size > 0) {
                rest.append(.clearCollection(object: path, property: prop.name))
            }
            switch prop.collection {
            case .none:
                if let embedded {
                    if let child = try txn.embeddedObject(cls, key, prop) {
                        rest += try embeddedObject(txn, schema, embedded, child, parent: path, property: prop.name, position: .single)
                    } else if clearing {
                        rest.append(.set(object: path, property: prop.name, value: .null))
                    }
                } else {
                    values.append(WirePropertyValue(prop.name, try txn.value(cls, key, prop)))
                }
            case .list:
                for i in 0..<size {
                    if let embedded, let child = try txn.embeddedObject(cls, key, prop, at: i) {
                        rest += try embeddedObject(txn, schema, embedded, child, parent: path, property: prop.name,
                                                   position: .listIndex(UInt64(i)))
                    } else {
                        rest.append(.listInsert(object: path, property: prop.name, index: UInt64(i),
                                                value: try txn.collectionElement(cls, key, prop, i)))
                    }
                }
            case .set:
                for i in 0..<size {
                    rest.append(.setInsert(object: path, property: prop.name, value: try txn.collectionElement(cls, key, prop, i)))
                }
            case .dictionary:
                for i in 0..<size {
                    let dkey = try txn.dictionaryKey(cls, key, prop, i)
                    if let embedded, let child = try txn.embeddedObject(cls, key, prop, at: i) {
                        rest += try embeddedObject(txn, schema, embedded, child, parent: path, property: prop.name,
                                                   position: .dictionaryKey(dkey))
                    } else {
                        rest.append(.dictionarySet(object: path, property: prop.name, key: dkey,
                                                   value: embedded != nil ? .null : try txn.collectionElement(cls, key, prop, i)))
                    }
                }
            }
        }
        return (values, rest)
    }

    /// The instructions that create the embedded object `child` of class `cls` at
    /// `position` of `parent`'s `property`, with its contents.
    private static func embeddedObject(_ txn: StoreTransaction, _ schema: SyncSchema, _ cls: StoredClass, _ child: UInt64,
                                       parent: WireObjectPath, property: String,
                                       position: WireEmbeddedPosition) throws -> [WireInstruction] {
        var steps = parent.path + [WirePathElement.property(property)]
        switch position {
        case .single: break
        case .listIndex(let i): steps.append(.index(i))
        case .dictionaryKey(let k): steps.append(.key(k))
        }
        let (values, rest) = try contents(txn, schema, cls, key: child, path: WireObjectPath(parent.root, path: steps),
                                          clearing: false)
        return [.createEmbeddedObject(object: parent, property: property, position: position, values: values)] + rest
    }
}
