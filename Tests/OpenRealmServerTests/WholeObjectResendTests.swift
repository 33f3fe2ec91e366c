import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Objects the server sends back whole to a client (every collection cleared first)
/// overwrite its pending list edits there (`docs/CONFLICTS.md`, "Lists"), so the server
/// sends them back whole again once it integrated those edits.
final class WholeObjectResendTests: ServerTestCase {
    /// The changesets of the downloads `client` gets up to the acknowledgement of
    /// `clientVersion`.
    func uploadCollectingDownloads(_ client: TestSyncClient, clientVersion: UInt64, base: UInt64, hlc: UInt64,
                                   _ instructions: [WireInstruction]) throws -> [WireDownloadChangeset] {
        try uploadCollectingDownloads(client, [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: base,
            timestamp: WireHybridTimestamp(milliseconds: hlc), instructions: instructions)])
    }

    /// The changesets of the downloads `client` gets up to the acknowledgement of the
    /// last of `changesets`, sent in one upload.
    func uploadCollectingDownloads(_ client: TestSyncClient, _ changesets: [WireUploadChangeset]) throws -> [WireDownloadChangeset] {
        try client.send(.upload(WireUpload(session: 1, changesets: changesets)))
        let clientVersion = changesets.last?.clientVersion ?? 0
        var downloaded: [WireDownloadChangeset] = []
        _ = try client.waitFor("the acknowledgement of client version \(clientVersion)") { message -> Bool? in
            if case .error(let e) = message { XCTFail("upload refused: \(e.message)"); return false }
            guard case .download(let d) = message else { return nil }
            downloaded += d.changesets
            return d.changesets.isEmpty && d.progress.lastIntegratedClientVersion >= clientVersion ? true : nil
        }
        return downloaded
    }

    /// b, back as of version 3 after task 1 changed; its re-bound session with task 1
    /// sent whole, as `testAListEditOverwrittenByAnObjectSentBackWholeIsSentBackAgain` sets up.
    private func reboundClientAfterTask1Changed() throws -> TestSyncClient {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)                                                                   // 1
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open"),
                                                           Self.task(2, title: "t2", status: "open")]) // 2
        let bToken = try anonymousToken()
        let (b, bIdent) = try boundClient(token: bToken)
        try subscribeToAllTasks(b)                                                                   // 3
        try b.send(.unbind(WireUnbind(session: 1)))
        try upload(a, clientVersion: 2, serverVersion: 3, [.set(object: Self.path(1), property: "title", value: .string("u")),
                                                           .set(object: Self.path(2), property: "title", value: .string("u2"))]) // 4
        let b2 = try rebind(bToken, bIdent, at: 3)
        try subscribeToAllTasks(b2)                                                                  // 5
        return b2
    }

    private static func tags(of task: Int64, in changeset: WireDownloadChangeset) -> [String] {
        changeset.instructions.compactMap { instruction -> String? in
            guard case .listInsert(let object, "tags", _, .string(let tag)) = instruction, object == path(task) else { return nil }
            return tag
        }
    }

    /// A backlog made before the re-bind, in one upload: each object it touches goes
    /// back whole once, with the last changeset that touches it, carrying all of them.
    func testABacklogInOneUploadGetsEachObjectBackWholeOnce() throws {
        let b2 = try reboundClientAfterTask1Changed()
        func insert(_ task: Int64, _ tag: String) -> WireInstruction {
            .listInsert(object: Self.path(task), property: "tags", index: 0, value: .string(tag))
        }
        let backlog = [[insert(1, "e")], [insert(2, "x")], [insert(1, "f")], [insert(1, "g"), insert(2, "y")], [insert(2, "z")]]
        let back = try uploadCollectingDownloads(b2, backlog.enumerated().map { i, instructions in
            WireUploadChangeset(clientVersion: UInt64(i + 1), lastIntegratedServerVersion: 3,
                                timestamp: WireHybridTimestamp(milliseconds: 10 + UInt64(i)), instructions: instructions)
        })                                                                                           // 6...10
        func copies(of task: Int64) -> [WireDownloadChangeset] {
            back.filter { $0.instructions.contains(.clearCollection(object: Self.path(task), property: "tags")) }
        }
        XCTAssertEqual(copies(of: 1).map(\.serverVersion), [9], "task 1 goes back whole once, with client version 4: \(back)")
        XCTAssertEqual(copies(of: 1).first.map { Self.tags(of: 1, in: $0).sorted() }, ["e", "f", "g"])
        XCTAssertEqual(copies(of: 2).map(\.serverVersion), [10], "task 2 goes back whole once, with client version 5: \(back)")
        XCTAssertEqual(copies(of: 2).first.map { Self.tags(of: 2, in: $0).sorted() }, ["x", "y", "z"])

        // The next upload, made before those copies arrived, gets task 1 back once more.
        let next = try uploadCollectingDownloads(b2, [
            WireUploadChangeset(clientVersion: 6, lastIntegratedServerVersion: 5, timestamp: WireHybridTimestamp(milliseconds: 20),
                                instructions: [insert(1, "h")]),
            WireUploadChangeset(clientVersion: 7, lastIntegratedServerVersion: 5, timestamp: WireHybridTimestamp(milliseconds: 21),
                                instructions: [insert(1, "i")]),
        ])                                                                                           // 11, 12
        let again = next.filter { $0.instructions.contains(.clearCollection(object: Self.path(1), property: "tags")) }
        XCTAssertEqual(again.map(\.serverVersion), [12], "\(next)")
        XCTAssertEqual(again.first.map { Self.tags(of: 1, in: $0).sorted() }, ["e", "f", "g", "h", "i"])
        XCTAssertFalse(next.contains { $0.instructions.contains(.clearCollection(object: Self.path(2), property: "tags")) },
                       "the next upload did not touch task 2")
    }

    /// b's list edit E, made before its re-bind, comes back whole (with E) after the
    /// re-bind's copy overwrote it; b's next edit C, made after the re-bind but before
    /// that copy arrived, was overwritten by it in turn: C must come back whole too, or
    /// b would never hold C's element although the server does.
    func testAListEditOverwrittenByAnObjectSentBackWholeIsSentBackAgain() throws {
        let (bToken, bIdent) = try task1ChangedWhileBWasAway(title: "u")                            // 1...4

        // b comes back as of version 3: task 1, changed since, is sent whole.
        let b2 = try rebind(bToken, bIdent, at: 3)
        try subscribeToAllTasks(b2)                                                                  // 5
        let insertE = WireInstruction.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("e"))
        let backE = try uploadCollectingDownloads(b2, clientVersion: 1, base: 3, hlc: 10, [insertE])  // 6
        XCTAssertTrue(backE.contains { $0.instructions.contains(.clearCollection(object: Self.path(1), property: "tags")) },
                      "E, made before the re-bind, comes back whole: \(backE)")

        let insertC = WireInstruction.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("c"))
        let backC = try uploadCollectingDownloads(b2, clientVersion: 2, base: 5, hlc: 11, [insertC])  // 7
        let whole = try XCTUnwrap(backC.first { $0.instructions.contains(.clearCollection(object: Self.path(1), property: "tags")) },
                                  "C was overwritten by E's copy: it comes back whole: \(backC)")
        XCTAssertEqual(whole.serverVersion, 7)
        let tags = whole.instructions.compactMap { instruction -> String? in
            guard case .listInsert(_, "tags", _, .string(let tag)) = instruction else { return nil }
            return tag
        }
        XCTAssertEqual(tags.sorted(), ["c", "e"])

        // A change made after E's copy arrived (based on 6) was not overwritten: only the
        // acknowledgement comes.
        let insertD = WireInstruction.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("d"))
        let backD = try uploadCollectingDownloads(b2, clientVersion: 3, base: 7, hlc: 12, [insertD])  // 8
        XCTAssertEqual(backD, [], "nothing was sent whole after version 7")
    }

    /// a creates task 1 (2) after subscribing (1); b subscribes (3) and unbinds; a sets
    /// task 1's title (4). Returns b's token and file.
    private func task1ChangedWhileBWasAway(title: String) throws -> (token: String, ident: WireIdent) {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let bToken = try anonymousToken()
        let (b, bIdent) = try boundClient(token: bToken)
        try subscribeToAllTasks(b)
        try b.send(.unbind(WireUnbind(session: 1)))
        try upload(a, clientVersion: 2, serverVersion: 3, [.set(object: Self.path(1), property: "title", value: .string(title))])
        return (bToken, bIdent)
    }

    /// b binds again with its file, as of server version `version`.
    private func rebind(_ token: String, _ ident: WireIdent, at version: UInt64) throws -> TestSyncClient {
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token, fileIdentity: ident.fileIdentity,
                                       lastIntegratedServerVersion: version)))
        _ = try client.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        return client
    }

    /// A property edit made before a re-bind and overwritten there by the re-bind's copy
    /// of the object comes back whole even when the server integrates it in a later
    /// session (the connection dropped, or the server restarted, in between): what a
    /// bootstrap sent whole is kept with the file, not with the session. Found by the
    /// 1,000-cycle server crash run (docs/RELIABILITY.md, "Found so far").
    func testAnEditOverwrittenByABootstrapComesBackWholeInALaterSession() throws {
        let (bToken, bIdent) = try task1ChangedWhileBWasAway(title: "by a")                         // 1...4

        // b edits task 1 as of version 3 (E, not uploaded yet), then binds again as of 3:
        // task 1, changed since, is sent whole, over E on b.
        let b2 = try rebind(bToken, bIdent, at: 3)
        let resent = try subscribeToAllTasks(b2)                                                     // 5
        XCTAssertTrue(resent.contains { $0.topLevelObject == Self.path(1).root }, "\(resent)")
        try b2.send(.unbind(WireUnbind(session: 1)))
        // The connection ends before E is uploaded; b binds once more as of 5, after which
        // no one changed task 1: it is not sent again.
        let b3 = try rebind(bToken, bIdent, at: 5)
        let bootstrap = try subscribeToAllTasks(b3)                                                  // 6
        XCTAssertFalse(bootstrap.contains { $0.topLevelObject == Self.path(1).root }, "\(bootstrap)")

        let edit = WireInstruction.set(object: Self.path(1), property: "title", value: .string("by b"))
        let back = try uploadCollectingDownloads(b3, clientVersion: 1, base: 3, hlc: 1_800_000_000_000, [edit]) // 7
        let whole = try XCTUnwrap(back.first { $0.instructions.contains { instruction in
            if case .createObject("Task", .int(1), _) = instruction { return true } else { return false }
        } }, "E was overwritten by the copy of version 5: task 1 comes back whole: \(back)")
        XCTAssertEqual(whole.serverVersion, 7)
        XCTAssertTrue("\(whole.instructions)".contains("by b"), "as the server holds it, with E: \(whole.instructions)")

        // A change made after that copy (based on 7) was overwritten by nothing.
        let later = WireInstruction.set(object: Self.path(1), property: "title", value: .string("later"))
        XCTAssertEqual(try uploadCollectingDownloads(b3, clientVersion: 2, base: 7, hlc: 1_800_000_000_001, [later]), [])
    }

    /// A property edit made before an object came back whole to its client (a copy for a
    /// changeset made before a bootstrap) lost to that copy there, in a class without
    /// collections as in one with them: the server sends the object back whole again
    /// once it integrated the edit. Found by the 1,000-cycle server crash run.
    func testAPropertyEditOverwrittenByACopyOfAnObjectWithoutCollectionsComesBackWhole() throws {
        let noteSchema: [WireInstruction] = [
            .addClass(WireClassSchema(name: "Note", primaryKey: WirePrimaryKeySchema(name: "_id", type: .string))),
            .addProperty(className: "Note", property: WirePropertySchema(name: "text", type: .string)),
        ]
        func note(_ id: String) -> WireObjectPath { WireObjectPath(className: "Note", primaryKey: .string(id)) }
        func isWhole(_ id: String, _ changeset: WireDownloadChangeset) -> Bool {
            changeset.instructions.contains { instruction in
                if case .createObject("Note", .string(id), _) = instruction { return true } else { return false }
            }
        }
        let (a, _) = try boundClient()
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()                               // 1
        try upload(a, clientVersion: 1, noteSchema + [.createObject(className: "Note", primaryKey: .string("a"), values: [])]) // 2
        let (b, _) = try boundClient()
        _ = try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()                               // 3: b's whole view
        // b created note x before that bootstrap (it had downloaded nothing): the bootstrap
        // lacked x, so x goes back whole when the server integrates its creation.
        let created = try uploadCollectingDownloads(b, clientVersion: 1, base: 0, hlc: 1_800_000_000_000, noteSchema + [
            .createObject(className: "Note", primaryKey: .string("x"), values: [WirePropertyValue("text", .string("new"))]),
        ])                                                                                           // 4
        XCTAssertTrue(created.contains { isWhole("x", $0) }, "\(created)")
        // b edited x as of version 3, before that copy arrived: the copy overwrote the edit.
        let edit = WireInstruction.set(object: note("x"), property: "text", value: .string("edited"))
        let back = try uploadCollectingDownloads(b, clientVersion: 2, base: 3, hlc: 1_800_000_000_001, [edit]) // 5
        let whole = try XCTUnwrap(back.first { isWhole("x", $0) }, "x comes back whole with the edit: \(back)")
        XCTAssertTrue("\(whole.instructions)".contains("edited"), "\(whole.instructions)")
        // An edit made after the copies arrived (based on 5) lost to nothing.
        let later = WireInstruction.set(object: note("x"), property: "text", value: .string("later"))
        XCTAssertEqual(try uploadCollectingDownloads(b, clientVersion: 3, base: 5, hlc: 1_800_000_000_002, [later]), [])
    }
}
