import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Read and write rules with `%user.id` / `%user.email`, and compensating writes.
final class PermissionTests: ServerTestCase {
    let mailer = CapturingMailer()

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.mailer = mailer
    }

    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp {
            $0.permissions["Note"] = ClassPermissions(read: "owner == %user.id OR shared == true OR editor == %user.email",
                                                      write: "owner == %user.id OR editor == %user.email")
        }
    }

    static let noteSchema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Note", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Note", property: WirePropertySchema(name: "owner", type: .string)),
        .addProperty(className: "Note", property: WirePropertySchema(name: "editor", type: .string, isOptional: true)),
        .addProperty(className: "Note", property: WirePropertySchema(name: "shared", type: .bool)),
        .addProperty(className: "Note", property: WirePropertySchema(name: "text", type: .string)),
    ]

    static func note(_ id: Int64, owner: String, shared: Bool = false, text: String = "", editor: String? = nil) -> WireInstruction {
        .createObject(className: "Note", primaryKey: .int(id), values: [
            WirePropertyValue("owner", .string(owner)), WirePropertyValue("editor", editor.map { .string($0) } ?? .null),
            WirePropertyValue("shared", .bool(shared)), WirePropertyValue("text", .string(text)),
        ])
    }

    static func notePath(_ id: Int64) -> WireObjectPath { WireObjectPath(className: "Note", primaryKey: .int(id)) }

    func created(_ instructions: [WireInstruction]) -> [Int64] {
        instructions.compactMap { if case .createObject("Note", .int(let id), _) = $0 { return id } else { return nil } }.sorted()
    }

    func testReadRulesLimitTheViewPerUser() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, Self.noteSchema + [Self.note(1, owner: ann.id), Self.note(2, owner: ann.id, shared: true)])
        let (b, _) = try boundClient(token: bob.token)
        XCTAssertEqual(created(try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()), [2])
        try upload(b, clientVersion: 1, [Self.note(3, owner: bob.id)])
        let (c, _) = try boundClient(token: ann.token)
        XCTAssertEqual(created(try query(c, version: 1, ["Note": "TRUEPREDICATE"]).get()), [1, 2])

        // An email user reads what names their email, once they confirmed it.
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/register",
                                         json: ["email": "eve@example.com", "password": "secret1"]).status, 201)
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/confirm/send",
                                         json: ["email": "eve@example.com"]).status, 200)
        let mail = try mailer.waitForMail(to: "eve@example.com", .confirmation)
        XCTAssertEqual(try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/confirm",
                                         json: ["token": mail.token, "tokenId": mail.tokenId]).status, 200)
        let login = try http.request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/login",
                                     json: ["username": "eve@example.com", "password": "secret1"])
        let eveToken = try XCTUnwrap(login.body["access_token"] as? String)
        try upload(a, clientVersion: 2, [Self.note(4, owner: ann.id, editor: "eve@example.com")])
        let (e, _) = try boundClient(token: eveToken)
        XCTAssertEqual(created(try query(e, version: 1, ["Note": "TRUEPREDICATE"]).get()), [2, 4])
    }

    func testWritesOutsideTheWriteRulesAreRevertedByACompensatingWrite() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, Self.noteSchema + [Self.note(1, owner: ann.id, shared: true, text: "hello")])

        let (b, _) = try boundClient(token: bob.token)
        XCTAssertEqual(created(try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()), [1])
        // Bob may read note 1 but not write it; his own note 2 is fine; a note he
        // creates for Ann (note 3) is outside his write rule once created.
        let (error, revert) = try uploadRefused(b, clientVersion: 1, [
            .set(object: Self.notePath(1), property: "text", value: .string("defaced")),
            Self.note(2, owner: bob.id, text: "mine"),
            Self.note(3, owner: ann.id, shared: true, text: "forged"),
        ])
        XCTAssertEqual(error.code, .writeNotAllowed)
        XCTAssertFalse(error.isFatal)
        XCTAssertEqual(error.compensatingWrite?.writes.map(\.object), [Self.notePath(1).root, Self.notePath(3).root])
        XCTAssertTrue(error.compensatingWrite?.writes.allSatisfy { $0.reason.contains("write rule of class 'Note'") } ?? false,
                      "\(error)")
        // The reverting download restores note 1 and erases note 3.
        XCTAssertEqual(revert.first, Self.note(1, owner: ann.id, shared: true, text: "hello"))
        XCTAssertTrue(revert.contains(.eraseObject(Self.notePath(3))))

        // The server kept Ann's text, has Bob's note, and not the forged one.
        let (c, _) = try boundClient(token: ann.token)
        let state = try query(c, version: 1, ["Note": "TRUEPREDICATE"]).get()
        XCTAssertEqual(created(state), [1])
        XCTAssertTrue(state.contains(Self.note(1, owner: ann.id, shared: true, text: "hello")))
        let (d, _) = try boundClient(token: bob.token)
        XCTAssertEqual(created(try query(d, version: 1, ["Note": "TRUEPREDICATE"]).get()), [1, 2])

        // The session goes on: Bob can still write his own note.
        try upload(b, clientVersion: 2, [.set(object: Self.notePath(2), property: "text", value: .string("still mine"))])
        // A write that would take an object out of the writer's rights is refused too.
        let (moved, _) = try uploadRefused(b, clientVersion: 3, [.set(object: Self.notePath(2), property: "owner", value: .string(ann.id))])
        XCTAssertTrue(moved.message.contains("after the write"), moved.message)
    }

    /// The rules are checked per class over all of a changeset's objects at once: each
    /// refused object still gets its own reason, and the allowed ones in between apply.
    func testEachObjectOfOneChangesetGetsItsOwnReason() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, ["Note": "TRUEPREDICATE"]).get()
        try upload(a, clientVersion: 1, Self.noteSchema + (10..<20).map {
            Self.note($0, owner: ann.id, shared: $0 % 2 == 1, text: "ann \($0)")
        })

        let (b, _) = try boundClient(token: bob.token)
        XCTAssertEqual(created(try query(b, version: 1, ["Note": "TRUEPREDICATE"]).get()), [11, 13, 15, 17, 19])
        let (error, revert) = try uploadRefused(b, clientVersion: 1, [Self.note(30, owner: bob.id, text: "mine")]
            + (10..<20).map { .set(object: Self.notePath($0), property: "text", value: .string("bob")) }
            + [.set(object: Self.notePath(30), property: "text", value: .string("still mine"))])
        let writes = try XCTUnwrap(error.compensatingWrite?.writes)
        XCTAssertEqual(writes.map(\.object), (10..<20).map { Self.notePath(Int64($0)).root })
        for write in writes {
            guard case .int(let id) = write.object.primaryKey else { return XCTFail("\(write)") }
            // A visible note names the write rule; a hidden one gets the one reason for
            // every object outside the view, which says nothing about why.
            let reason = id % 2 == 1 ? "write rule of class 'Note' does not allow it" : "not allowed: the object is not in the session's view"
            XCTAssertTrue(write.reason.contains(reason), "note \(id): \(write.reason)")
        }
        // Visible notes come back as Ann has them; hidden ones are erased on Bob's side.
        for id in [11, 13, 15, 17, 19] {
            XCTAssertTrue(revert.contains(Self.note(Int64(id), owner: ann.id, shared: true, text: "ann \(id)")), "note \(id)")
        }
        for id in [10, 12, 14, 16, 18] { XCTAssertTrue(revert.contains(.eraseObject(Self.notePath(Int64(id))))) }
        let (c, _) = try boundClient(token: ann.token)
        let state = try query(c, version: 1, ["Note": "TRUEPREDICATE"]).get()
        XCTAssertEqual(created(state), Array(10..<20))
        for id in 10..<20 {
            XCTAssertTrue(state.contains(Self.note(Int64(id), owner: ann.id, shared: id % 2 == 1, text: "ann \(id)")), "note \(id)")
        }
        let (d, _) = try boundClient(token: bob.token)
        let bobs = try query(d, version: 1, ["Note": "TRUEPREDICATE"]).get()
        XCTAssertTrue(bobs.contains(Self.note(30, owner: bob.id, text: "still mine")), "\(bobs)")
    }
}

