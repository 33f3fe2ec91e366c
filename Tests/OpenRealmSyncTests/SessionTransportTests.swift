import Foundation
import XCTest
@testable import OpenRealmSync
import OpenRealmWire
import RealmSwift

final class TransportItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
}

/// The client session against an in-memory transport, with the test in the server's
/// place: what the session writes, in what order, and how it answers the server's
/// messages and a connection's end — without a server or a socket.
final class SessionTransportTests: XCTestCase {
    private var root: URL!
    private var transport: InMemorySyncTransport!
    private var app: App!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-transport-\(UUID().uuidString)")
        transport = InMemorySyncTransport()
        // Nothing listens at this address: every byte goes through the transport.
        app = App(id: "transport-\(UUID().uuidString.prefix(8))",
                  configuration: AppConfiguration(baseURL: "http://127.0.0.1:9", rootDirectory: root))
        app.state.syncTransport = transport
    }

    override func tearDown() {
        for user in app.allUsers.values { SyncSessionRegistry.shared.stopSessions(of: user) }
        try? FileManager.default.removeItem(at: root)
    }

    /// A logged-in user whose access token is valid for an hour (no token fetch over HTTP).
    private func user() throws -> User {
        let claims = Data(#"{"exp":\#(Int(Date().timeIntervalSince1970) + 3600),"sub":"u1"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let token = "eyJhbGciOiJIUzI1NiJ9.\(claims).signature"
        return try app.state.recordLogin(id: "u1", provider: "anon-user", accessToken: token, refreshToken: token,
                                         deviceId: nil, email: nil)
    }

    /// A flexible sync realm subscribed to every `TransportItem`, and its session.
    private func open() throws -> (Realm, SyncSession) {
        var config = try user().flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<TransportItem>())
        })
        config.objectTypes = [TransportItem.self]
        let realm = try Realm(configuration: config)
        return (realm, try XCTUnwrap(realm.syncSession))
    }

    private func isUpload(_ m: WireMessage) -> Bool { if case .upload = m { true } else { false } }
    private func isMark(_ m: WireMessage) -> Bool { if case .mark = m { true } else { false } }

    /// Protocol §6.2: the `bind` is the first frame of a connection, with the app, the
    /// user's token and no identity yet; the subscription set's `query` follows it.
    func testTheBindGoesFirstAndTheQueryFollows() throws {
        let (_, _) = try open()
        let connection = try transport.waitForConnection(0)
        XCTAssertTrue(connection.connectCalled)
        XCTAssertEqual(connection.url.absoluteString, "ws://127.0.0.1:9/api/client/v2.0/app/\(app.appId)/realm-sync")
        XCTAssertTrue(connection.sent.isEmpty, "nothing may be written before the connection opens")
        connection.open()
        _ = try connection.waitForSent { if case .query = $0 { true } else { false } }
        let sent = connection.sent
        guard case .bind(let bind) = sent.first else { return XCTFail("the first frame was \(String(describing: sent.first))") }
        XCTAssertEqual(bind.appId, app.appId)
        XCTAssertNil(bind.fileIdentity)
        guard case .query(let query) = sent[1] else { return XCTFail("the second frame was \(sent[1])") }
        XCTAssertEqual(query.session, bind.session)
        XCTAssertEqual(query.queryVersion, 1)
        XCTAssertEqual(query.queries, [WireClassQuery(className: "TransportItem", query: "TRUEPREDICATE")])
    }

    /// Local commits upload only once the server's `ident` bound the session, starting
    /// after the client version the ident says the server has; the next connection binds
    /// with the identity the ident gave.
    func testUploadsWaitForTheIdentAndTheNextBindCarriesItsIdentity() throws {
        let (realm, session) = try open()
        let first = try transport.waitForConnection(0)
        first.open()
        try realm.write { realm.add(TransportItem(value: ["name": "offline"])) }
        _ = try first.waitForSent { if case .query = $0 { true } else { false } }
        XCTAssertFalse(first.sent.contains(where: isUpload), "an upload went out before the ident")

        let identity = WireFileIdentity(ident: 7, salt: 42)
        first.deliver(.ident(WireIdent(session: 1, fileIdentity: identity, serverVersion: 0, lastIntegratedClientVersion: 0)))
        guard case .upload(let upload) = try first.waitForSent(isUpload) else { return XCTFail() }
        XCTAssertEqual(upload.session, 1)
        let created = upload.changesets.flatMap { $0.instructions }.contains {
            if case .createObject(let className, _, _) = $0 { className == "TransportItem" } else { false }
        }
        XCTAssertTrue(created, "the upload lacks the created object: \(upload.changesets)")
        XCTAssertEqual(session.connectionState, .connected)

        first.end("the server went away")
        let second = try transport.waitForConnection(1)
        second.open()
        guard case .bind(let bind) = try second.waitForSent({ if case .bind = $0 { true } else { false } }) else { return XCTFail() }
        XCTAssertEqual(bind.session, 2)
        XCTAssertEqual(bind.fileIdentity, identity)
    }

    /// Invariant 1 of the session: a download wait survives a lost connection — its mark
    /// goes out again on the next connection once bound, and the echo ends the wait.
    func testAPendingMarkIsSentAgainAfterAReconnect() async throws {
        let (_, session) = try open()
        let first = try transport.waitForConnection(0)
        first.open()
        first.deliver(.ident(WireIdent(session: 1, fileIdentity: WireFileIdentity(ident: 3, salt: 1), serverVersion: 0,
                                       lastIntegratedClientVersion: 0)))
        let waiting = _Concurrency.Task { try await session.wait(for: .download) }
        guard case .mark(let mark) = try first.waitForSent(isMark) else { return XCTFail() }
        first.end(nil)

        let second = try transport.waitForConnection(1)
        second.open()
        XCTAssertFalse(second.sent.contains(where: isMark), "a mark went out before the ident")
        second.deliver(.ident(WireIdent(session: 2, fileIdentity: WireFileIdentity(ident: 3, salt: 1), serverVersion: 0,
                                        lastIntegratedClientVersion: 0)))
        guard case .mark(let again) = try second.waitForSent(isMark) else { return XCTFail() }
        XCTAssertEqual(again.requestId, mark.requestId)
        XCTAssertEqual(again.session, 2)
        second.deliver(.mark(WireMark(session: 2, requestId: again.requestId)))
        try await waiting.value
    }

    /// A frame from the server that does not decode ends the connection (after telling
    /// the server why), and the session connects again.
    func testAnUndecodableFrameEndsTheConnectionAndTheSessionReconnects() throws {
        _ = try open()
        let first = try transport.waitForConnection(0)
        first.open()
        first.deliverFrame([UInt8](repeating: 0xff, count: 16))
        try first.waitUntilEnded()
        XCTAssertTrue(first.sent.contains { if case .error = $0 { true } else { false } })
        _ = try transport.waitForConnection(1)
    }
}

