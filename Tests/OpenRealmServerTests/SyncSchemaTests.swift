import Foundation
import ORCore
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// The schema as the engine reads it (``SyncSchema``): the synced classes only, the
/// server's hidden columns apart from the properties, the query schema without the
/// clocks, and a unit's cached schema built again once the unit changes the schema.
final class SyncSchemaTests: XCTestCase {
    var directory: URL!
    var store: ORCoreEnvironment!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-syncschema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try ORCoreEnvironment.openStore(path: directory.appendingPathComponent("store.realm").path)
    }

    override func tearDownWithError() throws {
        store = nil
        try? FileManager.default.removeItem(at: directory)
    }

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