/// Writes outside the session's subscriptions (no rules configured).
final class ViewWriteTests: ServerTestCase {
    func testWritesOutsideTheSubscriptionsAreReverted() throws {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "a", status: "done")])

        let (b, _) = try boundClient()
        XCTAssertEqual(try query(b, version: 1, ["Task": "status == 'open'"]).get(), [])
        try b.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_900_000_000_000),
            instructions: [
                .set(object: Self.path(1), property: "title", value: .string("hidden")),  // outside B's view
                Self.task(2, title: "b", status: "done"),                              // created outside it
                Self.task(3, title: "c", status: "open"),                              // inside: kept
            ])])))
        let error = try b.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(error.code, .writeNotAllowed)
        let writes = try XCTUnwrap(error.compensatingWrite?.writes)
        XCTAssertEqual(writes.map(\.object.primaryKey), [.int(1), .int(2)])
        XCTAssertTrue(writes[0].reason.hasSuffix("the object is not in the session's view"), writes[0].reason)
        XCTAssertTrue(writes[1].reason.contains("after the write"), writes[1].reason)
        let revert = try b.waitFor("the revert") { m -> [WireInstruction]? in
            if case .download(let d) = m, let c = d.changesets.first { return c.instructions } else { return nil }
        }
        XCTAssertEqual(revert, [.eraseObject(Self.path(1)), .eraseObject(Self.path(2))])

        // A class no subscription covers is refused with that reason.
        let (c, _) = try boundClient()
        try c.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
            instructions: [Self.task(9, title: "x", status: "open")])])))
        let noSub = try c.waitFor("the error") { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertTrue(noSub.message.contains("no subscription of the session covers class 'Task'"), noSub.message)

        // The server has task 3 and the original task 1 only.
        let (d, _) = try boundClient()
        let state = try subscribeToAllTasks(d)
        XCTAssertTrue(state.contains(Self.task(1, title: "a", status: "done")))
        XCTAssertTrue(state.contains(Self.task(3, title: "c", status: "open")))
        XCTAssertEqual(state.filter { if case .createObject = $0 { return true } else { return false } }.count, 2)
    }
}

