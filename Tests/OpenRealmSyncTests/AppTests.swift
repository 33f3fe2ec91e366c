import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

final class AppTests: SyncTestCase {
    func testAnonymousLoginIsReusedAndBecomesCurrent() async throws {
        let user = try await app.login(credentials: Credentials.anonymous)
        XCTAssertTrue(user.isLoggedIn)
        XCTAssertEqual(user.state, .loggedIn)
        XCTAssertFalse(user.id.isEmpty)
        XCTAssertEqual(app.currentUser, user)
        let again = try await app.login(credentials: .anonymous)
        XCTAssertEqual(again.id, user.id, "a logged-in anonymous user is reused")
        XCTAssertNotNil(user.accessToken)
    }

    func testRegisterAndLoginWithEmailPassword() async throws {
        try await app.emailPasswordAuth.registerUser(email: "ana@example.com", password: "secret12")
        let user = try await app.login(credentials: .emailPassword(email: "ana@example.com", password: "secret12"))
        XCTAssertTrue(user.isLoggedIn)
        XCTAssertEqual(app.currentUser?.id, user.id)

        do {
            try await app.emailPasswordAuth.registerUser(email: "ana@example.com", password: "secret12")
            XCTFail("registering twice must fail")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .accountNameInUse)
            XCTAssertFalse(error.message.isEmpty)
        }
        do {
            _ = try await app.login(credentials: .emailPassword(email: "ana@example.com", password: "wrong-password"))
            XCTFail("a wrong password must fail")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .invalidPassword)
            XCTAssertEqual(error.httpStatusCode, 401)
        }
        do {
            try await app.emailPasswordAuth.registerUser(email: "bob@example.com", password: "123")
            XCTFail("a short password must fail")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .badRequest)
        }
    }

    func testCompletionHandlerLogin() async throws {
        let user = try await withCheckedThrowingContinuation { (c: CheckedContinuation<User, Error>) in
            app.login(credentials: .anonymous) { c.resume(with: $0) }
        }
        XCTAssertTrue(user.isLoggedIn)
    }

    func testJWTIsRefusedByADevelopmentServer() async throws {
        do {
            _ = try await app.login(credentials: .jwt(token: "a.b.c"))
            XCTFail("the development server offers no JWT provider")
        } catch let error as AppError {
            XCTAssertNotNil(error.httpStatusCode)
        }
    }

    func testUnreachableServerIsAnHTTPError() async throws {
        let other = App(id: appId + "-x", configuration: OpenRealmSync.AppConfiguration(baseURL: "http://127.0.0.1:1", rootDirectory: rootDirectory))
        do {
            _ = try await other.login(credentials: .anonymous)
            XCTFail("nothing listens on port 1")
        } catch let error as AppError {
            XCTAssertEqual(error.code, .httpRequestFailed)
        }
    }

    func testSeveralUsersSwitchLogOutAndRemove() async throws {
        let ana = try await newUser("ana")
        let bob = try await newUser("bob")
        XCTAssertEqual(app.currentUser, bob)
        XCTAssertEqual(Set(app.allUsers.keys), [ana.id, bob.id])
        app.switch(to: ana)
        XCTAssertEqual(app.currentUser, ana)

        try await ana.logOut()
        XCTAssertEqual(ana.state, .loggedOut)
        XCTAssertFalse(ana.isLoggedIn)
        XCTAssertNil(ana.accessToken)
        XCTAssertEqual(app.currentUser, bob, "the other logged-in user becomes current")
        XCTAssertNotNil(app.allUsers[ana.id], "a logged-out user stays known")

        try await bob.remove()
        XCTAssertEqual(bob.state, .removed)
        XCTAssertNil(app.allUsers[bob.id])
        XCTAssertNil(app.currentUser)
    }

    func testAnonymousLogOutRemovesTheUser() async throws {
        let user = try await app.login(credentials: .anonymous)
        try await user.logOut()
        XCTAssertEqual(user.state, .removed)
        let next = try await app.login(credentials: .anonymous)
        XCTAssertNotEqual(next.id, user.id)
    }

    func testTheUserCacheSurvivesARestart() async throws {
        let user = try await newUser()
        let cacheFile = rootDirectory.appendingPathComponent(appId).appendingPathComponent("users.json")
        let cache = UserCache.load(from: cacheFile)
        XCTAssertEqual(cache.currentUserId, user.id)
        XCTAssertEqual(cache.users.first?.state, .loggedIn)
        // The file keeps the state as the text earlier builds wrote and read.
        XCTAssertTrue(try String(contentsOf: cacheFile, encoding: .utf8).contains(#""state":"loggedIn""#))
        XCTAssertNotNil(cache.users.first?.refreshToken)
        // A new process reads the file: simulate it by forgetting the app's state.
        AppState.forget(id: appId)
        stopServer()
        let restarted = app
        XCTAssertEqual(restarted.currentUser?.id, user.id, "currentUser comes from the cache, without the server")
        XCTAssertTrue(restarted.currentUser?.isLoggedIn ?? false)
        try startServer()
    }

    func testExpiredAccessTokenIsRefreshed() async throws {
        let user = try await newUser()
        let old = try XCTUnwrap(user.accessToken)
        // Pretend the access token expired: a token with an exp in the past.
        let expired = "eyJhbGciOiJIUzI1NiJ9." + Data(#"{"exp":1000}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "") + ".sig"
        try app.state.updateEntry(user.id) { $0.accessToken = expired }
        let fresh = try await user.validAccessToken()
        XCTAssertNotEqual(fresh, expired)
        XCTAssertNotNil(JWTClaims.expiry(of: fresh))
        XCTAssertEqual(user.accessToken, fresh)
        _ = old
    }
}
