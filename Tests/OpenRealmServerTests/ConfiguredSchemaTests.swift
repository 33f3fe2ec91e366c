import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// A production app's schema comes from its configuration (`"schema"`) or from the
/// operator (`schema show` / `schema apply`), never from its clients.
final class ConfiguredSchemaTests: ServerTestCase {
    /// What the server runs with (set before a restart).
    var configuration: ServerAppConfiguration? = ConfiguredSchemaTests.production(schema: ConfiguredSchemaTests.taskSchemaJSON)
    override var appConfiguration: ServerAppConfiguration? { configuration }

    /// ``ServerTestCase/taskSchema`` in the configuration's format.
    static let taskSchemaJSON = """
        {"Task": {"primaryKey": "_id", "properties": {
            "_id": {"type": "int"}, "title": {"type": "string"}, "status": {"type": "string", "indexed": true},
            "score": {"type": "int"}, "tags": {"type": "string", "collection": "list"}}}}
        """

    /// A production app `appId` (anonymous login on, every class open to every user, for
    /// the test's clients) with `schema` (JSON) when given.
    static func production(appId: String = "todo", schema: String?) -> ServerAppConfiguration {
        var config = ServerAppConfiguration(appId: appId)
        config.anonymousAuth = true
        config.permissions["*"] = ClassPermissions(read: "TRUEPREDICATE", write: "TRUEPREDICATE")
        config.schema = schema.map { try! AppSchema.parse(JSONSerialization.jsonObject(with: Data($0.utf8)), source: "test") }
        return config
    }

