import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Embedded objects: created in place, reached by paths from their top-level owner,
/// included in bootstraps and forwarded to other clients.
final class EmbeddedObjectTests: ServerTestCase {
    /// `Order { _id: int, title: string, address: Address?, lines: [Line], byName: {String: Line?} }`,
    /// `Address { city: string }`, `Line { sku: string, qty: int, shipTo: Address? }` (both embedded).
    static let orderSchema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Address", kind: .embedded, primaryKey: nil)),
        .addProperty(className: "Address", property: WirePropertySchema(name: "city", type: .string)),
        .addClass(WireClassSchema(name: "Line", kind: .embedded, primaryKey: nil)),
        .addProperty(className: "Line", property: WirePropertySchema(name: "sku", type: .string)),
        .addProperty(className: "Line", property: WirePropertySchema(name: "qty", type: .int)),
        .addProperty(className: "Line", property: WirePropertySchema(name: "shipTo", type: .link, isOptional: true, linkTarget: "Address")),
        .addClass(WireClassSchema(name: "Order", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Order", property: WirePropertySchema(name: "title", type: .string)),
        .addProperty(className: "Order", property: WirePropertySchema(name: "address", type: .link, isOptional: true, linkTarget: "Address")),
        .addProperty(className: "Order", property: WirePropertySchema(name: "lines", type: .link, collection: .list, linkTarget: "Line")),
        .addProperty(className: "Order", property: WirePropertySchema(name: "byName", type: .link, collection: .dictionary,
                                                                      isOptional: true, linkTarget: "Line")),
    ]

    static let order = WireObjectRef(className: "Order", primaryKey: .int(1))
    static func at(_ steps: WirePathElement...) -> WireObjectPath { WireObjectPath(order, path: steps) }
    static let root = WireObjectPath(order)

    /// Creates order 1 with an address, two lines (the second with its own address) and
    /// a dictionary entry.
    static let createOrder: [WireInstruction] = [
        .createObject(className: "Order", primaryKey: .int(1), values: [WirePropertyValue("title", .string("o"))]),
        .createEmbeddedObject(object: root, property: "address", position: .single, values: [WirePropertyValue("city", .string("Oslo"))]),
        .createEmbeddedObject(object: root, property: "lines", position: .listIndex(0),
                              values: [WirePropertyValue("sku", .string("a")), WirePropertyValue("qty", .int(1))]),
        .createEmbeddedObject(object: root, property: "lines", position: .listIndex(5),
                              values: [WirePropertyValue("sku", .string("b")), WirePropertyValue("qty", .int(2))]),
        .createEmbeddedObject(object: at(.property("lines"), .index(1)), property: "shipTo", position: .single,
                              values: [WirePropertyValue("city", .string("Bergen"))]),
        .createEmbeddedObject(object: root, property: "byName", position: .dictionaryKey("x"),
                              values: [WirePropertyValue("sku", .string("x")), WirePropertyValue("qty", .int(9))]),
    ]

    func subscribeToOrders(_ client: TestSyncClient, version: UInt64 = 1) throws -> [WireInstruction] {
        try query(client, version: version, ["Order": "TRUEPREDICATE"]).get()
    }

    func nextChanges(_ client: TestSyncClient, _ what: String) throws -> [WireInstruction] {
        try client.waitFor(what) { m -> [WireInstruction]? in
            if case .download(let d) = m, !d.changesets.isEmpty { return d.changesets.flatMap(\.instructions) }
            if case .error(let e) = m { XCTFail("unexpected error: \(e.message)") }
            return nil
        }
    }

    /// The order as a fresh client's bootstrap shows it.
    func bootstrap() throws -> [WireInstruction] {
        let (fresh, _) = try boundClient()
        return try subscribeToOrders(fresh)
    }

    func testEmbeddedObjectsAreIntegratedBootstrappedAndForwarded() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        _ = try subscribeToOrders(a)
        _ = try subscribeToOrders(b)
        try upload(a, clientVersion: 1, Self.orderSchema + Self.createOrder)
        // The list index past the end is clamped in what others receive.
        var expectedCreate = Self.createOrder
        expectedCreate[3] = .createEmbeddedObject(object: Self.root, property: "lines", position: .listIndex(1),
                                                  values: [WirePropertyValue("sku", .string("b")), WirePropertyValue("qty", .int(2))])
        // The order enters b's view: b gets it whole (collections cleared first).
        XCTAssertEqual(try nextChanges(b, "b to receive the order").filter {
            if case .clearCollection = $0 { return false } else { return true }
        }, expectedCreate)

        // The bootstrap holds the same objects, at the same places.
        let first = try bootstrap()
        XCTAssertEqual(first.first, .createObject(className: "Order", primaryKey: .int(1), values: [WirePropertyValue("title", .string("o"))]))
        XCTAssertTrue(first.contains(.createEmbeddedObject(object: Self.root, property: "address", position: .single,
                                                           values: [WirePropertyValue("city", .string("Oslo"))])), "\(first)")
        XCTAssertTrue(first.contains(.createEmbeddedObject(object: Self.root, property: "lines", position: .listIndex(1),
                                                           values: [WirePropertyValue("sku", .string("b")), WirePropertyValue("qty", .int(2))])))
        XCTAssertTrue(first.contains(.createEmbeddedObject(object: Self.at(.property("lines"), .index(1)), property: "shipTo",
                                                           position: .single, values: [WirePropertyValue("city", .string("Bergen"))])))
        XCTAssertTrue(first.contains(.createEmbeddedObject(object: Self.root, property: "byName", position: .dictionaryKey("x"),
                                                           values: [WirePropertyValue("sku", .string("x")), WirePropertyValue("qty", .int(9))])))
        XCTAssertTrue(first.contains(.clearCollection(object: Self.root, property: "lines")))

        // Sets, additions and erases through paths; forwarded as they are.
        let edits: [WireInstruction] = [
            .set(object: Self.at(.property("address")), property: "city", value: .string("Trondheim")),
            .addInteger(object: Self.at(.property("lines"), .index(0)), property: "qty", delta: 4),
            .eraseObject(Self.at(.property("lines"), .index(1))),
            .set(object: Self.at(.property("byName"), .key("x")), property: "sku", value: .string("y")),
        ]
        try upload(b, clientVersion: 1, serverVersion: 3, edits)
        XCTAssertEqual(try nextChanges(a, "a to receive b's edits"), edits)
        let second = try bootstrap()
        XCTAssertTrue(second.contains(.createEmbeddedObject(object: Self.root, property: "address", position: .single,
                                                            values: [WirePropertyValue("city", .string("Trondheim"))])), "\(second)")
        XCTAssertTrue(second.contains(.createEmbeddedObject(object: Self.root, property: "lines", position: .listIndex(0),
                                                            values: [WirePropertyValue("sku", .string("a")), WirePropertyValue("qty", .int(5))])))
        XCTAssertFalse(second.contains { if case .createEmbeddedObject(_, "lines", .listIndex(1), _) = $0 { return true } else { return false } })
        XCTAssertFalse(second.contains { if case .createEmbeddedObject(_, "shipTo", _, _) = $0 { return true } else { return false } })
        XCTAssertTrue(second.contains(.createEmbeddedObject(object: Self.root, property: "byName", position: .dictionaryKey("x"),
                                                            values: [WirePropertyValue("sku", .string("y")), WirePropertyValue("qty", .int(9))])))

        // Nulling a single embedded link erases the object; erasing the owner erases the rest.
        try upload(a, clientVersion: 2, serverVersion: 4, [.set(object: Self.root, property: "address", value: .null)])
        XCTAssertFalse(try bootstrap().contains { if case .createEmbeddedObject(_, "address", _, _) = $0 { return true } else { return false } })
        try upload(a, clientVersion: 3, serverVersion: 4, [.eraseObject(Self.root)])
        XCTAssertEqual(try bootstrap(), [])
    }

