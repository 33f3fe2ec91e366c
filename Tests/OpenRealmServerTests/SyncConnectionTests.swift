import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The protocol logic driven with messages, without sockets: ``SyncConnection`` fed
/// frames, its output collected.
final class SyncConnectionTests: XCTestCase {
    final class Outbox: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [ConnectionOutput] = []
        func append(_ o: ConnectionOutput) {
            // A bootstrap stream is taken at once, as a transport without a bound would.
            let outputs: [ConnectionOutput]
            if case .stream(let stream) = o { outputs = stream.drain().map { .message($0) } } else { outputs = [o] }
            lock.lock(); items += outputs; lock.unlock()
        }
        var messages: [WireMessage] {
            lock.lock(); defer { lock.unlock() }
            return items.compactMap {
                switch $0 {
                case .message(let m): return m
                case .encoded(let e): return e.message
                case .close, .stream: return nil
                }
            }
        }
        /// The shared frames handed over (fanned-out downloads).
        var encoded: [EncodedMessage] {
            lock.lock(); defer { lock.unlock() }
            return items.compactMap { if case .encoded(let e) = $0 { return e } else { return nil } }
        }
        var closed: Bool {
            lock.lock(); defer { lock.unlock() }
            return items.contains { if case .close = $0 { return true } else { return false } }
        }
    }

    func testBindQueryUploadAndMarkWithoutATransport() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-conn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let apps = AppRegistry(storage: EmbeddedStorage(dataDirectory: directory), configured: nil)
        let auth = AuthService(apps: apps, signingKeys: TokenKeys(key: try SigningKey.loadOrCreate(in: directory)), hasher: PasswordHasher(rounds: 1024))
        let token = try auth.anonymousLogin(appId: "todo").access_token
        let outbox = Outbox()
        let connection = SyncConnection(auth: auth, apps: apps, appId: "todo", logger: Logger(label: "test"), output: outbox.append)
        let encoder = WireEncoder()

        connection.receive(frame: try encoder.encode(.bind(WireBind(session: 1, appId: "todo", accessToken: token))))
        guard case .ident(let ident)? = outbox.messages.last else { return XCTFail("no ident: \(outbox.messages)") }
        XCTAssertEqual(ident.serverVersion, 0)

        // Writes need a subscription covering them: a class the server does not know yet may be subscribed to.
        connection.receive(frame: try encoder.encode(.query(WireQuery(session: 1, queryVersion: 1,
                                                                    queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")]))))
        guard case .download(let empty)? = outbox.messages.last else { return XCTFail("no bootstrap") }
        XCTAssertEqual(empty.bootstrap, .lastBatch)
        XCTAssertEqual(empty.changesets, [])
        XCTAssertEqual(empty.progress.serverVersion, 1)

        connection.receive(frame: try encoder.encode(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 4, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 5),
            instructions: ServerTestCase.taskSchema + [ServerTestCase.task(1, title: "a", status: "open")])]))))
        guard case .download(let ack)? = outbox.messages.last else { return XCTFail("no acknowledgement") }
        XCTAssertEqual(ack.progress.lastIntegratedClientVersion, 4)
        XCTAssertEqual(ack.progress.serverVersion, 2)

        // Another session's subscription gets it in its bootstrap.
        connection.receive(frame: try encoder.encode(.bind(WireBind(session: 2, appId: "todo", accessToken: token))))
        connection.receive(frame: try encoder.encode(.query(WireQuery(session: 2, queryVersion: 1,
                                                                    queries: [WireClassQuery(className: "Task", query: "score == 0")]))))
        guard case .download(let bootstrap)? = outbox.messages.last else { return XCTFail("no bootstrap") }
        XCTAssertEqual(bootstrap.session, 2)
        XCTAssertEqual(bootstrap.bootstrap, .lastBatch)
        XCTAssertEqual(bootstrap.changesets.flatMap(\.instructions), [ServerTestCase.task(1, title: "a", status: "open")])

        connection.receive(frame: try encoder.encode(.mark(WireMark(session: 1, requestId: 3))))
        XCTAssertEqual(outbox.messages.last, .mark(WireMark(session: 1, requestId: 3)))

        // A second bind with the same number ends the connection.
        connection.receive(frame: try encoder.encode(.bind(WireBind(session: 1, appId: "todo", accessToken: token))))
        guard case .error(let error)? = outbox.messages.last else { return XCTFail("no error") }
        XCTAssertEqual(error.code, .sessionReused)
        XCTAssertTrue(outbox.closed)
        XCTAssertTrue(connection.isClosed)

        // What was acknowledged is in the history.
        let app = try apps.app("todo")
        let entry = try XCTUnwrap(try app.store.historyEntry(2))
        XCTAssertEqual(entry.originClientVersion, 4)
        XCTAssertEqual(entry.originFileIdent, ident.fileIdentity.ident)
        XCTAssertEqual(try WireChangeset(decoding: entry.changeset).instructions.last, ServerTestCase.task(1, title: "a", status: "open"))
    }
}
