import Foundation
import XCTest
import RealmSwift

/// Completion handlers and settings written as Realm SDK code writes them in Swift 6:
/// closures that mutate the caller's local variables. The SDK's callback parameters
/// accept such closures (they are `@preconcurrency` or not `@Sendable`); so must
/// OpenRealm's, or this file does not compile.
final class CallbackCaptureTests: SyncTestCase {
    func testCompletionHandlersMayMutateCapturedVariables() throws {
        let app = self.app
        var user: User?
        let loggedIn = expectation(description: "login")
        app.login(credentials: .anonymous) { result in
            user = try? result.get()
            loggedIn.fulfill()
        }
        wait(for: [loggedIn], timeout: 15)
        let loggedInUser = try XCTUnwrap(user)

        var registrationError: Error?
        let registered = expectation(description: "register")
        app.emailPasswordAuth.registerUser(email: "capture@example.com", password: "password1") { error in
            registrationError = error
            registered.fulfill()
        }
        wait(for: [registered], timeout: 15)
        XCTAssertNil(registrationError)

        var reported: [Error] = []
        app.syncManager.errorHandler = { error, _ in reported.append(error) }
        app.syncManager.errorHandler = nil
        XCTAssertTrue(reported.isEmpty)

        var resets = 0
        var config = loggedInUser.flexibleSyncConfiguration(
            clientResetMode: .recoverOrDiscardUnsyncedChanges(beforeReset: { _ in resets += 1 }, afterReset: { _, _ in resets += 1 }),
            initialSubscriptions: { subscriptions in subscriptions.append(QuerySubscription<Task>(name: "all")) })
        config.objectTypes = [Task.self, Team.self]
        var compactChecks = 0
        config.shouldCompactOnLaunch = { _, _ in
            compactChecks += 1
            return false
        }
        var opened: Realm?
        let open = expectation(description: "open")
        Realm.asyncOpen(configuration: config, callbackQueue: .main) { result in
            opened = try? result.get()
            open.fulfill()
        }
        wait(for: [open], timeout: 30)
        let realm = try XCTUnwrap(opened)
        XCTAssertEqual(compactChecks, 1, "the compaction check ran once, at the first open")
        XCTAssertEqual(resets, 0)

        var subscriptionError: Error?? = .none
        let updated = expectation(description: "update")
        let subscriptions = realm.subscriptions
        subscriptions.update({ subscriptions.append(QuerySubscription<Team>(name: "teams")) }, onComplete: { error in
            subscriptionError = error
            updated.fulfill()
        })
        wait(for: [updated], timeout: 15)
        XCTAssertNotNil(subscriptionError, "called")
        XCTAssertNil(subscriptionError ?? nil)

        var loggedOut = false
        let out = expectation(description: "logout")
        loggedInUser.logOut { error in
            loggedOut = error == nil
            out.fulfill()
        }
        wait(for: [out], timeout: 15)
        XCTAssertTrue(loggedOut)
    }
}
