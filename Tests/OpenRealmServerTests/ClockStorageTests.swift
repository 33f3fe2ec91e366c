import Foundation
import ORCore
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// Where the server keeps the stamps of last-writer-wins: in each object's own row (the
/// hidden column `__clocks`), read back after a restart; and, in a store written before
/// that, in the table `__clocks`, whose rows are still obeyed and move into the objects'
/// rows when the objects are next written.
final class ClockStorageTests: ServerTestCase {
    override func setUpWithError() throws {
        try skipOnPostgres("the clocks' columns in the ORCore store file (PostgreSQL keeps them in the object's row: ObjectContractTests)")
        try super.setUpWithError()
    }

    /// Runs `body` on the app's store with the server stopped, then starts it again.
    func withStoppedServer(_ body: (StoreTransaction) throws -> Void) throws {
        stopServer()
        do {
            let store = try ORCoreEnvironment.openStore(path: storePath)
            try store.write(body)
        }
        try startServer()
    }

    func stamp(_ milliseconds: UInt64, _ origin: UInt64) -> WriteStamp {
        WriteStamp(timestamp: WireHybridTimestamp(milliseconds: milliseconds), originFileIdent: origin)
    }

    /// The clocks in the row of `Task[id]`, or nil when its clock column is null.
    func rowClocks(_ txn: StoreTransaction, _ id: Int64) throws -> PropertyClocks? {
        let task = try XCTUnwrap(try txn.findClass("Task"))
        let column = try XCTUnwrap(try txn.findProperty(task.table, HiddenColumn.clocks.rawValue), "Task has no clock column").column
        let key = try XCTUnwrap(try txn.findObject(task.table, .int(id)))
        guard case .binary(let bytes) = try txn.get(task.table, key, column) else { return nil }
        return PropertyClocks(decoding: bytes)
    }

    func state(_ id: Int64) throws -> [WireInstruction] {
        let (reader, _) = try boundClient()
        return try query(reader, version: 1, ["Task": "_id == \(id)"]).get()
    }

    func testClocksAreKeptInTheObjectsRowsAndObeyedAfterARestart() throws {
        let (a, aIdent) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, hlc: 2_000, Self.taskSchema + [Self.task(1, title: "first", status: "open")])
        try upload(a, clientVersion: 2, serverVersion: 2, hlc: 2_100, [.set(object: Self.path(1), property: "status", value: .string("doing"))])

        let origin = aIdent.fileIdentity.ident
        try withStoppedServer { txn in
            XCTAssertNil(try txn.findClass("__clocks"), "a new store has no clock table")
            let clocks = try XCTUnwrap(try rowClocks(txn, 1))
            XCTAssertEqual(clocks.stamps, ["title": stamp(2_000, origin), "status": stamp(2_100, origin), "score": stamp(2_000, origin)])
            // The hidden column is not part of what the server queries.
            let schema = try txn.schema().query
            XCTAssertNil(schema.queryClass(named: "Task")?.property(named: HiddenColumn.clocks.rawValue))
            XCTAssertNotNil(schema.queryClass(named: "Task")?.property(named: "title"))
        }

        // After the restart an older write still loses, and a later one wins.
        let (b, _) = try boundClient()
        try subscribeToAllTasks(b)
        try upload(b, clientVersion: 1, serverVersion: 3, hlc: 1_500, [.set(object: Self.path(1), property: "title", value: .string("early")),
                                                                      .set(object: Self.path(1), property: "status", value: .string("stale"))])
        try upload(b, clientVersion: 2, serverVersion: 3, hlc: 2_050, [.set(object: Self.path(1), property: "title", value: .string("later")),
                                                                      .set(object: Self.path(1), property: "status", value: .string("stale"))])
        let after = try state(1)
        XCTAssertEqual(after.first, .createObject(className: "Task", primaryKey: .int(1), values: [
            WirePropertyValue("title", .string("later")), WirePropertyValue("status", .string("doing")),
            WirePropertyValue("score", .int(0)),
        ]), "\(after)")
        XCTAssertFalse(after.contains { "\($0)".contains(HiddenColumn.clocks.rawValue) }, "the clocks never reach a client: \(after)")

