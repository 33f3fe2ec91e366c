import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Refusals that could be used as oracles answer alike: whether an object is hidden by
/// the read rule, left out by the subscriptions, or missing, and whatever a link points
/// to outside the writer's view.
final class RefusalOracleTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp { $0.permissions["Note"] = ClassPermissions(read: "owner == %user.id", write: "owner == %user.id") }
    }

    static let schema: [WireInstruction] = PermissionTests.noteSchema + [
        .addClass(WireClassSchema(name: "Ref", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Ref", property: WirePropertySchema(name: "note", type: .link, isOptional: true, linkTarget: "Note")),
        .addProperty(className: "Ref", property: WirePropertySchema(name: "any", type: .mixed, isOptional: true)),
    ]

    /// Sends one changeset and returns the refusal's reasons (with the object's key
    /// replaced by `*`) and the revert's instructions.
    func refusal(_ client: TestSyncClient, version: UInt64, _ instructions: [WireInstruction]) throws -> (reasons: [String], revert: [WireInstruction]) {
        let (error, revert) = try uploadRefused(client, clientVersion: version, instructions)
        let reasons = (error.compensatingWrite?.writes ?? []).map { write in
            write.reason.replacingOccurrences(of: "\(write.object)", with: "*")
        }
        return (reasons, revert)
    }

    /// Ann's private note 1 has the title "secret". Bob subscribes to notes whose
    /// text begins with a guess and erases it: the answer must not depend on the guess.
    func testAGuessedPrefixAndAWrongOneAnswerAlike() throws {
        let ann = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, Self.schema + [PermissionTests.note(1, owner: ann.id, text: "secret")])

        let bob = try anonymousUser()
        var answers: [String: (reasons: [String], revert: [WireInstruction])] = [:]
        for (version, guess) in [(UInt64(1), "s"), (2, "x")] {
            let (b, _) = try boundClient(token: bob.token)
            _ = try query(b, version: 1, ["Note": "text BEGINSWITH '\(guess)'"]).get()
            answers[guess] = try refusal(b, version: version, [.eraseObject(PermissionTests.notePath(1))])
        }
        XCTAssertEqual(answers["s"]?.reasons, ["write to * not allowed: the object is not in the session's view"])
        XCTAssertEqual(answers["s"]?.reasons, answers["x"]?.reasons)
        XCTAssertEqual(answers["s"]?.revert, answers["x"]?.revert)
    }

    /// Erasing or changing a key that exists but is hidden, and one that does not
    /// exist, answer alike; the hidden note is unchanged.
    func testAMissingKeyAndAHiddenOneAnswerAlike() throws {
        let ann = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, Self.schema + [PermissionTests.note(1, owner: ann.id, text: "private")])

        let bob = try anonymousUser()
        let (b, _) = try boundClient(token: bob.token)
        _ = try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()
        var version: UInt64 = 0
        for write in [{ (id: Int64) in WireInstruction.eraseObject(PermissionTests.notePath(id)) },
                      { (id: Int64) in .set(object: PermissionTests.notePath(id), property: "text", value: .string("x")) }] {
            version += 1
            let hidden = try refusal(b, version: version, [write(1)])
            version += 1
            let missing = try refusal(b, version: version, [write(999)])
            XCTAssertEqual(hidden.reasons, ["write to * not allowed: the object is not in the session's view"])
            XCTAssertEqual(hidden.reasons, missing.reasons)
            XCTAssertEqual(hidden.revert, [.eraseObject(PermissionTests.notePath(1))])
            XCTAssertEqual(missing.revert, [.eraseObject(PermissionTests.notePath(999))])
        }
        // Ann's note is as she left it.
        let (check, _) = try boundClient(token: ann.token)
        let notes = try query(check, version: 1, ["Note": "TRUEPREDICATE"]).get()
        XCTAssertTrue(notes.contains(PermissionTests.note(1, owner: ann.id, text: "private")), "\(notes)")
    }

    /// A link to a hidden object, to a missing one, or into the server's own tables is
    /// refused with one reason, and nothing of the target comes back.
    func testLinksOutsideTheViewAndIntoServerTablesAreRefusedAlike() throws {
        let ann = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE", "Ref": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, Self.schema + [PermissionTests.note(1, owner: ann.id, text: "private")])
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/register",
                                         json: ["email": "ann@example.com", "password": "secret1"]).status, 201)

        let bob = try anonymousUser()
        let (b, _) = try boundClient(token: bob.token)
        _ = try query(b, version: 1, ["Note": "TRUEPREDICATE", "Ref": "TRUEPREDICATE"]).get()
        try upload(b, clientVersion: 1, [PermissionTests.note(2, owner: bob.id, text: "mine")])
        let targets: [WireObjectRef] = [
            WireObjectRef(className: "Note", primaryKey: .int(1)),        // Ann's, hidden
            WireObjectRef(className: "Note", primaryKey: .int(404)),      // missing
            WireObjectRef(className: "__user_emails", primaryKey: .string("ann@example.com")),
            WireObjectRef(className: "__user_emails", primaryKey: .string("nobody@example.com")),
            WireObjectRef(className: "__users", primaryKey: .string(ann.id)),
        ]
        var version: UInt64 = 1
        var answers: [[String]] = []
        for (i, target) in targets.enumerated() {
            let id = Int64(100 + i)
            for write in [WireInstruction.createObject(className: "Ref", primaryKey: .int(id), values: [WirePropertyValue("any", .link(target))]),
                          .set(object: WireObjectPath(className: "Ref", primaryKey: .int(id)), property: "any", value: .link(target))] {
                version += 1
                let setup: [WireInstruction] = write.isCreation ? [] : [.createObject(className: "Ref", primaryKey: .int(id), values: [])]
                if !setup.isEmpty { try upload(b, clientVersion: version, setup); version += 1 }
                let answer = try refusal(b, version: version, [write])
                answers.append(answer.reasons)
                // What comes back is the Ref as the server has it (erased when it was to
                // be created), with no link: nothing of the target.
                if write.isCreation {
                    XCTAssertEqual(answer.revert, [.eraseObject(WireObjectPath(className: "Ref", primaryKey: .int(id)))], "\(target)")
                } else {
                    XCTAssertFalse(answer.revert.isEmpty)
                    XCTAssertFalse(answer.revert.contains { "\($0)".contains("link(") }, "\(target): \(answer.revert)")
                }
            }
        }
        XCTAssertEqual(Set(answers.map { $0 }), [["write to * not allowed: it links to an object that is not in the session's view"]])
        // A link to an object in the view is kept.
        version += 1
        try upload(b, clientVersion: version, [.createObject(className: "Ref", primaryKey: .int(1),
                                                             values: [WirePropertyValue("note", .link(WireObjectRef(className: "Note", primaryKey: .int(2))))])])
    }
}

private extension WireInstruction {
    var isCreation: Bool { if case .createObject = self { return true } else { return false } }
}
