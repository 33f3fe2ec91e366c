import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Every line the server logs (trace level, Hummingbird's own included) during logins,
/// failed logins, refreshes, logouts, API keys and sync sessions: none holds a password,
/// a token or an API key.
final class LogSecrecyTests: ServerTestCase {
    let sink = LogSink()

    override func makeLogger() -> Logger {
        let sink = self.sink
        var logger = Logger(label: "openrealm-server-secrecy") { label in CapturingLogHandler(label: label, sink: sink) }
        logger.logLevel = .trace
        return logger
    }

    func testNoSecretIsLogged() throws {
        var secrets: [String] = []
        let base = "/api/client/v2.0/app/todo/auth/providers"
        XCTAssertEqual(try http.request("POST", "\(base)/local-userpass/register",
                                         json: ["email": "ann@example.com", "password": "Sup3r-Secret-Pw"]).status, 201)
        secrets.append("Sup3r-Secret-Pw")
        XCTAssertEqual(try http.request("POST", "\(base)/local-userpass/login",
                                         json: ["username": "ann@example.com", "password": "Wrong-Guess-Pw"]).status, 401)
        secrets.append("Wrong-Guess-Pw")
        let login = try http.request("POST", "\(base)/local-userpass/login", json: ["username": "ann@example.com", "password": "Sup3r-Secret-Pw"])
        let access = try XCTUnwrap(login.body["access_token"] as? String)
        let refresh = try XCTUnwrap(login.body["refresh_token"] as? String)
        secrets += [access, refresh]
        let refreshed = try XCTUnwrap(try http.request("POST", "/api/client/v2.0/auth/session", bearer: refresh).body["access_token"] as? String)
        secrets.append(refreshed)
        let key = try XCTUnwrap(try http.request("POST", "/api/client/v2.0/auth/api_keys", json: ["name": "ci"], bearer: access).body["key"] as? String)
        secrets.append(key)
        let keyLogin = try http.request("POST", "\(base)/api-key/login", json: ["key": key])
        secrets.append(try XCTUnwrap(keyLogin.body["access_token"] as? String))
        XCTAssertEqual(try http.request("POST", "\(base)/api-key/login", json: ["key": String(key.reversed())]).status, 401)
        secrets.append(String(key.reversed()))
        XCTAssertEqual(try http.request("GET", "/api/client/v2.0/auth/profile", bearer: access + "x").status, 401)

        // Sync: a session that binds, subscribes and uploads; a bind with a tampered token.
        let (client, _) = try boundClient(token: refreshed)
        try subscribeToAllTasks(client)
        try upload(client, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let bad = try TestSyncClient(port: port, appId: "todo")
        let tampered = String(access.dropLast(3)) + "abc"
        secrets.append(tampered)
        try bad.send(.bind(WireBind(session: 1, appId: "todo", accessToken: tampered)))
        _ = try bad.waitFor("the refusal") { if case .error = $0 { return true } else { return nil } }
        XCTAssertEqual(try http.request("DELETE", "/api/client/v2.0/auth/session", bearer: refresh).status, 204)

        let lines = sink.lines
        XCTAssertFalse(lines.isEmpty, "the capture saw no log line")
        // The JWT signatures alone (the third part) must not appear either.
        let pieces = secrets + secrets.compactMap { $0.split(separator: ".").count == 3 ? String($0.split(separator: ".")[2]) : nil }
        for line in lines {
            for secret in pieces where line.contains(secret) {
                XCTFail("a secret was logged: \(line)")
            }
        }
    }
}

/// Log lines captured in memory.
final class LogSink: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func append(_ line: String) {
        lock.lock()
        stored.append(line)
        lock.unlock()
    }
}

/// A swift-log handler writing each record, with its metadata, into a ``LogSink``.
struct CapturingLogHandler: LogHandler {
    let label: String
    let sink: LogSink
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let all = metadata.merging(extra ?? [:]) { $1 }
        sink.append("\(level) \(label) \(message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))")
    }
}