    func testEmbeddedPropertiesAreLastWriterWins() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        _ = try subscribeToOrders(a)
        _ = try subscribeToOrders(b)
        try upload(a, clientVersion: 1, hlc: 1_000, Self.orderSchema + Self.createOrder)
        let city = Self.at(.property("address"))
        try upload(a, clientVersion: 2, serverVersion: 3, hlc: 3_000, [.set(object: city, property: "city", value: .string("late"))])
        try upload(b, clientVersion: 1, serverVersion: 3, hlc: 2_000, [.set(object: city, property: "city", value: .string("early"))])
        XCTAssertTrue(try bootstrap().contains(.createEmbeddedObject(object: Self.root, property: "address", position: .single,
                                                                     values: [WirePropertyValue("city", .string("late"))])))
        // A new embedded object at the same place starts with no history.
        try upload(b, clientVersion: 2, serverVersion: 3, hlc: 2_500, [
            .createEmbeddedObject(object: Self.root, property: "address", position: .single, values: [WirePropertyValue("city", .string("new"))]),
        ])
        XCTAssertTrue(try bootstrap().contains(.createEmbeddedObject(object: Self.root, property: "address", position: .single,
                                                                     values: [WirePropertyValue("city", .string("new"))])))
    }

    func testBadEmbeddedPathsAreBadChangesets() throws {
        let cases: [(WireInstruction, String)] = [
            (.set(object: Self.at(.property("title")), property: "city", value: .string("x")), "does not link to an embedded class"),
            (.set(object: Self.at(.property("lines")), property: "sku", value: .string("x")), "must be followed by an index"),
            (.set(object: Self.at(.property("nope")), property: "sku", value: .string("x")), "no property 'nope'"),
            (.createObject(className: "Address", primaryKey: .int(1), values: []), "embedded"),
            (.createEmbeddedObject(object: Self.root, property: "lines", position: .single, values: []), "does not fit"),
            (.set(object: Self.root, property: "address", value: .link(WireObjectRef(className: "Order", primaryKey: .int(1)))), "createEmbeddedObject"),
        ]
        for (instruction, expected) in cases {
            let (client, _) = try boundClient()
            try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                instructions: Self.orderSchema + Self.createOrder + [instruction])])))
            let error = try client.waitFor("the changeset error") { if case .error(let e) = $0 { return e } else { return nil } }
            XCTAssertEqual(error.code, .badChangeset, "\(instruction)")
            XCTAssertTrue(error.message.contains(expected), "\(instruction): \(error.message)")
        }
        // Nothing of the refused changesets was kept.
        XCTAssertEqual(try bootstrap(), [])
    }

    func testEditsThroughAListFollowTheirElementDespiteConcurrentInserts() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        _ = try subscribeToOrders(a)
        _ = try subscribeToOrders(b)
        try upload(a, clientVersion: 1, Self.orderSchema + Self.createOrder)              // version 3: lines a, b
        // a inserts a line at the front; b, not knowing it, changes line "b" (its index 1)
        // and erases line "a" (its index 0).
        try upload(a, clientVersion: 2, serverVersion: 3, [
            .createEmbeddedObject(object: Self.root, property: "lines", position: .listIndex(0), values: [WirePropertyValue("sku", .string("new"))]),
        ])
        try upload(b, clientVersion: 1, serverVersion: 3, [
            .set(object: Self.at(.property("lines"), .index(1)), property: "qty", value: .int(7)),
            .eraseObject(Self.at(.property("lines"), .index(0))),
        ])
        let lines = try bootstrap().compactMap { i -> [WirePropertyValue]? in
            if case .createEmbeddedObject(_, "lines", _, let values) = i { return values } else { return nil }
        }
        XCTAssertEqual(lines, [[WirePropertyValue("sku", .string("new")), WirePropertyValue("qty", .int(0))],
                               [WirePropertyValue("sku", .string("b")), WirePropertyValue("qty", .int(7))]])
    }
}