/// The connection's clocks, by themselves.
final class ConnectionDeadlinesTests: XCTestCase {
    private func deadlines() -> ConnectionDeadlines {
        ConnectionDeadlines(socketOpenTimeout: 15, handshakeTimeout: 60, keepaliveInterval: 60, keepaliveTimeout: 60)
    }
    private func at(_ start: DispatchTime, _ seconds: Double) -> DispatchTime { start + seconds }

    func testATokenFetchPastItsTimeoutIsAbandonedOnce() {
        var d = deadlines()
        let t0 = DispatchTime.now()
        d.tokenRequestedAt = t0
        XCTAssertEqual(d.verdict(now: at(t0, 9), hasConnection: false, bound: false, tokenTimeout: 10), .nothing)
        XCTAssertEqual(d.verdict(now: at(t0, 11), hasConnection: false, bound: false, tokenTimeout: 10),
                       .abandonTokenFetch(reason: "no access token within 10 seconds"))
        XCTAssertNil(d.tokenRequestedAt)
        XCTAssertEqual(d.verdict(now: at(t0, 12), hasConnection: false, bound: false, tokenTimeout: 10), .nothing)
    }

    func testASocketThatDoesNotOpenOrBindInTimeIsDropped() {
        var d = deadlines()
        let t0 = DispatchTime.now()
        d.connectionStarted(at: t0)
        XCTAssertEqual(d.verdict(now: at(t0, 14), hasConnection: true, bound: false, tokenTimeout: 10), .nothing)
        guard case .dropConnection = d.verdict(now: at(t0, 16), hasConnection: true, bound: false, tokenTimeout: 10) else {
            return XCTFail("an unopened socket past 15 s was kept")
        }
        d.socket = nil  // opened
        XCTAssertEqual(d.verdict(now: at(t0, 59), hasConnection: true, bound: false, tokenTimeout: 10), .nothing)
        guard case .dropConnection = d.verdict(now: at(t0, 61), hasConnection: true, bound: false, tokenTimeout: 10) else {
            return XCTFail("a connection without ident past 60 s was kept")
        }
    }

    func testSilenceGetsOnePingThenTheConnectionIsDropped() {
        var d = deadlines()
        let t0 = DispatchTime.now()
        d.connectionStarted(at: t0)
        d.socket = nil
        d.handshake = nil
        XCTAssertEqual(d.verdict(now: at(t0, 59), hasConnection: true, bound: true, tokenTimeout: 10), .nothing)
        XCTAssertEqual(d.verdict(now: at(t0, 61), hasConnection: true, bound: true, tokenTimeout: 10), .ping)
        XCTAssertEqual(d.verdict(now: at(t0, 62), hasConnection: true, bound: true, tokenTimeout: 10), .nothing, "a second ping")
        guard case .dropConnection = d.verdict(now: at(t0, 121), hasConnection: true, bound: true, tokenTimeout: 10) else {
            return XCTFail("a connection silent past the keepalive was kept")
        }
        d.trafficArrived(at: at(t0, 121))
        XCTAssertEqual(d.verdict(now: at(t0, 122), hasConnection: true, bound: true, tokenTimeout: 10), .nothing)
    }
}
