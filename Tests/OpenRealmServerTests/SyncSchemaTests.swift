import Foundation
import ORCore
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// The schema as the engine reads it (``SyncSchema``): the synced classes only, the
/// server's hidden columns apart from the properties, the query schema without the
/// clocks, and a unit's cached schema built again once the unit changes the schema.
final class SyncSchemaTests: StoreFileTestCase {
    static let task = WireClassSchema(name: "Task", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))
    static let line = WireClassSchema(name: "Line", kind: .embedded, primaryKey: nil)

    func testTheSchemaOfAUnitFollowsItsChanges() throws {
        try store.write { txn in
            try txn.ensureTable("__server_own", key: ORC_TYPE_INT, columns: [])
            try txn.applySchema(.addClass(Self.task), allowingChanges: true)
            let before = try txn.schema()
            XCTAssertEqual(before.classes.map(\.name), ["Task"], "the server's own tables are not synced classes")
            XCTAssertEqual(before.storedClass(named: "Task")?.primaryKey?.name, "_id")

            try txn.applySchema(.addClass(Self.line), allowingChanges: true)
            try txn.applySchema(.addProperty(className: "Task", property: WirePropertySchema(
                name: "lines", type: .link, collection: .list, linkTarget: "Line")), allowingChanges: true)
            let after = try txn.schema()
            XCTAssertEqual(after.classes.map(\.name), ["Task", "Line"], "the unit sees the classes it added")
            let task = try XCTUnwrap(after.topLevelClass(named: "Task"))
            let lines = try XCTUnwrap(task.property(named: "lines"))
            XCTAssertEqual(lines.collection, .list)
            XCTAssertEqual(after.embeddedTarget(of: lines)?.name, "Line")
            XCTAssertNil(after.topLevelClass(named: "Line"), "an embedded class is not top-level")
            XCTAssertNotNil(after.storedClass(named: "Line"))

            // Hidden columns are kept apart from the properties; the query schema has
            // the partition but not the clocks.
            let partition = try txn.addHiddenColumn(.partition, to: task)
            let clocks = try txn.addHiddenColumn(.clocks, to: task)
            XCTAssertEqual(try txn.addHiddenColumn(.clocks, to: task), clocks, "added once")
            let hidden = try XCTUnwrap(try txn.schema().topLevelClass(named: "Task"))
            XCTAssertEqual(hidden.hidden.map(\.name), ["__partition", "__clocks"])
            XCTAssertEqual(hidden.properties.map(\.name), ["_id", "lines"])
            XCTAssertEqual(hidden.hiddenColumn(.partition), partition)
            XCTAssertTrue(partition.isIndexed && partition.isOptional)
            XCTAssertNil(hidden.property(named: "__clocks"), "a hidden column is not a property")
            XCTAssertEqual(hidden.column(named: "__clocks"), clocks)
            let query = try XCTUnwrap(try txn.schema().query.queryClass(named: "Task"))
            XCTAssertNotNil(query.property(named: "__partition"))
            XCTAssertNil(query.property(named: "__clocks"))
        }
        // A new unit reads what the last one committed.
        try store.read { txn in
            XCTAssertEqual(try txn.schema().classes.map(\.name), ["Task", "Line"])
        }
    }
}

/// The schema rules every store applies alike (``SchemaAddition``), checked against a
/// real store's schema: what is new is added, what exists is accepted as declared, and
/// every conflict, reserved name and unknown class is refused by name.
extension SyncSchemaTests {
    static let title = WirePropertySchema(name: "title", type: .string, isOptional: true)

    func testWhatIsNewIsAddedAndWhatExistsIsAccepted() throws {
        try store.write { txn in
            let empty = try txn.schema()
            XCTAssertEqual(try SchemaAddition.plan(.addClass(Self.task), in: empty, allowingChanges: true),
                           .addClass(name: "Task", kind: .topLevel, primaryKey: Self.task.primaryKey))
            try txn.applySchema(.addClass(Self.task), allowingChanges: true)
            try txn.applySchema(.addProperty(className: "Task", property: Self.title), allowingChanges: true)
            let schema = try txn.schema()
            XCTAssertNil(try SchemaAddition.plan(.addClass(Self.task), in: schema, allowingChanges: false), "declared as it is")
            XCTAssertNil(try SchemaAddition.plan(.addProperty(className: "Task", property: Self.title), in: schema, allowingChanges: false))
            let done = WirePropertySchema(name: "done", type: .bool)
            XCTAssertEqual(try SchemaAddition.plan(.addProperty(className: "Task", property: done), in: schema, allowingChanges: true),
                           .addProperty(try XCTUnwrap(schema.storedClass(named: "Task")), done))
            XCTAssertNil(try SchemaAddition.plan(.set(object: WireObjectPath(className: "Task", primaryKey: .int(1)),
                                                      property: "title", value: .null), in: schema, allowingChanges: false),
                         "not a schema instruction")
        }
    }

    func testConflictsReservedNamesAndUnknownClassesAreRefused() throws {
        try store.write { txn in
            try txn.ensureTable("__users", key: ORC_TYPE_STRING, columns: [])
            try txn.applySchema(.addClass(Self.task), allowingChanges: true)
            try txn.applySchema(.addProperty(className: "Task", property: Self.title), allowingChanges: true)
            let schema = try txn.schema()
            let refusals: [(WireInstruction, Bool, String)] = [
                (.addClass(WireClassSchema(name: "__users", primaryKey: nil)), true, "class name '__users' is reserved"),
                (.addProperty(className: "Task", property: WirePropertySchema(name: "__clocks", type: .binary)), true,
                 "property name 'Task.__clocks' is reserved"),
                (.addClass(WireClassSchema(name: "Task", kind: .embedded, primaryKey: nil)), true, "class 'Task' exists with another kind"),
                (.addClass(WireClassSchema(name: "Task", primaryKey: WirePrimaryKeySchema(name: "_id", type: .string))), true,
                 "class 'Task' exists with another primary key"),
                (.addProperty(className: "Task", property: WirePropertySchema(name: "title", type: .string)), true,
                 "property 'Task.title' exists with another type"),
                (.addProperty(className: "Note", property: Self.title), true, "declared for unknown class 'Note'"),
                (.addProperty(className: "Task", property: WirePropertySchema(name: "owner", type: .link, isOptional: true,
                                                                              linkTarget: "Person")), true,
                 "links to unknown class 'Person'"),
                // The server's own tables are not classes a client can link to.
                (.addProperty(className: "Task", property: WirePropertySchema(name: "user", type: .link, isOptional: true,
                                                                              linkTarget: "__users")), true,
                 "links to unknown class '__users'"),
                (.addClass(WireClassSchema(name: "Note", primaryKey: nil)), false, "class 'Note' is not in the app's schema"),
                (.addProperty(className: "Task", property: WirePropertySchema(name: "done", type: .bool)), false,
                 "property 'Task.done' is not in the app's schema"),
            ]
            for (instruction, allowing, message) in refusals {
                XCTAssertThrowsError(try SchemaAddition.plan(instruction, in: schema, allowingChanges: allowing), message) { error in
                    XCTAssertEqual((error as? SyncFailure)?.code, .invalidSchemaChange, message)
                    XCTAssertTrue("\(error)".contains(message), "\(error) should say \(message)")
                }
            }
        }
    }
}
