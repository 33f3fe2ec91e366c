import Crypto
import Foundation
import XCTest
@testable import OpenRealmServer

/// Each app signs with a key of its own, derived from the server's master key; a
/// rotation retires the master without logging everyone out at once.
final class SigningKeyRotationTests: ServerTestCase {
    func profile(_ token: String) throws -> TestHTTP.Reply {
        try http.request("GET", "/api/client/v2.0/auth/profile", bearer: token)
    }

    func header(_ token: String) throws -> [String: Any] {
        let part = try XCTUnwrap(token.split(separator: ".").first)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: try XCTUnwrap(JSONWebToken.unbase64url(part))) as? [String: Any])
    }

    func testEachAppHasItsOwnKeyAndTokensNameTheirMaster() throws {
        let master = SymmetricKey(size: .bits256)
        let a = JSONWebToken.appKey(master, appId: "a").withUnsafeBytes { Data($0) }
        let b = JSONWebToken.appKey(master, appId: "b").withUnsafeBytes { Data($0) }
        XCTAssertNotEqual(a, b)
        XCTAssertNotEqual(a, master.withUnsafeBytes { Data($0) })
        let token = try anonymousToken()
        let kid = try XCTUnwrap(try header(token)["kid"] as? String)
        XCTAssertEqual(kid, JSONWebToken.keyId(try masterSigningKey()))
        XCTAssertEqual(kid.count, 16)
        // A token an earlier build signed with the master itself (no kid) still verifies.
        let claims = try JSONWebToken(key: try masterSigningKey()).verify(token, kind: "access", now: 0)
        let legacyHeader = JSONWebToken.base64url(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = JSONWebToken.base64url(try JSONEncoder().encode(claims))
        let mac = HMAC<SHA256>.authenticationCode(for: Data((legacyHeader + "." + payload).utf8),
                                                  using: try masterSigningKey())
        XCTAssertEqual(try profile(legacyHeader + "." + payload + "." + JSONWebToken.base64url(Data(mac))).status, 200)
        // The master's own MAC under a kid is not the app's key: refused.
        let kidHeader = JSONWebToken.base64url(Data(#"{"alg":"HS256","kid":"\#(kid)","typ":"JWT"}"#.utf8))
        let wrong = HMAC<SHA256>.authenticationCode(for: Data((kidHeader + "." + payload).utf8),
                                                    using: try masterSigningKey())
        XCTAssertEqual(try profile(kidHeader + "." + payload + "." + JSONWebToken.base64url(Data(wrong))).errorCode, "InvalidSession")
    }

    func testARotatedKeyVerifiesItsTokensUntilTheNextRotation() throws {
        let first = try anonymousToken()
        stopServer()
        try rotateSigningKey()
        try startServer()
        XCTAssertEqual(try profile(first).status, 200, "a token of the previous key stays valid")
        let second = try anonymousToken()
        XCTAssertNotEqual(try header(first)["kid"] as? String, try header(second)["kid"] as? String)
        stopServer()
        try rotateSigningKey()
        try startServer()
        XCTAssertEqual(try profile(second).status, 200)
        let gone = try profile(first)
        XCTAssertEqual(gone.errorCode, "InvalidSession")
        XCTAssertTrue(gone.message.contains("no longer has"), gone.message)
    }

    func testAKeyRetiredByFileStillVerifies() throws {
        try skipOnPostgres("signing keys given by file (on PostgreSQL the keys are the database's, rotated there)")
        let first = try anonymousToken()
        stopServer()
        let retired = dataDirectory.appendingPathComponent("old.key")
        try FileManager.default.moveItem(at: dataDirectory.appendingPathComponent("signing.key"), to: retired)
        let fresh = dataDirectory.appendingPathComponent("new.key")
        try Data(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }).write(to: fresh)
        newKeys = (.file(fresh), [.file(retired)])
        try startServer()
        XCTAssertEqual(try profile(first).status, 200)
        XCTAssertEqual(try profile(try anonymousToken()).status, 200)
    }

    private var newKeys: (SigningKeySource, [SigningKeySource])?

    override func configure(_ configuration: inout ServerConfiguration) {
        if let (current, previous) = newKeys {
            configuration.signingKey = current
            configuration.previousSigningKeys = previous
        }
    }
}
