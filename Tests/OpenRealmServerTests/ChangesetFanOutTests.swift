import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmTestSupport

/// Fan-out of an integrated changeset to many sessions (``ChangesetFanOut``): sessions
/// whose views agree share one encoding; sessions whose read rules or subscriptions
/// differ still get only what their view holds, entering and leaving objects included.
final class ChangesetFanOutTests: XCTestCase {
    typealias Outbox = SyncConnectionTests.Outbox

    var directory: URL!
    var apps: AppRegistry!
    var auth: AuthService!
    let encoder = WireEncoder()

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("openrealm-fanout", removedBy: addTeardownBlock)
        var config = ServerAppConfiguration.development(appId: "todo")
        config.permissions["Note"] = ClassPermissions(read: "owner == %user.id OR shared == true", write: "owner == %user.id")
        apps = AppRegistry(storage: EmbeddedStorage(dataDirectory: directory), configured: config)
        auth = AuthService(apps: apps, signingKeys: TokenKeys(key: try SigningKey.loadOrCreate(in: directory)), hasher: PasswordHasher(rounds: 1024))
    }

    /// A connection with session 1 bound for `token` and subscribed with `query` on Note.
    func subscribed(_ token: String, _ query: String) throws -> (SyncConnection, Outbox) {
        let outbox = Outbox()
        let connection = SyncConnection(auth: auth, apps: apps, appId: "todo", logger: Logger(label: "test"), output: outbox.append)
        connection.receive(frame: try encoder.encode(.bind(WireBind(session: 1, appId: "todo", accessToken: token))))
        guard case .ident? = outbox.messages.last else { throw Unexpected("no ident: \(outbox.messages)") }
        connection.receive(frame: try encoder.encode(.query(WireQuery(session: 1, queryVersion: 1,
                                                                    queries: [WireClassQuery(className: "Note", query: query)]))))
        guard case .download(let d)? = outbox.messages.last, d.bootstrap == .lastBatch else {
            throw Unexpected("no bootstrap: \(outbox.messages)")
        }
        return (connection, outbox)
    }

    static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Note", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Note", property: WirePropertySchema(name: "owner", type: .string)),
        .addProperty(className: "Note", property: WirePropertySchema(name: "shared", type: .bool)),
        .addProperty(className: "Note", property: WirePropertySchema(name: "text", type: .string)),
    ]

    static func note(_ id: Int64, owner: String, shared: Bool, text: String) -> WireInstruction {
        .createObject(className: "Note", primaryKey: .int(id), values: [
            WirePropertyValue("owner", .string(owner)), WirePropertyValue("shared", .bool(shared)), WirePropertyValue("text", .string(text)),
        ])
    }

    static func path(_ id: Int64) -> WireObjectPath { WireObjectPath(className: "Note", primaryKey: .int(id)) }

    /// The instructions of the downloads with changesets `outbox` received after `start`,
    /// each shared frame checked to decode to the message it stands for.
    func received(_ outbox: Outbox, after start: Int) throws -> [WireInstruction] {
        for shared in outbox.encoded {
            var decoder = WireFrameDecoder()
            XCTAssertEqual(try decoder.feed(shared.frame), [shared.message], "a shared frame does not encode its message")
        }
        return outbox.messages.dropFirst(start).flatMap { m -> [WireInstruction] in
            if case .download(let d) = m { return d.changesets.flatMap(\.instructions) } else { return [] }
        }
    }

    func testSessionsWithTheSameViewShareBytesAndOthersStayFiltered() throws {
        let ann = try auth.anonymousLogin(appId: "todo")
        let bob = try auth.anonymousLogin(appId: "todo")
        let (writer, writerOut) = try subscribed(ann.access_token, "TRUEPREDICATE")
        // Two of ann's devices, one view; bob's rule differs; bob's other device subscribes narrower.
        let (_, annA) = try subscribed(ann.access_token, "TRUEPREDICATE")
        let (_, annB) = try subscribed(ann.access_token, "TRUEPREDICATE")
        let (_, bobAll) = try subscribed(bob.access_token, "TRUEPREDICATE")
        let (_, bobX) = try subscribed(bob.access_token, "text == 'x'")
        let outboxes = [annA, annB, bobAll, bobX]

        var clientVersion: UInt64 = 0
        func upload(_ instructions: [WireInstruction]) throws -> [[WireInstruction]] {
            let starts = outboxes.map(\.messages.count)
            clientVersion += 1
            let serverVersion = try apps.app("todo").serverVersion
            writer.receive(frame: try encoder.encode(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                clientVersion: clientVersion, lastIntegratedServerVersion: serverVersion,
                timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + clientVersion), instructions: instructions)]))))
            guard case .download(let ack)? = writerOut.messages.last, ack.progress.lastIntegratedClientVersion == clientVersion else {
                throw Unexpected("no acknowledgement: \(writerOut.messages.suffix(2))")
            }
            return try zip(outboxes, starts).map { try received($0, after: $1) }
        }

        // Ann's private note and a shared one.
        var got = try upload(Self.schema + [Self.note(1, owner: ann.user_id, shared: false, text: "x"),
                                            Self.note(2, owner: ann.user_id, shared: true, text: "y")])
        XCTAssertEqual(got[0], [Self.note(1, owner: ann.user_id, shared: false, text: "x"), Self.note(2, owner: ann.user_id, shared: true, text: "y")])
        XCTAssertEqual(got[1], got[0])
        XCTAssertEqual(got[2], [Self.note(2, owner: ann.user_id, shared: true, text: "y")])
        XCTAssertEqual(got[3], [], "bob's narrower view holds neither note (1 is private, 2 is not 'x')")
        // Ann's two devices were handed the same bytes, not two encodings.
        let a = try XCTUnwrap(annA.encoded.last), b = try XCTUnwrap(annB.encoded.last)
        XCTAssertEqual(a.frame, b.frame)
        XCTAssertTrue(a.frame.withUnsafeBufferPointer { x in b.frame.withUnsafeBufferPointer { x.baseAddress == $0.baseAddress } },
                      "the two sessions' frames are not the same storage")
        XCTAssertNotEqual(bobAll.encoded.last?.frame, a.frame)

        // Note 1 becomes shared: ann's views forward the set, it enters bob's whole view
        // (sent whole) and bob's narrower one (its text is 'x').
        let share = WireInstruction.set(object: Self.path(1), property: "shared", value: .bool(true))
        got = try upload([share])
        XCTAssertEqual(got[0], [share])
        XCTAssertEqual(got[1], [share])
        XCTAssertEqual(got[2], [Self.note(1, owner: ann.user_id, shared: true, text: "x")])
        XCTAssertEqual(got[3], [Self.note(1, owner: ann.user_id, shared: true, text: "x")])

        // Note 2 stops being shared and note 1's text changes in one changeset: note 2
        // leaves both of bob's views; note 1 leaves the narrower one and stays in the other.
        let unshare = WireInstruction.set(object: Self.path(2), property: "shared", value: .bool(false))
        let retext = WireInstruction.set(object: Self.path(1), property: "text", value: .string("z"))
        got = try upload([unshare, retext])
        XCTAssertEqual(got[0], [unshare, retext])
        XCTAssertEqual(got[1], [unshare, retext])
        XCTAssertEqual(got[2], [.eraseObject(Self.path(2)), retext])
        XCTAssertEqual(got[3], [.eraseObject(Self.path(1))])

        // Nothing reaches a view the change does not touch.
        got = try upload([.set(object: Self.path(2), property: "text", value: .string("w"))])
        XCTAssertEqual(got[2], [])
        XCTAssertEqual(got[3], [])
        XCTAssertEqual(got[0].count, 1)
    }
}

/// A reply the test did not expect (the test fails with it).
private struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
