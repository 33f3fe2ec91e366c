import Crypto
import Foundation
import Logging
import XCTest
@testable import OpenRealmServer
import OpenRealmTestSupport

/// The signing key and the custom JWT key given by a file or an environment variable
/// rather than kept in the data directory or inline in the JSON.
final class SecretsTests: XCTestCase {
    var scratch: URL!
    let keyBytes = Data((0..<32).map { UInt8($0 * 7 & 0xFF) })

    override func setUpWithError() throws {
        scratch = try TemporaryDirectory.make("openrealm-secrets", removedBy: addTeardownBlock)
    }

    func key(_ source: SigningKeySource, environment: [String: String] = [:]) throws -> Data {
        try source.load(dataDirectory: scratch.appendingPathComponent("data"), environment: environment).withUnsafeBytes { Data($0) }
    }

    func testTheSigningKeyComesFromAFileOrTheEnvironment() throws {
        let raw = scratch.appendingPathComponent("raw.key")
        try keyBytes.write(to: raw)
        XCTAssertEqual(try key(.file(raw)), keyBytes)
        let text = scratch.appendingPathComponent("base64.key")
        try Data((keyBytes.base64EncodedString() + "\n").utf8).write(to: text)
        XCTAssertEqual(try key(.file(text)), keyBytes)
        XCTAssertEqual(try key(.environment("OR_KEY"), environment: ["OR_KEY": keyBytes.base64EncodedString()]), keyBytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("data/signing.key").path),
                       "no key is written into the data directory")

        XCTAssertThrowsError(try key(.environment("OR_KEY"))) { XCTAssertTrue("\($0)".contains("'OR_KEY' is not set"), "\($0)") }
        XCTAssertThrowsError(try key(.environment("OR_KEY"), environment: ["OR_KEY": Data(count: 16).base64EncodedString()])) {
            XCTAssertTrue("\($0)".contains("16-byte signing key, not 32"), "\($0)")
        }
        XCTAssertThrowsError(try key(.file(scratch.appendingPathComponent("none.key")))) {
            XCTAssertTrue("\($0)".contains("none.key': No such file or directory"), "\($0)")
        }
    }

    func testServersSharingAKeyFileAcceptEachOthersTokens() async throws {
        try skipOnPostgres("signing keys given by file (on PostgreSQL every server shares the database's keys)")
        let file = scratch.appendingPathComponent("signing.key")
        try Data(keyBytes.base64EncodedString().utf8).write(to: file)
        func serve(_ directory: String, _ body: (Int) throws -> Void) async throws {
            var configuration = ServerConfiguration(port: 0, dataDirectory: scratch.appendingPathComponent(directory))
            configuration.signingKey = .file(file)
            var logger = Logger(label: "secrets")
            logger.logLevel = .critical
            let server = try SyncServer(configuration: configuration, logger: logger)
            let task = Task { try await server.run() }
            defer { task.cancel() }
            try body(try server.waitUntilRunning())
        }
        var token = ""
        try await serve("one") { port in
            let reply = try TestHTTP(port: port).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
            token = try XCTUnwrap(reply.body["refresh_token"] as? String)
        }
        // Another data directory, the same key file: its refresh token's signature verifies
        // (the token is then unknown to that store, not badly signed).
        try await serve("two") { port in
            let reply = try TestHTTP(port: port).request("POST", "/api/client/v2.0/auth/session", bearer: token)
            XCTAssertFalse(reply.message.contains("signature"), reply.message)
        }
        let claims = try JSONWebToken(key: SymmetricKey(data: keyBytes)).verify(token, kind: "refresh", now: Int64(Date().timeIntervalSince1970))
        XCTAssertEqual(claims.typ, "refresh", "the token was signed with the file's key")
    }

    func testTheCustomJWTKeyComesFromAFileOrTheEnvironment() throws {
        let secret = "a-shared-secret-of-at-least-32-bytes!"
        try Data((secret + "\n").utf8).write(to: scratch.appendingPathComponent("jwt.key"))
        let fromFile = try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": {"keyFile": "jwt.key"}}}"#.utf8),
                                                  baseDirectory: scratch)
        XCTAssertEqual(fromFile.customJWT?.key, secret, "a relative file is found beside the configuration, its newline dropped")
        let fromEnv = try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": {"keyEnv": "JWT_KEY"}}}"#.utf8),
                                                 environment: ["JWT_KEY": secret])
        XCTAssertEqual(fromEnv.customJWT?.key, secret)
        let file = scratch.appendingPathComponent("app.json")
        try Data(#"{"appId": "a", "auth": {"customJWT": {"keyFile": "jwt.key", "audience": "x"}}}"#.utf8).write(to: file)
        XCTAssertEqual(try ServerAppConfiguration.load(from: file).customJWT, CustomJWTConfiguration(key: secret, audience: "x"))

        let refused: [(String, [String: String], String)] = [
            (#"{"keyEnv": "JWT_KEY"}"#, [:], "the environment variable 'JWT_KEY' is not set"),
            (#"{"keyEnv": "JWT_KEY"}"#, ["JWT_KEY": "short"], "the environment variable 'JWT_KEY' must hold at least 32 bytes"),
            (#"{"keyFile": "missing.key"}"#, [:], "'auth.customJWT.keyFile': cannot read the key file"),
            (#"{"key": "\#(secret)", "keyEnv": "JWT_KEY"}"#, ["JWT_KEY": secret], "exactly one of 'key', 'keyFile' or 'keyEnv', not 2"),
            (#"{"audience": "x"}"#, [:], "exactly one of 'key', 'keyFile' or 'keyEnv'"),
        ]
        for (jwt, environment, words) in refused {
            XCTAssertThrowsError(try ServerAppConfiguration.parse(Data(#"{"appId": "a", "auth": {"customJWT": \#(jwt)}}"#.utf8),
                                                            source: "app.json", baseDirectory: scratch, environment: environment)) {
                XCTAssertTrue("\($0)".contains(words), "'\(words)' not in: \($0)")
            }
        }
    }
}