        // An erased object's clocks go with its row; created again, it starts afresh.
        try upload(b, clientVersion: 3, serverVersion: 5, hlc: 2_200, [.eraseObject(Self.path(1))])
        try upload(b, clientVersion: 4, serverVersion: 6, hlc: 1_000, [Self.task(1, title: "again", status: "new")])
        XCTAssertEqual(try state(1).first, Self.task(1, title: "again", status: "new"))
    }

    func testClocksOfAnOlderStoresTableAreObeyedAndMovedIntoTheRows() throws {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, hlc: 1_000, Self.taskSchema + [Self.task(1, title: "t", status: "s"),
                                                                       Self.task(2, title: "u", status: "s")])

        // The store as an earlier server left it: the clocks in `__clocks`, none in the rows.
        var legacy = PropertyClocks()
        legacy["title"] = stamp(5_000, 7)
        try withStoppedServer { txn in
            try txn.ensureTable("__clocks", key: ORC_TYPE_STRING, columns: [
                ("clocks", ORC_TYPE_BINARY, false), ("erasedAtVersion", ORC_TYPE_INT, false),
            ])
            let task = try XCTUnwrap(try txn.findClass("Task"))
            let column = try XCTUnwrap(try txn.findProperty(task.table, HiddenColumn.clocks.rawValue)).column
            var null = orc_value()
            null.type = ORC_TYPE_NULL
            for id: Int64 in [1, 2] {
                try txn.set(task.table, try XCTUnwrap(try txn.findObject(task.table, .int(id))), column, null)
                try txn.insertRow("__clocks", ["_id": .string(PropertyClocks.key(WireObjectRef(className: "Task", primaryKey: .int(id)))),
                                               "clocks": .binary(legacy.encoded()), "erasedAtVersion": .int(0)])
            }
            XCTAssertNil(try rowClocks(txn, 1))
        }

        let (b, bIdent) = try boundClient()
        try subscribeToAllTasks(b)
        // The table's stamp of `title` (5,000) beats this write; `status` has none there.
        try upload(b, clientVersion: 1, serverVersion: 2, hlc: 3_000, [.set(object: Self.path(1), property: "title", value: .string("early")),
                                                                      .set(object: Self.path(1), property: "status", value: .string("s2"))])
        try upload(b, clientVersion: 2, serverVersion: 3, hlc: 3_100, [.eraseObject(Self.path(2))])
        XCTAssertEqual(try state(1).first, .createObject(className: "Task", primaryKey: .int(1), values: [
            WirePropertyValue("title", .string("t")), WirePropertyValue("status", .string("s2")), WirePropertyValue("score", .int(0)),
        ]))

        let origin = bIdent.fileIdentity.ident
        try withStoppedServer { txn in
            let table = try XCTUnwrap(try txn.findClass("__clocks"))
            XCTAssertEqual(try txn.count(table.table), 0, "the rows read (object 1) and erased (object 2) are gone")
            let clocks = try XCTUnwrap(try rowClocks(txn, 1))
            XCTAssertEqual(clocks.stamps, ["title": stamp(5_000, 7), "status": stamp(3_000, origin)])
        }
        let (c, _) = try boundClient()
        try subscribeToAllTasks(c)
        try upload(c, clientVersion: 1, serverVersion: 4, hlc: 4_000, [.set(object: Self.path(1), property: "title", value: .string("still early"))])
        try upload(c, clientVersion: 2, serverVersion: 5, hlc: 6_000, [.set(object: Self.path(1), property: "title", value: .string("late"))])
        XCTAssertEqual(try state(1).first, .createObject(className: "Task", primaryKey: .int(1), values: [
            WirePropertyValue("title", .string("late")), WirePropertyValue("status", .string("s2")), WirePropertyValue("score", .int(0)),
        ]))
    }
}