/// A class with only a read rule and one with only a write rule, under `TRUEPREDICATE`
/// subscriptions: the integration looks no object up for a class whose subscription
/// holds every object and which has neither rule, so each rule alone must still refuse.
final class SingleRuleTests: ServerTestCase {
    override var appConfiguration: ServerAppConfiguration? {
        Self.developmentApp {
            $0.permissions["Note"] = ClassPermissions(read: "owner == %user.id", write: nil)
            $0.permissions["Memo"] = ClassPermissions(read: nil, write: "owner == %user.id")
        }
    }

    static let schema: [WireInstruction] = ["Note", "Memo", "Card"].flatMap { name -> [WireInstruction] in [
        .addClass(WireClassSchema(name: name, primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: name, property: WirePropertySchema(name: "owner", type: .string)),
        .addProperty(className: name, property: WirePropertySchema(name: "text", type: .string)),
    ] }

    static func object(_ className: String, _ id: Int64, owner: String, text: String = "") -> WireInstruction {
        .createObject(className: className, primaryKey: .int(id),
                      values: [WirePropertyValue("owner", .string(owner)), WirePropertyValue("text", .string(text))])
    }

    static func set(_ className: String, _ id: Int64, text: String) -> WireInstruction {
        .set(object: WireObjectPath(className: className, primaryKey: .int(id)), property: "text", value: .string(text))
    }

    static let everything = ["Note": "TRUEPREDICATE", "Memo": "TRUEPREDICATE", "Card": "TRUEPREDICATE"]

    func testEachRuleAloneStillRefusesUnderSubscriptionsOfEverything() throws {
        let ann = try anonymousUser()
        let bob = try anonymousUser()
        let (a, _) = try boundClient(token: ann.token)
        _ = try query(a, version: 1, Self.everything).get()
        try upload(a, clientVersion: 1, Self.schema + ["Note", "Memo", "Card"].map { Self.object($0, 1, owner: ann.id, text: "ann's") })

        let (b, _) = try boundClient(token: bob.token)
        let seen = try query(b, version: 1, Self.everything).get()
        XCTAssertFalse(seen.contains(Self.object("Note", 1, owner: ann.id, text: "ann's")), "the read rule hides Ann's note")
        XCTAssertTrue(seen.contains(Self.object("Memo", 1, owner: ann.id, text: "ann's")))
        let (error, revert) = try uploadRefused(b, clientVersion: 1, [
            Self.set("Note", 1, text: "unseen"),                 // outside Bob's view (read rule)
            Self.set("Memo", 1, text: "defaced"),                // in his view, outside his write rule
            Self.set("Card", 1, text: "anyone's"),               // no rule: kept
            Self.object("Note", 2, owner: ann.id, text: "gift"), // leaves his view once written
            Self.object("Note", 3, owner: bob.id, text: "mine"), // kept
            Self.object("Memo", 2, owner: bob.id, text: "mine"), // kept
        ])
        XCTAssertEqual(error.code, .writeNotAllowed)
        let writes = try XCTUnwrap(error.compensatingWrite?.writes)
        XCTAssertEqual(writes.map { "\($0.object)" }, ["Note[1]", "Memo[1]", "Note[2]"])
        XCTAssertTrue(writes[0].reason.hasSuffix("the object is not in the session's view"), writes[0].reason)
        XCTAssertTrue(writes[1].reason.contains("the write rule of class 'Memo'"), writes[1].reason)
        XCTAssertTrue(writes[2].reason.contains("after the write"), writes[2].reason)
        XCTAssertTrue(revert.contains(Self.object("Memo", 1, owner: ann.id, text: "ann's")), "\(revert)")

        let (c, _) = try boundClient(token: ann.token)
        let state = try query(c, version: 1, Self.everything).get()
        XCTAssertTrue(state.contains(Self.object("Note", 1, owner: ann.id, text: "ann's")), "\(state)")
        XCTAssertTrue(state.contains(Self.object("Memo", 1, owner: ann.id, text: "ann's")), "\(state)")
        XCTAssertTrue(state.contains(Self.object("Card", 1, owner: ann.id, text: "anyone's")), "\(state)")
        XCTAssertTrue(state.contains(Self.object("Memo", 2, owner: bob.id, text: "mine")), "\(state)")
        XCTAssertFalse(state.contains { if case .createObject("Note", .int(2), _) = $0 { return true } else { return false } })
    }
}

/// Rules in the JSON configuration.
final class RuleConfigurationTests: XCTestCase {
    func parse(_ rules: String) throws -> ServerAppConfiguration {
        try ServerAppConfiguration.parse(Data(#"{"appId": "todo", "rules": \#(rules)}"#.utf8), source: "app.json")
    }

    func testRulesParseAndBadRulesNameTheirKey() throws {
        let config = try parse(#"{"Task": {"read": "owner == %user.id OR title == '%user.id'", "write": "owner == %user.email"}}"#)
        XCTAssertEqual(config.permissions["Task"], ClassPermissions(read: "owner == %user.id OR title == '%user.id'",
                                                                   write: "owner == %user.email"))
        // Variables are bound as arguments; inside a string literal they stay text.
        let rules = try AppRules(config).bound(userId: "u1", email: nil)
        XCTAssertEqual("\(try XCTUnwrap(rules.readRule("Task")))", "owner == \"u1\" OR title == \"%user.id\"")

        let bad: [(String, String)] = [
            (#"{"Task": {"read": "owner == %user.name"}}"#, "rules.Task.read"),
            (#"{"Task": {"write": "owner == $0"}}"#, "rules.Task.write"),
            (#"{"Task": {"read": "owner.name == %user.id"}}"#, "through a link"),
            (#"{"Task": {"read": "owner =="}}"#, "rules.Task.read"),
            (#"{"Task": {"read": "TRUEPREDICATE SORT(a ASC)"}}"#, "SORT"),
            (#"{"Task": {"delete": "TRUEPREDICATE"}}"#, "rules.Task.delete"),
            (#"{"Task": {"read": 5}}"#, "rules.Task.read"),
        ]
        for (json, expected) in bad {
            XCTAssertThrowsError(try parse(json), json) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(json): \(error)")
            }
        }
    }
}
