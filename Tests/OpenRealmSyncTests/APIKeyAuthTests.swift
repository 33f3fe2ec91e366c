import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// `user.apiKeysAuth` against a real server: the SDK's calls, async and with
/// completion handlers, and `Credentials.userAPIKey` logins.
final class APIKeyAuthTests: SyncTestCase {
    /// Expects `body` to throw an ``AppError`` of `code`; returns its message.
    nonisolated(nonsending) func expectError(_ code: AppError.Code, _ what: String,
                                              _ body: () async throws -> Void) async -> String {
        do {
            try await body()
            XCTFail("\(what) must fail with \(code)")
        } catch let error as AppError {
            XCTAssertEqual(error.code, code, "\(what): \(error)")
            return error.message
        } catch {
            XCTFail("\(what): \(error) is not an AppError")
        }
        return ""
    }

    func testCreateListLoginDisableEnableDelete() async throws {
        let ann = try await newUser("ann")
        let client = ann.apiKeysAuth
        let apiKey = try await client.createAPIKey(named: "build-server")
        XCTAssertEqual(apiKey.name, "build-server")
        XCTAssertFalse(apiKey.disabled)
        let key = try XCTUnwrap(apiKey.key, "the key is given at creation")

        let all = try await client.fetchAPIKeys()
        XCTAssertEqual(all.map(\.objectId), [apiKey.objectId])
        XCTAssertNil(all.first?.key, "the key is shown only at creation")
        let fetched = try await client.fetchAPIKey(apiKey.objectId)
        XCTAssertEqual(fetched.name, "build-server")
        XCTAssertNil(fetched.key)

        let viaKey = try await app.login(credentials: .userAPIKey(key))
        XCTAssertEqual(viaKey.id, ann.id)
        XCTAssertTrue(viaKey.isLoggedIn)

        try await client.disableAPIKey(apiKey.objectId)
        let disabledKey = try await client.fetchAPIKey(apiKey.objectId)
        XCTAssertTrue(disabledKey.disabled)
        let disabledMessage = await expectError(.invalidSession, "a disabled key's login") {
            _ = try await self.app.login(credentials: .userAPIKey(key))
        }
        XCTAssertTrue(disabledMessage.contains("disabled"), disabledMessage)

        try await client.enableAPIKey(apiKey.objectId)
        let enabledAgain = try await app.login(credentials: .userAPIKey(key))
        XCTAssertEqual(enabledAgain.id, ann.id)

        try await client.deleteAPIKey(apiKey.objectId)
        _ = await expectError(.invalidSession, "a deleted key's login") {
            _ = try await self.app.login(credentials: .userAPIKey(key))
        }
        let afterDelete = try await client.fetchAPIKeys()
        XCTAssertEqual(afterDelete.count, 0)
        _ = await expectError(.apiKeyNotFound, "fetching a deleted key") { _ = try await client.fetchAPIKey(apiKey.objectId) }
    }

    func testCompletionHandlers() async throws {
        let client = try await newUser("ann").apiKeysAuth
        let created: UserAPIKey = try await withCheckedThrowingContinuation { c in
            client.createAPIKey(named: "k") { key, error in
                if let key { c.resume(returning: key) } else { c.resume(throwing: error ?? AppError(.unknown, "neither key nor error")) }
            }
        }
        XCTAssertNotNil(created.key)
        let listed: [UserAPIKey] = try await withCheckedThrowingContinuation { c in
            client.fetchAPIKeys { keys, error in
                if let keys { c.resume(returning: keys) } else { c.resume(throwing: error ?? AppError(.unknown, "neither keys nor error")) }
            }
        }
        XCTAssertEqual(listed.map(\.name), ["k"])
        let fetched: UserAPIKey = try await withCheckedThrowingContinuation { c in
            client.fetchAPIKey(created.objectId) { key, error in
                if let key { c.resume(returning: key) } else { c.resume(throwing: error ?? AppError(.unknown, "neither key nor error")) }
            }
        }
        XCTAssertEqual(fetched.objectId, created.objectId)
        for step in ["disable", "enable", "delete"] {
            let error: Error? = await withCheckedContinuation { c in
                switch step {
                case "disable": client.disableAPIKey(created.objectId) { c.resume(returning: $0) }
                case "enable": client.enableAPIKey(created.objectId) { c.resume(returning: $0) }
                default: client.deleteAPIKey(created.objectId) { c.resume(returning: $0) }
                }
            }
            XCTAssertNil(error, step)
        }
        let missing: Error? = await withCheckedContinuation { c in client.deleteAPIKey(created.objectId) { c.resume(returning: $0) } }
        XCTAssertEqual((missing as? AppError)?.code, .apiKeyNotFound)
    }

    func testAUserCannotSeeOrDeleteAnotherUsersKeys() async throws {
        let ann = try await newUser("ann")
        let annKey = try await ann.apiKeysAuth.createAPIKey(named: "mine")
        let bob = try await newUser("bob")
        let bobsList = try await bob.apiKeysAuth.fetchAPIKeys()
        XCTAssertEqual(bobsList.count, 0)
        _ = await expectError(.apiKeyNotFound, "Bob fetching Ann's key") { _ = try await bob.apiKeysAuth.fetchAPIKey(annKey.objectId) }
        _ = await expectError(.apiKeyNotFound, "Bob deleting Ann's key") { try await bob.apiKeysAuth.deleteAPIKey(annKey.objectId) }
        _ = await expectError(.apiKeyNotFound, "Bob disabling Ann's key") { try await bob.apiKeysAuth.disableAPIKey(annKey.objectId) }
        let annsList = try await ann.apiKeysAuth.fetchAPIKeys()
        XCTAssertEqual(annsList.map(\.disabled), [false])
        let viaKey = try await app.login(credentials: .userAPIKey(try XCTUnwrap(annKey.key)))
        XCTAssertEqual(viaKey.id, ann.id)

        let message = await expectError(.apiKeyAlreadyExists, "a second key of the same name") {
            _ = try await ann.apiKeysAuth.createAPIKey(named: "mine")
        }
        XCTAssertTrue(message.contains("'mine'"), message)
        let anonymous = try await app.login(credentials: .anonymous)
        _ = await expectError(.badRequest, "an anonymous user's key") { _ = try await anonymous.apiKeysAuth.createAPIKey(named: "k") }
    }
}
