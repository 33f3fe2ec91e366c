import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmPostgres
@testable import OpenRealmServer

/// The synced schema on both stores: the same instructions make the same schema (classes,
/// kinds, properties, the server's hidden columns, the query schema), the same
/// refusals, and on PostgreSQL a schema another process reads as it was made.
final class SchemaContractTests: PostgresTestCase {
    static let person = WireClassSchema(name: "Person", primaryKey: WirePrimaryKeySchema(name: "_id", type: .objectId))
    static let address = WireClassSchema(name: "Address", kind: .embedded, primaryKey: nil)
    static let reading = WireClassSchema(name: "Reading", kind: .asymmetric, primaryKey: WirePrimaryKeySchema(name: "_id", type: .uuid))
    static let instructions: [WireInstruction] = [
        .addClass(person), .addClass(address), .addClass(reading),
        .addProperty(className: "Person", property: WirePropertySchema(name: "name", type: .string, isIndexed: true)),
        .addProperty(className: "Person", property: WirePropertySchema(name: "age", type: .int, isOptional: true)),
        .addProperty(className: "Person", property: WirePropertySchema(name: "tags", type: .string, collection: .set)),
        .addProperty(className: "Person", property: WirePropertySchema(name: "scores", type: .double, collection: .dictionary,
                                                                       isOptional: true)),
        .addProperty(className: "Person", property: WirePropertySchema(name: "friends", type: .link, collection: .list,
                                                                       linkTarget: "Person")),
        .addProperty(className: "Person", property: WirePropertySchema(name: "home", type: .link, isOptional: true,
                                                                       linkTarget: "Address")),
        .addProperty(className: "Address", property: WirePropertySchema(name: "city", type: .string)),
        .addProperty(className: "Reading", property: WirePropertySchema(name: "value", type: .decimal128)),
        // Declared again as it is: accepted, nothing added.
        .addClass(person),
        .addProperty(className: "Person", property: WirePropertySchema(name: "name", type: .string, isIndexed: true)),
    ]

    /// Writes the schema on one store and describes what it reads back.
    private func describe(_ unit: some SchemaWriting) throws -> [String] {
        for instruction in Self.instructions { try unit.applySchema(instruction, allowingChanges: true) }
        let person = try XCTUnwrap(try unit.schema().storedClass(named: "Person"))
        let partition = try unit.addHiddenColumn(.partition, to: person)
        XCTAssertEqual(try unit.addHiddenColumn(.partition, to: person), partition, "added once")
        _ = try unit.addHiddenColumn(.clocks, to: try XCTUnwrap(try unit.schema().storedClass(named: "Person")))
        var refusals: [String] = []
        for (instruction, allowing) in [
            (WireInstruction.addClass(WireClassSchema(name: "Person", kind: .embedded, primaryKey: nil)), true),
            (.addProperty(className: "Person", property: WirePropertySchema(name: "age", type: .string)), true),
            (.addProperty(className: "Person", property: WirePropertySchema(name: "new", type: .string)), false),
        ] {
            do { try unit.applySchema(instruction, allowingChanges: allowing) } catch { refusals.append("\(error)") }
        }
        let schema = try unit.schema()
        return schema.classes.map { cls in
            "\(cls.name) \(cls.kind) pk=\(cls.primaryKey?.name ?? "-") "
                + cls.properties.map { "\($0.name):\($0.type)/\($0.collection)\($0.isOptional ? "?" : "")\($0.isIndexed ? "i" : "")"
                    + "\($0.linkTarget.map { "->" + $0 } ?? "")" }.joined(separator: ",")
                + " hidden=" + cls.hidden.map(\.name).joined(separator: ",")
                + " query=" + (schema.query.queryClass(named: cls.name)?.properties.map(\.name).joined(separator: ",") ?? "none")
        } + refusals
    }

    func testTheSameInstructionsMakeTheSameSchemaOnBothStores() throws {
        let store = try AppStore(appId: "app", directory: directory.appendingPathComponent("embedded"))
        let embedded = try store.environment.write { txn in try describe(txn) }
        let app = PostgresApp(database: try pool(try makeDatabase()), appId: "app")
        let postgres = try app.withWriteLock("schema") { unit, _ in try describe(PostgresSchemaUnit(unit, appId: app.appId)) }
        XCTAssertEqual(postgres, embedded)
        XCTAssertEqual(embedded.count, 3 + 3)
        XCTAssertTrue(embedded[0].contains("Person topLevel pk=_id"), embedded[0])
        XCTAssertTrue(embedded[0].contains("hidden=__partition,__clocks"), embedded[0])
        XCTAssertTrue(embedded[0].contains("query=_id,name,age,tags,scores,friends,home,__partition"), embedded[0])
    }

    /// Another process (another pool) reads the schema as it was made; apps are apart.
    func testAnotherProcessReadsTheSchema() throws {
        let location = try makeDatabase()
        let writer = PostgresApp(database: try pool(location), appId: "app")
        let made = try writer.withWriteLock("schema") { unit, _ in try describe(PostgresSchemaUnit(unit, appId: "app")) }
        let reader = PostgresApp(database: try pool(location), appId: "app")
        let read = try reader.withWriteLock("read") { unit, _ in
            let schema = try PostgresSchemaUnit(unit, appId: "app").schema()
            return schema.classes.map(\.name)
        }
        XCTAssertEqual(read, ["Person", "Address", "Reading"])
        XCTAssertEqual(made.count, 6)
        let other = try PostgresApp(database: try pool(location), appId: "other").withWriteLock("read") { unit, _ in
            try PostgresSchemaUnit(unit, appId: "other").schema().classes.count
        }
        XCTAssertEqual(other, 0)
    }
}
