import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The sync WebSocket against a real server on a loopback port.
final class SyncTests: ServerTestCase {
    func testBindAssignsAnIdentityAndRefusesBadTokensPerSession() throws {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: "bad")))
        let refused = try client.waitFor("the bind's error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(refused.session, 1)
        XCTAssertEqual(refused.code, .badAuthentication)
        XCTAssertTrue(refused.isFatal)

        // The connection goes on: another session binds.
        try client.send(.bind(WireBind(session: 2, appId: "todo", accessToken: try anonymousToken())))
        let ident = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        XCTAssertEqual(ident.session, 2)
        XCTAssertGreaterThan(ident.fileIdentity.ident, 0)
        XCTAssertEqual(ident.lastIntegratedClientVersion, 0)

        // Binding again with that identity finds it; a wrong salt needs a client reset.
        let token = try anonymousToken()
        try client.send(.bind(WireBind(session: 3, appId: "todo", accessToken: token,
                                       fileIdentity: WireFileIdentity(ident: ident.fileIdentity.ident, salt: ident.fileIdentity.salt &+ 1))))
        let reset = try client.waitFor("the reset error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(reset.code, .clientResetRequired)
    }

    func testAnExpiredTokenIsRefusedAsExpired() throws {
        let key = try masterSigningKey()
        var claims = try JSONWebToken(key: key).verify(try anonymousToken(), kind: "access", now: 0)
        claims.exp = 2_000
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: JSONWebToken(key: key).sign(claims))))
        let error = try client.waitFor("the bind's error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .tokenExpired)
    }

    func testBootstrapSendsTheMatchingObjects() throws {
        let (writer, _) = try boundClient()
        try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 1, Self.taskSchema + [
            Self.task(1, title: "a", status: "open"), Self.task(2, title: "b", status: "done"),
            Self.task(3, title: "c", status: "open"),
            .listInsert(object: Self.path(3), property: "tags", index: 0, value: .string("x")),
        ])
        let (reader, _) = try boundClient()
        let bootstrap = try query(reader, version: 1, ["Task": "status == 'open'"]).get()
        let created = bootstrap.compactMap { i -> Int64? in
            if case .createObject("Task", .int(let id), _) = i { return id } else { return nil }
        }
        XCTAssertEqual(created.sorted(), [1, 3])
        XCTAssertTrue(bootstrap.contains(WireInstruction.listInsert(object: Self.path(3), property: "tags", index: 0, value: .string("x"))))
        XCTAssertTrue(bootstrap.contains(Self.task(1, title: "a", status: "open")))

        // A narrower set removes what left the view.
        let narrower = try query(reader, version: 2, ["Task": "title == 'a'"]).get()
        XCTAssertEqual(narrower, [WireInstruction.eraseObject(Self.path(3))])
    }

    func testAnUploadReachesAnotherClientWhoseViewItTouches() throws {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        let (b, bIdent) = try boundClient()
        XCTAssertEqual(try query(b, version: 1, ["Task": "status == 'open'"]).get().count, 1)

        // A change to an object in B's view is forwarded as it is.
        try upload(a, clientVersion: 2, serverVersion: 1, [.set(object: Self.path(1), property: "title", value: .string("A"))])
        let forwarded = try b.waitFor("the forwarded change") { m -> WireDownload? in
            if case .download(let d) = m, !d.changesets.isEmpty { return d } else { return nil }
        }
        XCTAssertEqual(forwarded.changesets.first?.instructions, [.set(object: Self.path(1), property: "title", value: .string("A"))])
        XCTAssertEqual(forwarded.changesets.first?.originFileIdent, bIdent.fileIdentity.ident - 1)

        // An object entering B's view arrives whole; one leaving it is erased.
        try upload(a, clientVersion: 3, serverVersion: 2, [Self.task(2, title: "n", status: "open")])
        let entered = try b.waitFor("the new object") { m -> [WireInstruction]? in
            if case .download(let d) = m, !d.changesets.isEmpty { return d.changesets[0].instructions } else { return nil }
        }
        XCTAssertEqual(entered.first, Self.task(2, title: "n", status: "open"))
        try upload(a, clientVersion: 4, serverVersion: 3, [.set(object: Self.path(1), property: "status", value: .string("done"))])
        let left = try b.waitFor("the removal") { m -> [WireInstruction]? in
            if case .download(let d) = m, !d.changesets.isEmpty { return d.changesets[0].instructions } else { return nil }
        }
        XCTAssertEqual(left, [WireInstruction.eraseObject(Self.path(1))])

        // Marks come back once everything before them was sent.
        try b.send(.mark(WireMark(session: 1, requestId: 9)))
        let echoed: UInt64 = try b.waitFor("the mark") { if case .mark(let m) = $0 { return m.requestId } else { return nil } }
        XCTAssertEqual(echoed, 9)
    }

    func testLastWriterWinsByHybridClockAndEraseBeatsUpdates() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        try subscribeToAllTasks(a)
        try subscribeToAllTasks(b)
        try upload(a, clientVersion: 1, hlc: 1_000, Self.taskSchema + [Self.task(1, title: "first", status: "open"),
                                                                       Self.task(2, title: "x", status: "open")])
        // A later clock wins whatever the arrival order.
        try upload(a, clientVersion: 2, serverVersion: 1, hlc: 3_000, [.set(object: Self.path(1), property: "title", value: .string("late"))])
        try upload(b, clientVersion: 1, serverVersion: 1, hlc: 2_000, [.set(object: Self.path(1), property: "title", value: .string("early"))])
        // Creating an existing key merges; erase beats a concurrent update.
        try upload(b, clientVersion: 2, serverVersion: 1, hlc: 4_000, [Self.task(1, title: "merged", status: "open"),
                                                                       .eraseObject(Self.path(2))])
        try upload(a, clientVersion: 3, serverVersion: 2, hlc: 5_000, [.set(object: Self.path(2), property: "title", value: .string("lost"))])

        let (c, _) = try boundClient()
        let state = try query(c, version: 1, ["Task": "TRUEPREDICATE"]).get()
        XCTAssertEqual(state.first, Self.task(1, title: "merged", status: "open"))
        XCTAssertFalse(state.contains { if case .createObject(_, .int(2), _) = $0 { return true } else { return false } })
    }

    func testSubscriptionRulesAreEnforcedAndTheSessionGoesOn() throws {
        let (client, _) = try boundClient()
        try upload(client, clientVersion: 1, Self.taskSchema + [
            .addClass(WireClassSchema(name: "Person", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
            .addProperty(className: "Task", property: WirePropertySchema(name: "owner", type: .link, isOptional: true, linkTarget: "Person")),
            .addProperty(className: "Person", property: WirePropertySchema(name: "name", type: .string)),
        ])
        let refused: [(String, String)] = [
            ("TRUEPREDICATE SORT(title ASC)", "SORT"),
            ("TRUEPREDICATE LIMIT(5)", "LIMIT"),
            ("tags.@count > 1 AND score.@sum > 5", "aggregates"),
            ("title.@count > 3", "@count"),
            ("owner.name == 'ann'", "link or embedded paths"),
            ("tags IN {'a', 'b'}", "list"),
            ("title ==", "RQL syntax"),
            ("nope == 1", "no property 'nope'"),
            ("title == 5", "types"),
            ("title == $0", "arguments"),
            ("SUBQUERY(tags, $x, $x == 'a').@count > 0", "link"),
            ("owner GEOWITHIN geoCircle([0, 0], 0.1)", "geospatial queries cannot be subscribed to"),
        ]
        var version: UInt64 = 0
        for (rql, rule) in refused {
            version += 1
            guard case .refused(let error) = try query(client, version: version, ["Task": rql]) else {
                XCTFail("'\(rql)' was accepted"); continue
            }
            XCTAssertEqual(error.code, .invalidSubscriptionQuery, rql)
            XCTAssertFalse(error.isFatal, rql)
            XCTAssertEqual(error.queryVersion, version)
            XCTAssertTrue(error.message.contains(rule), "'\(rql)': \(error.message)")
        }
        version += 1
        let huge = "title == '" + String(repeating: "x", count: 256 * 1024) + "'"
        guard case .refused(let tooBig) = try query(client, version: version, ["Task": huge]) else { return XCTFail("huge query accepted") }
        XCTAssertEqual(tooBig.code, .limitsExceeded)
        XCTAssertEqual(tooBig.queryVersion, version)

        // Allowed shapes still work on the same session.
        version += 1
        XCTAssertNoThrow(try query(client, version: version, [
            "Task": "tags.@count > 0 OR 'x' IN tags OR title BEGINSWITH[c] 'a' OR status IN {'open', 'done'} OR owner == nil",
        ]).get())
    }

    func testMalformedFramesCloseOnlyThatConnection() throws {
        let (bad, _) = try boundClient()
        let (good, _) = try boundClient()
        try bad.sendFrame([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C])
        let messages = try bad.waitForClose()
        guard case .error(let error)? = messages.last else { return XCTFail("no error before the close: \(messages)") }
        XCTAssertEqual(error.session, 0)
        XCTAssertEqual(error.code, .badMessage)
        XCTAssertTrue(error.isFatal)
        XCTAssertTrue(bad.isClosed)

        // A message for an unknown session also ends its connection.
        let (lost, _) = try boundClient()
        try lost.send(.mark(WireMark(session: 42, requestId: 1)))
        guard case .error(let unknown)? = try lost.waitForClose().last else { return XCTFail("no error for session 42") }
        XCTAssertEqual(unknown.code, .unknownSession)

        // The other connection and the server go on.
        try good.send(.ping(WirePing(timestamp: 77)))
        let pong: UInt64 = try good.waitFor("pong") { if case .pong(let p) = $0 { return p.timestamp } else { return nil } }
        XCTAssertEqual(pong, 77)
        try upload(good, clientVersion: 1, Self.taskSchema)
    }

    func testABadChangesetEndsOnlyItsSession() throws {
        let (client, _) = try boundClient()
        try client.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
            instructions: [Self.task(1, title: "a", status: "open")])])))
        let error = try client.waitFor("the changeset error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .badChangeset)
        XCTAssertTrue(error.message.contains("unknown class 'Task'"), error.message)
        XCTAssertEqual(error.session, 1)
        // The connection still serves another session.
        try client.send(.bind(WireBind(session: 2, appId: "todo", accessToken: try anonymousToken())))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
    }
}