    func testAProductionAppSyncsClientsOfItsConfiguredSchemaAndRefusesAnythingNew() throws {
        XCTAssertFalse(try XCTUnwrap(configuration).developmentMode)
        let (writer, _) = try boundClient()
        _ = try query(writer, version: 1, ["Task": "TRUEPREDICATE"]).get()
        // The client declares the schema the configuration gave, as clients do on every start.
        try upload(writer, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "from the config", status: "open")])

        let (reader, _) = try boundClient()
        let bootstrap = try query(reader, version: 1, ["Task": "TRUEPREDICATE"]).get()
        XCTAssertTrue(bootstrap.contains { instruction in
            guard case .createObject("Task", .int(1), let values) = instruction else { return false }
            return values.contains(WirePropertyValue("title", .string("from the config")))
        }, "\(bootstrap)")

        // A new property is still refused.
        try reader.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_000),
            instructions: [.addProperty(className: "Task", property: WirePropertySchema(name: "due", type: .timestamp))])])))
        let refusal = try reader.waitFor("the schema change's refusal") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(refusal.code, .invalidSchemaChange)
        XCTAssertTrue(refusal.message.contains("property 'Task.due' is not in the app's schema"), refusal.message)

        // And a new class.
        let (third, _) = try boundClient()
        try third.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_001),
            instructions: [.addClass(WireClassSchema(name: "Poison", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int)))])])))
        let second = try third.waitFor("the new class's refusal") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(second.code, .invalidSchemaChange)
        XCTAssertTrue(second.message.contains("class 'Poison' is not in the app's schema"), second.message)
    }

    func testAConfiguredSchemaIsAddedToOnRestartAndAConflictStopsTheStartNamingIt() throws {
        stopServer()
        // Additive: a new property in the configuration is added at the next start.
        let grown = Self.taskSchemaJSON.replacingOccurrences(of: #""score": {"type": "int"}"#,
                                                             with: #""score": {"type": "int"}, "due": {"type": "timestamp", "optional": true}"#)
        configuration = Self.production(schema: grown)
        try startServer()
        stopServer()
        var admin = try administration("todo")
        let task = try XCTUnwrap(try admin.schema().classes.first { $0.schema.name == "Task" })
        XCTAssertEqual(task.properties.first { $0.name == "due" }, WirePropertySchema(name: "due", type: .timestamp, isOptional: true))
        admin.close()

        // A conflicting definition: the server does not start, and says what conflicts.
        let conflicting = Self.taskSchemaJSON.replacingOccurrences(of: #""title": {"type": "string"}"#, with: #""title": {"type": "int"}"#)
        var logger = Logger(label: "conflict")
        logger.logLevel = .critical
        let server = try makeServer(configuration: ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, app: Self.production(schema: conflicting)), logger: logger)
        let failure = expectation(description: "the start fails")
        Task {
            do {
                try await server.run()
                XCTFail("the server started with a schema that conflicts with its store")
            } catch {
                XCTAssertTrue(error is ServerError, "\(error)")
                XCTAssertTrue("\(error)".contains("the schema conflicts with the store of app 'todo'"), "\(error)")
                XCTAssertTrue("\(error)".contains("property 'Task.title' exists with another type (stored: string, schema: int)"), "\(error)")
            }
            failure.fulfill()
        }
        wait(for: [failure], timeout: 30)
        // Nothing of it was applied.
        admin = try administration("todo")
        defer { admin.close() }
        XCTAssertEqual(try admin.schema().classes.first { $0.schema.name == "Task" }?.properties.first { $0.name == "title" }?.type, .string)
    }

    func testSchemaShowAndApplyRoundTripInTheConfigurationsFormat() throws {
        // Developed in development mode: a ruled class, embedded classes, links, collections.
        configuration = nil
        try restartServer()
        let (client, _) = try boundClient()
        try upload(client, clientVersion: 1, PermissionTests.noteSchema + Self.taskSchema + EmbeddedObjectTests.orderSchema)
        _ = try anonymousToken(appId: "other")   // a second app, with an empty schema
        stopServer()

        let admin = try administration("todo")
        let shown = try admin.schema()
        admin.close()
        XCTAssertEqual(shown.classes.map(\.schema.name), ["Address", "Line", "Note", "Order", "Task"])
        let order = try XCTUnwrap(shown.classes.first { $0.schema.name == "Order" })
        XCTAssertEqual(order.properties.first { $0.name == "lines" },
                       WirePropertySchema(name: "lines", type: .link, collection: .list, linkTarget: "Line"))
        // The printed JSON reads back as the same schema, alone or inside a configuration.
        let text = try shown.jsonText()
        XCTAssertEqual(try AppSchema.parseFile(Data(text.utf8), source: "schema.json"), shown)
        let config = try ServerAppConfiguration.parse(Data(#"{"appId": "todo", "schema": \#(text)}"#.utf8))
        XCTAssertEqual(config.schema, shown)
        XCTAssertTrue(text.contains(#""kind" : "embedded""#), text)

        // Applied to the other app, it gives the same stored schema; again, it adds nothing.
        let other = try administration("other")
        XCTAssertEqual(try other.applySchema(shown).first, "class 'Address'")
        XCTAssertEqual(try other.schema(), shown)
        XCTAssertEqual(try other.applySchema(shown), [])
        other.close()

        // A production app with that schema syncs a client that declares it.
        configuration = Self.production(appId: "other", schema: nil)
        try startServer()
        let (writer, _) = try boundClient(appId: "other")
        _ = try query(writer, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(writer, clientVersion: 1, PermissionTests.noteSchema + [PermissionTests.note(1, owner: "x", text: "hi")])
    }

    func testBadSchemaSectionsAreRefusedNamingTheKey() {
        let cases: [(String, String)] = [
            (#"{"Task": {"properties": {"_id": {"type": "int"}}}}"#, "'schema.Task.primaryKey' is required for a top-level class"),
            (#"{"Task": {"primaryKey": "id", "properties": {"_id": {"type": "int"}}}}"#, "'schema.Task.primaryKey' \"id\" is not one of the class's properties"),
            (#"{"Task": {"primaryKey": "_id", "properties": {"_id": {"type": "double"}}}}"#, "'schema.Task.properties._id': a primary key is one int"),
            (#"{"Task": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}, "x": {"type": "text"}}}}"#, "'schema.Task.properties.x.type' \"text\" is not one of"),
            (#"{"Task": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}, "x": {"type": "link"}}}}"#, "'schema.Task.properties.x.objectType' is required for a link"),
            (#"{"Task": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}, "x": {"type": "link", "objectType": "Nope"}}}}"#, "'schema.Task.properties.x.objectType' \"Nope\" is not a class of the schema"),
            (#"{"Task": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}, "x": {"type": "int", "collection": "bag"}}}}"#, "'schema.Task.properties.x.collection' \"bag\""),
            (#"{"Task": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}, "x": {"type": "int", "nullable": true}}}}"#, "unknown key 'schema.Task.properties.x.nullable'"),
            (#"{"__users": {"primaryKey": "_id", "properties": {"_id": {"type": "int"}}}}"#, "'schema.__users': class names starting with '__' belong to the server"),
            (#"{"A": {"kind": "embedded", "primaryKey": "_id", "properties": {"_id": {"type": "int"}}}}"#, "'schema.A.primaryKey': an embedded class has no primary key"),
        ]
        for (schema, words) in cases {
            XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "todo", "schema": \#(schema)}"#.utf8), source: "app.json"), schema) { error in
                XCTAssertTrue("\(error)".contains("app.json: \(words)"), "'\(words)' not in: \(error)")
            }
        }
    }
}
