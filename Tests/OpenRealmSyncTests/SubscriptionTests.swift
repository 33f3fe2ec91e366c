import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// The subscription API of the seeds (`Manage Flexible Sync Subscriptions`), against a
/// real server.
final class SubscriptionTests: SyncTestCase {
    var flexSyncConfig: Realm.Configuration!

    nonisolated(nonsending) func openConfig() async throws {
        let user = try await newUser()
        flexSyncConfig = flexConfig(user)
    }

    func testAddASubscription() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(
                QuerySubscription<Team> {
                    $0.teamName == "Developer Education"
                })
        }
        XCTAssertEqual(subscriptions.count, 1)
        XCTAssertEqual(subscriptions.state, .complete)
        let sub = try XCTUnwrap(subscriptions.first)
        XCTAssertNil(sub.name)
        XCTAssertEqual(sub.objectClassName, "Team")
        XCTAssertEqual(sub.queryString, #"teamName == "Developer Education""#)
        XCTAssertLessThanOrEqual(sub.createdAt.timeIntervalSinceNow, 0)
        XCTAssertEqual(sub.createdAt, sub.updatedAt)
    }

    func testAddSeveralTypesAndIdentityRules() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(
                QuerySubscription<Task>(name: "completed-tasks") {
                    $0.completed == true
                })
            subscriptions.append(
                QuerySubscription<Team> {
                    $0.teamName == "Developer Education"
                })
            // The same unnamed query again (typed, then as RQL) changes nothing.
            subscriptions.append(QuerySubscription<Team> { $0.teamName == "Developer Education" })
            subscriptions.append(QuerySubscription<Team>(where: "teamName == $0", "Developer Education"))
            // The same query under another name is another subscription.
            subscriptions.append(QuerySubscription<Team>(name: "dev-ed") { $0.teamName == "Developer Education" })
        }
        XCTAssertEqual(subscriptions.count, 3)
        XCTAssertEqual(subscriptions.map(\.name), ["completed-tasks", nil, "dev-ed"])
        XCTAssertNotNil(subscriptions.first(ofType: Team.self, where: { $0.teamName == "Developer Education" }))
        XCTAssertNotNil(subscriptions.first(ofType: Task.self, where: "completed == true"))
        XCTAssertEqual(subscriptions[2]?.name, "dev-ed")
        XCTAssertNil(subscriptions[3])
        XCTAssertEqual(subscriptions.last?.name, "dev-ed")

        // A name already in the set makes the update throw and commit nothing.
        do {
            try await subscriptions.update {
                subscriptions.append(QuerySubscription<Task>(name: "completed-tasks") { $0.progressMinutes > 10 })
                subscriptions.append(QuerySubscription<Task>(name: "other") { $0.progressMinutes > 10 })
            }
            XCTFail("a duplicate name must fail")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, .subscriptionFailed)
            XCTAssertTrue(error.message.contains("completed-tasks"), error.message)
        }
        XCTAssertEqual(subscriptions.count, 3)
        XCTAssertNil(subscriptions.first(named: "other"))
    }

    @MainActor
    func testSubscribeToAllObjectsOfAType() async throws {
        try await openConfig()
        let realm = try await subscribeToObjectsOfAType()
        XCTAssertEqual(realm.subscriptions.first?.queryString, "TRUEPREDICATE")
    }

    @MainActor
    func subscribeToObjectsOfAType() async throws -> Realm {
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(QuerySubscription<Team>(name: "all_teams"))
        }
        XCTAssertEqual(subscriptions.count, 1) // :remove
        return realm
    }

    @MainActor
    func checkAndAddSubscription() async throws -> Realm {
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        let foundSubscription = subscriptions.first(named: "user_team")
        try await subscriptions.update {
            if foundSubscription != nil {
                foundSubscription!.updateQuery(toType: Team.self, where: {
                    $0.teamName == "Developer Education"
                })
            } else {
                subscriptions.append(
                    QuerySubscription<Team>(name: "user_team") {
                        $0.teamName == "Developer Education"
                    })
            }
        }
        return realm
    }

    @MainActor
    func testCheckBeforeAddingAndUpdateQueries() async throws {
        try await openConfig()
        _ = try await checkAndAddSubscription()
        let realm = try await checkAndAddSubscription()
        XCTAssertEqual(realm.subscriptions.count, 1)

        // Update by query, then by name.
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            if let foundSubscription = subscriptions.first(ofType: Team.self, where: {
                $0.teamName == "Developer Education"
            }) {
                foundSubscription.updateQuery(toType: Team.self, where: {
                    $0.teamName == "Documentation"
                })
            }
        }
        XCTAssertEqual(subscriptions.first(named: "user_team")?.queryString, #"teamName == "Documentation""#)
        let foundSubscription = subscriptions.first(named: "user_team")
        try await subscriptions.update {
            foundSubscription?.updateQuery(toType: Team.self, where: {
                $0.teamName == "Engineering"
            })
        }
        let updated = try XCTUnwrap(subscriptions.first(named: "user_team"))
        XCTAssertEqual(updated.queryString, #"teamName == "Engineering""#)
        XCTAssertGreaterThanOrEqual(updated.updatedAt, updated.createdAt)

        // Another type is refused and nothing is committed.
        do {
            try await subscriptions.update {
                subscriptions.first(named: "user_team")?.updateQuery(toType: Task.self, where: { $0.completed == true })
            }
            XCTFail("updating to another type must fail")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, .subscriptionFailed)
        }
        XCTAssertEqual(subscriptions.first(named: "user_team")?.objectClassName, "Team")
    }

    func testRemoveSubscriptions() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(QuerySubscription<Team>(name: "docs-team") { $0.teamName == "Documentation" })
            subscriptions.append(QuerySubscription<Team>(name: "existing-subscription") { $0.teamName == "Sales" })
            subscriptions.append(QuerySubscription<Task> { $0.assignee == "Joe Doe" })
            subscriptions.append(QuerySubscription<Task> { $0.progressMinutes > 5 })
            subscriptions.append(QuerySubscription<Task>(name: "named-task") { $0.completed == false })
        }
        XCTAssertEqual(subscriptions.count, 5)
        // Look for a specific subscription, and then remove it
        let foundSubscription = subscriptions.first(named: "docs-team")
        try await subscriptions.update {
            subscriptions.remove(foundSubscription!)
        }
        // Or remove a subscription that you know exists without querying for it
        try await subscriptions.update {
            subscriptions.remove(named: "existing-subscription")
        }
        XCTAssertEqual(subscriptions.count, 3)
        try await subscriptions.update {
            subscriptions.remove(ofType: Task.self) { $0.progressMinutes > 5 }
        }
        XCTAssertEqual(subscriptions.count, 2)
        try await subscriptions.update {
            subscriptions.remove {
                QuerySubscription<Task> {
                    $0.assignee == "Joe Doe"
                }
            }
        }
        XCTAssertEqual(subscriptions.map(\.name), ["named-task"])
        try await subscriptions.update {
            subscriptions.append(QuerySubscription<Team> { $0.teamName == "A" })
            subscriptions.append(QuerySubscription<Task> { $0.completed == true })
        }
        try await subscriptions.update {
            subscriptions.removeAll(ofType: Team.self)
        }
        XCTAssertEqual(subscriptions.count, 2)
        try await subscriptions.update {
            subscriptions.removeAll(unnamedOnly: true)
        }
        XCTAssertEqual(subscriptions.map(\.name), ["named-task"])
        try await subscriptions.update {
            subscriptions.removeAll()
        }
        XCTAssertEqual(subscriptions.count, 0)
        XCTAssertEqual(subscriptions.state, .complete)
    }

    func testNestedUpdateThrowsAndCommitsNothing() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        let innerError = UncheckedBox<Error?>(nil)
        do {
            try await subscriptions.update {
                subscriptions.append(QuerySubscription<Team>(name: "outer"))
                subscriptions.update({ subscriptions.append(QuerySubscription<Task>(name: "inner")) },
                                     onComplete: { innerError.value = $0 })
            }
            XCTFail("a nested update must fail")
        } catch let error as Realm.Error {
            XCTAssertTrue(error.message.contains("nested"), error.message)
        }
        XCTAssertEqual(subscriptions.count, 0)
        try await waitUntil("the inner block's error") { innerError.value != nil }
    }

    func testSupersededSetMustBeReadAgain() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let old = realm.subscriptions
        let newer = realm.subscriptions
        try await newer.update { newer.append(QuerySubscription<Team>(name: "all_teams")) }
        XCTAssertEqual(old.state, .superseded)
        do {
            try await old.update { old.append(QuerySubscription<Task>(name: "tasks")) }
            XCTFail("a superseded set cannot update")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, .subscriptionFailed)
        }
        let fresh = realm.subscriptions
        XCTAssertEqual(fresh.count, 1)
        try await fresh.update { fresh.append(QuerySubscription<Task>(name: "tasks")) }
        XCTAssertEqual(fresh.count, 2)
    }

    func testRejectedQueryGoesToErrorAndLaterSetsWork() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        do {
            try await subscriptions.update {
                subscriptions.append(QuerySubscription<Task>(name: "sorted", where: "progressMinutes > 1 SORT(progressMinutes ASC)"))
            }
            XCTFail("SORT is not allowed in subscriptions")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, .subscriptionFailed)
            XCTAssertTrue(error.message.contains("SORT"), error.message)
        }
        guard case .error(let error) = subscriptions.state else { return XCTFail("state is \(subscriptions.state)") }
        XCTAssertTrue("\(error)".contains("SORT"))
        try await subscriptions.update {
            subscriptions.remove(named: "sorted")
            subscriptions.append(QuerySubscription<Task>(name: "fine") { $0.progressMinutes > 1 })
        }
        XCTAssertEqual(subscriptions.state, .complete)
    }

    func testMalformedRQLMakesUpdateThrow() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        do {
            try await subscriptions.update { subscriptions.append(QuerySubscription<Task>(where: "progressMinutes >>> 1")) }
            XCTFail("a malformed query must fail")
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, .invalidQuery)
        }
        XCTAssertEqual(subscriptions.count, 0)
    }

    func testUpdateWithCompletionHandler() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let done = UncheckedBox<(Bool, Error?)>((false, nil))
        let subscriptions = realm.subscriptions
        subscriptions.update({
            subscriptions.append(
                QuerySubscription<Task> {
                    $0.assignee == "John Doe"
                })
        }, onComplete: { error in // error is optional
            done.value = (true, error)
        })
        try await waitUntil("onComplete") { done.value.0 }
        XCTAssertNil(done.value.1)
        XCTAssertEqual(realm.subscriptions.state, .complete)
    }

    func testLocalRealmHasNoSubscriptions() async throws {
        let config = Realm.Configuration(fileURL: rootDirectory.appendingPathComponent("local.realm"), objectTypes: [Task.self, Team.self])
        try FileManager.default.createDirectory(at: rootDirectory, withIntermediateDirectories: true)
        let realm = try await Realm(configuration: config)
        let subscriptions = realm.subscriptions
        XCTAssertEqual(subscriptions.count, 0)
        do {
            try await subscriptions.update { subscriptions.append(QuerySubscription<Team>()) }
            XCTFail("a local realm cannot update subscriptions")
        } catch let error as Realm.Error {
            XCTAssertTrue(error.message.contains("flexible sync"), error.message)
        }
        XCTAssertNil(realm.syncSession)
    }

    func testSubscriptionsPersistInTheFile() async throws {
        try await openConfig()
        let path = try XCTUnwrap(flexSyncConfig.fileURL)
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update { subscriptions.append(QuerySubscription<Team>(name: "all_teams")) }
        // Read them back straight from the file's metadata.
        let store = try XCTUnwrap(realm.subscriptions.store)
        XCTAssertEqual(store.path, path.path)
        XCTAssertEqual(store.load().latest.entries.map(\.name), ["all_teams"])
        XCTAssertEqual(store.load().latest.state, .complete)
        // The file keeps the state as the text earlier builds wrote and read.
        let json = try XCTUnwrap(try store.file.read { try $0.metaBytes(SubscriptionStore.metadataKey) })
        XCTAssertTrue(String(decoding: json, as: UTF8.self).contains(#""state":"complete""#))
    }
}
