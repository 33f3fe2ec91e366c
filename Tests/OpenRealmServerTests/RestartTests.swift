import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Restarts of the server, and re-binds that resume from the client's last integrated
/// server version instead of a full bootstrap.
final class RestartTests: ServerTestCase {
    func bind(_ client: TestSyncClient, session: UInt64 = 1, token: String, identity: WireFileIdentity?,
              serverVersion: UInt64 = 0) throws -> WireIdent {
        try client.send(.bind(WireBind(session: session, appId: "todo", accessToken: token, fileIdentity: identity,
                                       lastIntegratedServerVersion: serverVersion)))
        return try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
    }

    func testARestartMidSessionLosesNothingAcknowledged() throws {
        let token = try anonymousToken()
        let a = try TestSyncClient(port: port, appId: "todo")
        let ident = try bind(a, token: token, identity: nil)
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "open")])
        try upload(a, clientVersion: 2, [Self.task(2, title: "b", status: "open"),
                                         .listInsert(object: Self.path(2), property: "tags", index: 0, value: .string("t"))])
        try upload(a, clientVersion: 3, [.set(object: Self.path(1), property: "title", value: .string("a2")),
                                         .addInteger(object: Self.path(1), property: "score", delta: 5)])
        // Server versions: 1 the view, 2–4 the uploads; the acknowledgements brought the client there.
        let before: UInt64 = 4

        try restartServer()
        XCTAssertTrue(try a.waitForClose().allSatisfy { if case .download = $0 { return false } else { return true } })

        // The client reconnects with its identity: the server knows everything it acknowledged.
        let again = try TestSyncClient(port: port, appId: "todo")
        let resumed = try bind(again, token: token, identity: ident.fileIdentity, serverVersion: before)
        XCTAssertEqual(resumed.fileIdentity, ident.fileIdentity)
        XCTAssertEqual(resumed.lastIntegratedClientVersion, 3)
        XCTAssertEqual(resumed.serverVersion, before)
        // Re-uploading acknowledged changesets changes nothing; the next one applies.
        try again.send(.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 3, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                instructions: [.addInteger(object: Self.path(1), property: "score", delta: 5)]),
        ])))
        _ = try again.waitFor("ack") { m -> Bool? in
            if case .download(let d) = m, d.progress.lastIntegratedClientVersion == 3 { return true } else { return nil }
        }

        let (fresh, _) = try boundClient()
        let state = try subscribeToAllTasks(fresh)
        XCTAssertTrue(state.contains(.createObject(className: "Task", primaryKey: .int(1), values: [
            WirePropertyValue("title", .string("a2")), WirePropertyValue("status", .string("open")), WirePropertyValue("score", .int(5)),
        ])), "\(state)")
        XCTAssertTrue(state.contains(Self.task(2, title: "b", status: "open")))
        XCTAssertTrue(state.contains(.listInsert(object: Self.path(2), property: "tags", index: 0, value: .string("t"))))
    }

    func testARebindSendsOnlyWhatChangedSinceTheClientsServerVersion() throws {
        let writerToken = try anonymousToken()
        let (writer, _) = try boundClient(token: writerToken)
        try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 1, Self.taskSchema + (1...5).map { Self.task($0, title: "t\($0)", status: "open") })

        // The reader completes its view, then goes away.
        let readerToken = try anonymousToken()
        var reader: TestSyncClient? = try TestSyncClient(port: port, appId: "todo")
        let ident = try bind(reader!, token: readerToken, identity: nil)
        try reader!.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: "status == 'open'")])))
        var bootstrapped = 0
        let seen = try reader!.waitFor("the bootstrap") { m -> UInt64? in
            guard case .download(let d) = m, d.queryVersion == 1 else { return nil }
            bootstrapped += d.changesets.flatMap(\.instructions).count
            return d.bootstrap == .lastBatch ? d.progress.serverVersion : nil
        }
        XCTAssertEqual(bootstrapped, 5)
        XCTAssertGreaterThan(seen, 1)
        reader = nil

        // Meanwhile: task 1 changes, task 2 leaves the view, task 6 enters it, task 3 is erased.
        try upload(writer, clientVersion: 2, [.set(object: Self.path(1), property: "title", value: .string("changed"))])
        try upload(writer, clientVersion: 3, [.set(object: Self.path(2), property: "status", value: .string("done"))])
        try upload(writer, clientVersion: 4, [Self.task(6, title: "t6", status: "open")])
        try upload(writer, clientVersion: 5, [.eraseObject(Self.path(3))])

        // Same subscription set, resumed from `seen`: only the touched objects travel.
        let back = try TestSyncClient(port: port, appId: "todo")
        _ = try bind(back, token: readerToken, identity: ident.fileIdentity, serverVersion: seen)
        let catchUp = try query(back, version: 1, ["Task": "status == 'open'"]).get()
        let created = catchUp.compactMap { i -> Int64? in if case .createObject(_, .int(let id), _) = i { return id } else { return nil } }
        XCTAssertEqual(created.sorted(), [1, 6])
        XCTAssertTrue(catchUp.contains(Self.task(1, title: "changed", status: "open")))
        XCTAssertTrue(catchUp.contains(.eraseObject(Self.path(2))))
        XCTAssertTrue(catchUp.contains(.eraseObject(Self.path(3))))
        XCTAssertFalse(catchUp.contains { $0.topLevelObject == Self.path(4).root })

        // From now on the session knows what the client holds: a narrower set erases exactly what left.
        XCTAssertEqual(try query(back, version: 2, ["Task": "title == 't4'"]).get(),
                       [1, 5, 6].map { WireInstruction.eraseObject(Self.path($0)) })

        // A client that has not integrated its last bootstrap gets the whole view again.
        let late = try TestSyncClient(port: port, appId: "todo")
        _ = try bind(late, token: readerToken, identity: ident.fileIdentity, serverVersion: seen - 1)
        let full = try query(late, version: 2, ["Task": "title == 't4'"]).get()
        XCTAssertEqual(full.first, Self.task(4, title: "t4", status: "open"))
    }

    /// Objects only the client's own changesets touched since its server version are
    /// held on the client as on the server: a re-bind does not send them again (a list
    /// the client appends to would otherwise travel whole at every re-bind); those no
    /// longer in its view are erased; an object others touched too still goes whole.
    func testARebindDoesNotResendWhatOnlyTheClientsOwnChangesetsTouched() throws {
        let token = try anonymousToken()
        var client: TestSyncClient? = try TestSyncClient(port: port, appId: "todo")
        let ident = try bind(client!, token: token, identity: nil)
        let seen = try XCTUnwrap(query(client!, version: 1, ["Task": "status == 'open'"]).get()).isEmpty ? UInt64(1) : 0
        XCTAssertEqual(seen, 1)
        try upload(client!, clientVersion: 1, serverVersion: 1, Self.taskSchema + (1...4).map { Self.task($0, title: "t\($0)", status: "open") }) // 2
        // The client's own changesets after version 2: a list append on task 1, task 2
        // erased, task 3 also changed by another client.
        try upload(client!, clientVersion: 2, serverVersion: 2, [.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("mine"))]) // 3
        try upload(client!, clientVersion: 3, serverVersion: 2, [.eraseObject(Self.path(2)),
                                                                 .set(object: Self.path(3), property: "title", value: .string("mine"))]) // 4
        client = nil
        let (other, _) = try boundClient()
        try subscribeToAllTasks(other)                                                                // 5
        try upload(other, clientVersion: 1, serverVersion: 5, [.set(object: Self.path(3), property: "score", value: .int(7))]) // 6

        let back = try TestSyncClient(port: port, appId: "todo")
        _ = try bind(back, token: token, identity: ident.fileIdentity, serverVersion: 2)
        let catchUp = try query(back, version: 1, ["Task": "status == 'open'"]).get()
        let resent = Set(catchUp.compactMap(\.topLevelObject))
        XCTAssertEqual(resent, [Self.path(2).root, Self.path(3).root], "\(catchUp)")
        XCTAssertTrue(catchUp.contains(.eraseObject(Self.path(2))), "task 2 is gone: \(catchUp)")
        XCTAssertTrue(catchUp.contains(.clearCollection(object: Self.path(3), property: "tags")), "task 3 goes whole: \(catchUp)")
        XCTAssertTrue(catchUp.contains(.set(object: Self.path(3), property: "score", value: .int(7))) ||
                      catchUp.contains { if case .createObject(_, .int(3), _) = $0 { return true } else { return false } },
                      "task 3 as the server has it: \(catchUp)")

        // A changeset the client made before the re-bind, uploaded after it, on task 1
        // (not resent): nothing comes back whole for it.
        var downloads: [WireDownloadChangeset] = []
        try back.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 4, lastIntegratedServerVersion: 4, timestamp: WireHybridTimestamp(milliseconds: 100),
            instructions: [.listInsert(object: Self.path(1), property: "tags", index: 1, value: .string("later"))])])))
        _ = try back.waitFor("the acknowledgement") { message -> Bool? in
            guard case .download(let d) = message else { return nil }
            downloads += d.changesets
            return d.changesets.isEmpty && d.progress.lastIntegratedClientVersion >= 4 ? true : nil
        }
        XCTAssertEqual(downloads, [], "task 1 was not sent whole at the re-bind")
    }
}
