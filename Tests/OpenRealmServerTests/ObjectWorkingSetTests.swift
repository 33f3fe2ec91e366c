import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// The working set's contract (``ObjectWorkingSet``) on the embedded store: handles stay
/// valid across a changeset's operations (an erase, which makes the store forget its
/// cached keys, and a create that may reuse an erased key among them), clocks are
/// written by ``ObjectWorkingSet/finish()`` and read back by the next changeset, and a
/// path through embedded objects resolves to the object created there, also after the
/// list it is in shifted. And the request names what a store must load for a changeset.
final class ObjectWorkingSetTests: StoreFileTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try changeset { objects, _ in
            for instruction in Self.schema { try objects.applySchema(instruction, allowingChanges: true) }
        }
    }

    static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Address", kind: .embedded, primaryKey: nil)),
        property("Address", "street", .string),
        .addClass(WireClassSchema(name: "Item", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        property("Item", "title", .string),
        property("Item", "count", .int),
        property("Item", "tags", .string, .list),
        property("Item", "address", .link, optional: true, link: "Address"),
        property("Item", "lines", .link, .list, link: "Address"),
        property("Item", "places", .link, .dictionary, optional: true, link: "Address"),
    ]

    static func item(_ id: Int64) -> WireObjectRef { WireObjectRef(className: "Item", primaryKey: .int(id)) }

    static func stamp(_ milliseconds: UInt64) -> WriteStamp {
        WriteStamp(timestamp: WireHybridTimestamp(milliseconds: milliseconds), originFileIdent: 9)
    }

    /// Runs `body` on a working set of its own in a write transaction, and finishes it.
    func changeset<T>(_ body: (EmbeddedWorkingSet, StoreTransaction) throws -> T) throws -> T {
        try store.write { txn in
            let objects = try txn.workingSet(WorkingSetRequest([]))
            let result = try body(objects, txn)
            try objects.finish()
            return result
        }
    }

    func schema(_ objects: EmbeddedWorkingSet) throws -> (item: StoredClass, property: (String) throws -> StoredProperty) {
        let item = try XCTUnwrap(try objects.schema().storedClass(named: "Item"))
        let address = try XCTUnwrap(try objects.schema().storedClass(named: "Address"))
        return (item, { name in try XCTUnwrap(item.column(named: name) ?? address.column(named: name), name) })
    }

    /// The image of `Item[id]` as the store reads it, by property name; nil when it is not stored.
    func image(_ id: Int64) throws -> [String: ObjectImage.Value]? {
        try store.read { txn in
            try txn.images([Self.item(id)]).first.map { image in
                Dictionary(uniqueKeysWithValues: image.properties.map { ($0.name, $0.value) })
            }
        }
    }

    func testHandlesStayValidAcrossTheChangesetsOperations() throws {
        try changeset { objects, _ in
            let (item, p) = try schema(objects)
            let a = try objects.create(Self.item(1), item, [(try p("title"), .string("a"))])
            let b = try objects.create(Self.item(2), item, [(try p("title"), .string("b"))])
            let c = try objects.create(Self.item(3), item, [(try p("title"), .string("c"))])
            XCTAssertEqual(try objects.object(Self.item(1)), a)
            // An erase (the store forgets the keys it cached) and a create in the same
            // table, which may be given the erased object's key.
            try objects.erase(c)
            XCTAssertNil(try objects.object(Self.item(3)))
            let d = try objects.create(Self.item(4), item, [(try p("title"), .string("d"))])
            XCTAssertNil(try objects.object(Self.item(3)), "an erased object stays erased")
            XCTAssertEqual(try objects.object(Self.item(4)), d)

            try objects.set(a, try p("title"), .string("a2"))
            try objects.listInsert(a, try p("tags"), 0, .string("x"))
            try objects.listInsert(a, try p("tags"), 0, .string("w"))
            let address = try objects.createEmbedded(a, try p("address"), at: .single)
            try objects.set(address, try p("street"), .string("Main"))
            try objects.addInteger(b, try p("count"), 5)
            try objects.set(d, try p("count"), .int(2))
            XCTAssertEqual(try objects.collectionSize(a, try p("tags")), 2)

            // The same objects by reference and by path.
            XCTAssertEqual(try objects.object(Self.item(1)), a)
            XCTAssertEqual(try objects.object(Self.item(2)), b)
            XCTAssertEqual(try objects.resolve(WireObjectPath(Self.item(4)), from: item).1, d)
            XCTAssertEqual(try objects.resolve(WireObjectPath(Self.item(1), path: [.property("address")]), from: item).1, address)
        }
        let one = try XCTUnwrap(try image(1))
        XCTAssertEqual(one["title"], .single(.string("a2")))
        XCTAssertEqual(one["tags"], .list([.value(.string("w")), .value(.string("x"))]))
        XCTAssertEqual(one["address"], .embedded(ObjectImage.Embedded(properties: [ObjectImage.Property("street", .single(.string("Main")))])))
        XCTAssertEqual(try image(2)?["count"], .single(.int(5)))
        XCTAssertNil(try image(3))
        XCTAssertEqual(try image(4)?["title"], .single(.string("d")))
        XCTAssertEqual(try image(4)?["count"], .single(.int(2)))
    }

    func testClocksAreWrittenAtFinishAndReadBackByTheNextChangeset() throws {
        var first = PropertyClocks()
        first["title"] = Self.stamp(1_000)
        first[".address.street"] = Self.stamp(1_100)
        try changeset { objects, _ in
            let (item, p) = try schema(objects)
            _ = try objects.create(Self.item(1), item, [(try p("title"), .string("a"))])
            XCTAssertEqual(try objects.clocks(of: Self.item(1)), PropertyClocks(), "a new object has no clocks")
            objects.setClocks(first, of: Self.item(1))
            XCTAssertEqual(try objects.clocks(of: Self.item(1)), first)
        }
        var second = first
        second["title"] = Self.stamp(2_000)
        try store.write { txn in
            let objects = try txn.workingSet(WorkingSetRequest([]))
            XCTAssertEqual(try objects.clocks(of: Self.item(1)), first)
            objects.setClocks(second, of: Self.item(1))
            // Not finished yet: another changeset still reads what the store holds.
            XCTAssertEqual(try txn.workingSet(WorkingSetRequest([])).clocks(of: Self.item(1)), first)
            try objects.finish()
            XCTAssertEqual(try txn.workingSet(WorkingSetRequest([])).clocks(of: Self.item(1)), second)
        }
        try store.read { txn in
            XCTAssertEqual(try txn.workingSet(WorkingSetRequest([])).clocks(of: Self.item(1)), second, "read back after the commit")
        }
        // An erased object's clocks go with it: made again, it starts afresh.
        try changeset { objects, _ in
            let (item, _) = try schema(objects)
            XCTAssertEqual(try objects.clocks(of: Self.item(1)), second)
            try objects.erase(try XCTUnwrap(try objects.object(Self.item(1))))
            _ = try objects.create(Self.item(1), item, [])
            XCTAssertEqual(try objects.clocks(of: Self.item(1)), PropertyClocks())
        }
        try changeset { objects, _ in
            XCTAssertEqual(try objects.clocks(of: Self.item(1)), PropertyClocks())
        }
    }

    func testAPathThroughEmbeddedObjectsResolvesToTheObjectCreatedThere() throws {
        let lines = { (index: UInt64) in WireObjectPath(Self.item(1), path: [.property("lines"), .index(index)]) }
        let home = WireObjectPath(Self.item(1), path: [.property("places"), .key("home")])
        try changeset { objects, _ in
            let (item, p) = try schema(objects)
            let owner = try objects.create(Self.item(1), item, [])
            let single = try objects.createEmbedded(owner, try p("address"), at: .single)
            let first = try objects.createEmbedded(owner, try p("lines"), at: .listIndex(0))
            let second = try objects.createEmbedded(owner, try p("lines"), at: .listIndex(1))
            let place = try objects.createEmbedded(owner, try p("places"), at: .dictionaryKey("home"))
            XCTAssertEqual(Set([single, first, second, place]).count, 4)

            let (cls, found) = try objects.resolve(WireObjectPath(Self.item(1), path: [.property("address")]), from: item)
            XCTAssertEqual(cls.name, "Address")
            XCTAssertEqual(found, single)
            XCTAssertEqual(try objects.resolve(lines(0), from: item).1, first)
            XCTAssertEqual(try objects.resolve(lines(1), from: item).1, second)
            XCTAssertEqual(try objects.resolve(home, from: item).1, place)
            // An object inserted before them shifts them; the paths follow.
            let inserted = try objects.createEmbedded(owner, try p("lines"), at: .listIndex(0))
            XCTAssertEqual(try objects.resolve(lines(0), from: item).1, inserted)
            XCTAssertEqual(try objects.resolve(lines(2), from: item).1, second)
            // Gone positions, keys and owners name no object.
            XCTAssertEqual(try objects.resolve(lines(3), from: item).0.name, "Address")
            XCTAssertNil(try objects.resolve(lines(3), from: item).1)
            XCTAssertNil(try objects.resolve(WireObjectPath(Self.item(1), path: [.property("places"), .key("away")]), from: item).1)
            XCTAssertNil(try objects.resolve(WireObjectPath(Self.item(7), path: [.property("address")]), from: item).1)
            try objects.set(second, try p("street"), .string("second"))
        }
        // The next changeset finds the same objects by their paths.
        try changeset { objects, _ in
            let (item, p) = try schema(objects)
            try objects.set(try XCTUnwrap(try objects.resolve(lines(2), from: item).1), try p("street"), .string("second, again"))
            try objects.set(try XCTUnwrap(try objects.resolve(home, from: item).1), try p("street"), .string("home"))
            // A path that does not fit the schema is named, step by step.
            XCTAssertThrowsError(try EmbeddedPaths.resolve(WireObjectPath(Self.item(1), path: [.property("title")]), in: objects)) { error in
                XCTAssertEqual((error as? SyncFailure)?.code, .badChangeset)
                XCTAssertEqual((error as? SyncFailure)?.message,
                               "path Item[1].title: property 'Item.title' does not link to an embedded class")
            }
        }
        let image = try XCTUnwrap(try image(1))
        let street = { (value: String) in ObjectImage.Embedded(properties: [ObjectImage.Property("street", .single(.string(value)))]) }
        XCTAssertEqual(image["lines"], .list([.embedded(street("")), .embedded(street("")), .embedded(street("second, again"))]))
        XCTAssertEqual(image["places"], .dictionary([ObjectImage.Entry("home", .embedded(street("home")))]))
    }

    func testTheRequestNamesTheChangesetsObjectsAndTheObjectsItLinksTo() {
        let person = { (id: String) in WireObjectRef(className: "Person", primaryKey: .string(id)) }
        let request = WorkingSetRequest([
            .addClass(WireClassSchema(name: "Person", primaryKey: WirePrimaryKeySchema(name: "_id", type: .string))),
            .createObject(className: "Item", primaryKey: .int(2), values: [WirePropertyValue("owner", .link(person("p1")))]),
            .set(object: WireObjectPath(Self.item(1)), property: "title", value: .string("t")),
            .createEmbeddedObject(object: WireObjectPath(Self.item(3)), property: "address", position: .single,
                                  values: [WirePropertyValue("resident", .link(person("p2")))]),
            .listInsert(object: WireObjectPath(Self.item(1), path: [.property("lines"), .index(0)]), property: "friends",
                        index: 0, value: .link(person("p3"))),
            .dictionarySet(object: WireObjectPath(Self.item(2)), property: "byName", key: "a", value: .link(person("p1"))),
            .setInsert(object: WireObjectPath(Self.item(4)), property: "links", value: .link(Self.item(1))),
            .eraseObject(WireObjectPath(person("p4"))),
        ])
        XCTAssertEqual(request.objects, [Self.item(2), Self.item(1), Self.item(3), Self.item(4), person("p4")])
        XCTAssertEqual(request.linked, [person("p1"), person("p2"), person("p3"), Self.item(1)])
    }
}
