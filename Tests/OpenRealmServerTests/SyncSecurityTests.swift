import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Crafted sync traffic: binds with another user's client file, uploads naming objects
/// outside the user's view, and fan-out of objects the read rules hide.
final class SyncSecurityTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.permissions["Note"] = ClassPermissions(read: "owner == %user.id OR shared == true", write: "owner == %user.id") }
    }

    func noteIds(_ instructions: [WireInstruction]) -> [Int64] {
        instructions.compactMap { i -> Int64? in
            switch i {
            case .createObject("Note", .int(let id), _): return id
            case .set(let path, _, _) where path.root.className == "Note": if case .int(let id) = path.root.primaryKey { return id }; return nil
            default: return nil
            }
        }
    }

    func testABindWithAnotherUsersClientFileIsRefused() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (_, annIdent) = try boundClient(token: ann.token)
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: bob.token, fileIdentity: annIdent.fileIdentity)))
        let error = try client.waitFor("the refusal") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .permissionDenied)
        XCTAssertTrue(error.message.contains("belongs to another user"), error.message)
        // Guessing the salt of a file does not work either: a wrong salt is an unknown file.
        var guessed = annIdent.fileIdentity
        guessed.salt &+= 1
        try client.send(.bind(WireBind(session: 2, appId: "todo", accessToken: ann.token, fileIdentity: guessed)))
        let wrongSalt = try client.waitFor("the refusal") { if case .error(let e) = $0, e.session == 2 { return e } else { return nil } }
        XCTAssertEqual(wrongSalt.code, .clientResetRequired)
    }

    func testObjectsTheReadRulesHideNeverReachAnotherUser() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, PermissionTests.noteSchema)
        let (b, _) = try boundClient(token: bob.token)
        XCTAssertEqual(noteIds(try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()), [])

        // Ann writes a private note, then a shared one; Bob's downloads are in server
        // order, so by the time the shared note arrives the private one would have.
        try upload(a, clientVersion: 2, [PermissionTests.note(1, owner: ann.id, text: "private")])
        try upload(a, clientVersion: 3, [PermissionTests.note(2, owner: ann.id, shared: true, text: "public")])
        try upload(a, clientVersion: 4, [.set(object: PermissionTests.notePath(1), property: "text", value: .string("still private"))])
        var received: [Int64] = []
        _ = try b.waitFor("the shared note") { m -> Bool? in
            if case .download(let d) = m { received += noteIds(d.changesets.flatMap(\.instructions)) }
            return received.contains(2) ? true : nil
        }
        // A marker round trip makes sure the later edit of the private note was processed too.
        try b.send(.mark(WireMark(session: 1, requestId: 9)))
        _ = try b.waitFor("the mark") { m -> Bool? in
            if case .download(let d) = m { received += noteIds(d.changesets.flatMap(\.instructions)) }
            if case .mark = m { return true }
            return nil
        }
        XCTAssertFalse(received.contains(1), "Bob received the private note: \(received)")
    }

    func testCraftedUploadsOutsideTheViewAreRevertedAndChangeNothing() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, PermissionTests.noteSchema + [PermissionTests.note(1, owner: ann.id, text: "private")])

        // Bob never saw note 1, but names it: an erase, a set, and a create of the same
        // primary key (which would merge into Ann's note).
        let (b, _) = try boundClient(token: bob.token)
        _ = try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()
        for (version, instruction) in [(UInt64(1), WireInstruction.eraseObject(PermissionTests.notePath(1))),
                                       (2, .set(object: PermissionTests.notePath(1), property: "text", value: .string("defaced"))),
                                       (3, PermissionTests.note(1, owner: bob.id, text: "taken over"))] {
            try b.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                clientVersion: version, lastIntegratedServerVersion: 0,
                timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_000 + version), instructions: [instruction])])))
            let error = try b.waitFor("the refusal of \(instruction)") { if case .error(let e) = $0 { return e } else { return nil } }
            XCTAssertEqual(error.code, .writeNotAllowed)
            XCTAssertTrue(error.message.hasSuffix("write to Note[1] not allowed: the object is not in the session's view"), error.message)
            // What Bob gets back reveals nothing of the note: only an erase.
            let revert = try b.waitFor("the revert") { m -> [WireInstruction]? in
                if case .download(let d) = m, let c = d.changesets.first { return c.instructions } else { return nil }
            }
            XCTAssertEqual(revert, [.eraseObject(PermissionTests.notePath(1))])
        }
        let (c, _) = try boundClient(token: ann.token)
        let state = try query(c, version: 1, ["Note": "TRUEPREDICATE"]).get()
        XCTAssertEqual(state, [PermissionTests.note(1, owner: ann.id, text: "private")])
    }

    func testTheHiddenPartitionColumnCannotBeDeclaredOrWritten() throws {
        let (a, _) = try boundClient()
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try a.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_000),
            instructions: PermissionTests.noteSchema + [
                .addProperty(className: "Note", property: WirePropertySchema(name: "__partition", type: .string, isOptional: true)),
            ])])))
        let error = try a.waitFor("the refusal") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .invalidSchemaChange)
        XCTAssertTrue(error.message.contains("reserved"), error.message)
    }
}
