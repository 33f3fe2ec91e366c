import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Partition-based sessions: the view is every object whose partition field holds the
/// bind's value; the server stamps the field on created objects.
final class PartitionTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.partitionField = "_partition" }
    }

    static let schema: [WireInstruction] = ServerTestCase.taskSchema + [
        .addProperty(className: "Task", property: WirePropertySchema(name: "_partition", type: .string, isOptional: true)),
    ]

    /// A client bound to `partition`; returns it and the instructions of its bootstrap.
    func partitionClient(_ partition: String) throws -> (TestSyncClient, [WireInstruction]) {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: try anonymousToken(), syncMode: .partition(.string(partition)))))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        let bootstrap = try client.waitFor("the partition's bootstrap") { m -> [WireInstruction]? in
            if case .download(let d) = m, d.bootstrap == .lastBatch {
                XCTAssertEqual(d.queryVersion, 0)
                return d.changesets.flatMap(\.instructions)
            }
            return nil
        }
        return (client, bootstrap)
    }

    func testPartitionSessionsSyncTheirPartitionAndTheServerStampsIt() throws {
        // The app is partition-based: a flexible bind is refused.
        let flexible = try TestSyncClient(port: port, appId: "todo")
        try flexible.send(.bind(WireBind(session: 1, appId: "todo", accessToken: try anonymousToken())))
        let wrong = try flexible.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(wrong.code, .wrongSyncMode)
        XCTAssertTrue(wrong.message.contains("'_partition'"), wrong.message)

        let (a, empty) = try partitionClient("p1")
        XCTAssertEqual(empty, [])
        try a.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 10),
            instructions: Self.schema + [
                Self.task(1, title: "mine", status: "open"),   // stamped with p1
                .createObject(className: "Task", primaryKey: .int(2), values: [WirePropertyValue("_partition", .string("p2"))]),
            ])])))
        let refused = try a.waitFor("the compensating write") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(refused.code, .writeNotAllowed)
        XCTAssertEqual(refused.compensatingWrite?.writes.map(\.object), [Self.path(2).root])
        XCTAssertTrue(refused.message.contains("the object is not in the session's view after the write"), refused.message)
        let reply = try a.waitFor("the server's reply") { m -> [WireInstruction]? in
            if case .download(let d) = m, let c = d.changesets.first { return c.instructions } else { return nil }
        }
        XCTAssertEqual(reply, [.eraseObject(Self.path(2)), .set(object: Self.path(1), property: "_partition", value: .string("p1"))])

        // Another session of p1 has task 1, with its partition value; p2 has nothing.
        let (b, bootstrap) = try partitionClient("p1")
        XCTAssertEqual(bootstrap.first, .createObject(className: "Task", primaryKey: .int(1), values: [
            WirePropertyValue("title", .string("mine")), WirePropertyValue("status", .string("open")),
            WirePropertyValue("score", .int(0)), WirePropertyValue("_partition", .string("p1")),
        ]))
        let (c, other) = try partitionClient("p2")
        XCTAssertEqual(other, [])

        // Changes reach the sessions of the partition only.
        try upload(a, clientVersion: 2, [.set(object: Self.path(1), property: "title", value: .string("renamed"))])
        let forwarded = try b.waitFor("the change") { m -> [WireInstruction]? in
            if case .download(let d) = m, let c = d.changesets.first { return c.instructions } else { return nil }
        }
        XCTAssertEqual(forwarded, [.set(object: Self.path(1), property: "title", value: .string("renamed"))])
        try c.send(.mark(WireMark(session: 1, requestId: 1)))
        _ = try c.waitFor("the mark, with nothing before it") { m -> Bool? in
            if case .download(let d) = m, !d.changesets.isEmpty { XCTFail("p2 received \(d)") }
            if case .mark = m { return true } else { return nil }
        }

        // Partition sessions do not subscribe.
        try b.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
        let order = try b.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(order.code, .badMessageOrder)
        XCTAssertTrue(order.isFatal)
    }
}

/// A flexible app refuses partition binds (a configured one: a development app takes the
/// mode of its first client, `DevelopmentPartitionSyncTests`).
final class FlexibleModeTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? { .development(appId: "todo") }

    func testAPartitionBindToAFlexibleAppIsWrongSyncMode() throws {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: try anonymousToken(), syncMode: .partition(.int(1)))))
        let error = try client.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .wrongSyncMode)
        XCTAssertEqual(error.session, 1)
    }
}
