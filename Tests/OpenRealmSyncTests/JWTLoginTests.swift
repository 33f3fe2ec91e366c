import Crypto
import Foundation
import OpenRealmServer
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// `app.login(credentials: .jwt(token:))` against a server configured with a custom
/// JWT key and audience.
final class JWTLoginTests: SyncTestCase {
    static let key = "the-identity-service-shared-secret-0123"

    override var serverApp: ServerAppConfiguration? {
        var config = ServerAppConfiguration.development(appId: appId)
        config.customJWT = .init(key: Self.key, audience: "my-audience")
        return config
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A JWT over `claims` with header `alg`, signed with `key` (an empty signature for `none`).
    func token(_ claims: [String: Any], alg: String = "HS256", key: String = JWTLoginTests.key) throws -> String {
        let input = Self.base64url(try JSONSerialization.data(withJSONObject: ["alg": alg, "typ": "JWT"])) + "."
            + Self.base64url(try JSONSerialization.data(withJSONObject: claims))
        guard alg != "none" else { return input + "." }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return input + "." + Self.base64url(Data(mac))
    }

    var now: Int { Int(Date().timeIntervalSince1970) }

    func testAValidTokenLogsInAStableUser() async throws {
        let first = try await app.login(credentials: .jwt(token: try token(["sub": "employee-7", "aud": "my-audience", "exp": now + 600])))
        XCTAssertTrue(first.isLoggedIn)
        XCTAssertEqual(first.providerType, "custom-token")
        XCTAssertEqual(app.currentUser, first)
        // Another token for the same subject (later expiry, extra claims) is the same user.
        let again = try await app.login(credentials: .jwt(token: try token(["sub": "employee-7", "aud": "my-audience", "exp": now + 900,
                                                                              "email": "e7@corp.example"])))
        XCTAssertEqual(again.id, first.id)
        let other = try await app.login(credentials: .jwt(token: try token(["sub": "employee-8", "aud": "my-audience", "exp": now + 600])))
        XCTAssertNotEqual(other.id, first.id)
        // The user syncs like any other.
        let realm = try await Realm(configuration: flexConfig(first), downloadBeforeOpen: .always)
        XCTAssertNotNil(realm.syncSession)
    }

    func testBadTokensGiveAppErrorsNamingTheCause() async throws {
        let good: [String: Any] = ["sub": "employee-7", "aud": "my-audience", "exp": now + 600]
        var wrongAudience = good
        wrongAudience["aud"] = "someone-else"
        var expired = good
        expired["exp"] = now - 60
        let cases: [(String, String, AppError.Code, String)] = [
            ("expired", try token(expired), .tokenExpired, "expired"),
            ("wrong audience", try token(wrongAudience), .invalidSession, "'aud'"),
            ("bad signature", try token(good, key: "another-secret-another-secret-0123456"), .invalidSession, "signature"),
            ("alg none", try token(good, alg: "none"), .invalidSession, "HS256"),
            ("not a JWT", "garbage", .invalidSession, "not a JWT"),
        ]
        for (what, bad, code, words) in cases {
            do {
                _ = try await app.login(credentials: .jwt(token: bad))
                XCTFail("\(what) must be refused")
            } catch let error as AppError {
                XCTAssertEqual(error.code, code, "\(what): \(error)")
                XCTAssertEqual(error.httpStatusCode, 401, what)
                XCTAssertTrue(error.message.contains(words), "\(what): \(error.message)")
            }
        }
        XCTAssertNil(app.currentUser, "no refused token logged anyone in")
    }
}
