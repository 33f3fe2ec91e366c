import XCTest
import RealmSwift

/// The examples of the seed page "Manage Flexible Sync Subscriptions" (000) that
/// `SubscriptionTests` and `SyncTests` do not already run, written as the page writes
/// them, against the test's server.
final class SubscriptionsPageTests: SyncTestCase {
    var flexSyncConfig: Realm.Configuration!

    nonisolated(nonsending) func openConfig() async throws {
        flexSyncConfig = flexConfig(try await newUser())
    }

    /// "About the examples on this page": the app, the login and the configuration.
    @MainActor
    func testTheSetupOfThePage() async throws {
        try await registerSeedUser()
        var opened = false
        let app = App(id: APPID)
        do {
            let credentials = emailPasswordCredentials(app: app)
            let user = try await app.login(credentials: credentials)
            var flexSyncConfig = user.flexibleSyncConfiguration()
            flexSyncConfig.objectTypes = [Task.self, Team.self]
            do {
                // Open the synced realm and manage Flexible Sync subscriptions
                let realm = try await Realm(configuration: flexSyncConfig)
                XCTAssertNotNil(realm.syncSession)
                opened = true
            } catch {
                print("Failed to open realm: \(error.localizedDescription)")
                // handle error
            }
        } catch {
            XCTFail("Login failed: \(error.localizedDescription)")
        }
        XCTAssertTrue(opened)
    }

    /// "Subscribe to a query": an unnamed subscription from `.subscribe()`.
    @MainActor
    func testSubscribeToAQuery() async throws {
        try await writeAsAnotherUser { realm in
            realm.add(Task(value: ["taskName": "Long", "progressMinutes": 75]))
            realm.add(Task(value: ["taskName": "Short", "progressMinutes": 5]))
        }
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let results = try await realm.objects(Task.self)
            .where { $0.progressMinutes >= 60 }.subscribe()
        // Go on to work with subscribed results
        XCTAssertEqual(results.map(\.taskName), ["Long"])
        XCTAssertEqual(realm.subscriptions.count, 1)
        XCTAssertNil(realm.subscriptions.first?.name, "an unnamed subscription")
        XCTAssertEqual(realm.subscriptions.first?.queryString, "progressMinutes >= 60")
    }

    /// "Subscribe to a query with a subscription name".
    @MainActor
    func testSubscribeToAQueryWithASubscriptionName() async throws {
        try await writeAsAnotherUser { realm in
            realm.add(Team(value: ["teamName": "Developer Education"]))
            realm.add(Team(value: ["teamName": "Sales"]))
        }
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let results = try await realm.objects(Team.self)
            .where { $0.teamName == "Developer Education" }
            .subscribe(name: "team_developer_education")
        // Go on to work with subscribed results
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(realm.subscriptions.first(named: "team_developer_education")?.queryString, #"teamName == "Developer Education""#)
    }

    /// "Unsubscribe from a query": only that subscription goes, and the call does not wait.
    @MainActor
    func testUnsubscribeFromAQuery() async throws {
        try await writeAsAnotherUser { realm in realm.add(Task(value: ["taskName": "Open", "completed": false])) }
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        _ = try await realm.objects(Team.self).subscribe(name: "all_teams")
        let results = try await realm.objects(Task.self).where { $0.completed == false }.subscribe()
        // Go on to work with subscribed results.
        XCTAssertEqual(results.count, 1)
        // Later...
        results.unsubscribe()
        try await waitUntil("the unsubscription to commit") { realm.subscriptions.count == 1 }
        XCTAssertEqual(realm.subscriptions.first?.name, "all_teams")
        try await waitUntil("the task to leave the realm") { realm.refresh(); return realm.objects(Task.self).isEmpty }
    }

    /// "Subscribe to an actor-confined query" on the MainActor.
    @MainActor
    func testSubscribeOnTheMainActor() async throws {
        try await writeAsAnotherUser { realm in realm.add(Team(value: ["teamName": "Developer Education"])) }
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig, actor: MainActor.shared)
        let results = try await realm.objects(Team.self)
            .where { $0.teamName == "Developer Education" }
            .subscribe(name: "team_developer_education")
        // Go on to work with subscribed results
        XCTAssertEqual(results.count, 1)
    }

    /// "Subscribe to an actor-confined query" on a custom global actor.
    func testSubscribeOnACustomActor() async throws {
        try await writeAsAnotherUser { realm in realm.add(Team(value: ["teamName": "Developer Education"])) }
        try await openConfig()
        let count = try await Self.subscribeOnCustomActor(flexSyncConfig)
        XCTAssertEqual(count, 1)
    }

    @CustomGlobalActor
    static func subscribeOnCustomActor(_ flexSyncConfig: Realm.Configuration) async throws -> Int {
        let realm = try await Realm(configuration: flexSyncConfig, actor: CustomGlobalActor.shared)
        let results = try await realm.objects(Team.self)
            .where { $0.teamName == "Developer Education" }
            .subscribe(name: "team_developer_education")
        // Go on to work with subscribed results
        return results.count
    }

    /// "Manage subscriptions manually": a named subscription and its query string.
    @MainActor
    func testNamedSubscriptionExample() async throws {
        try await openConfig()
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(
                QuerySubscription<Task>(name: "long-running-completed") {
                    $0.completed == true && $0.progressMinutes > 120
                })
        }
        let found = try XCTUnwrap(subscriptions.first(named: "long-running-completed"))
        XCTAssertEqual(found.objectClassName, "Task")
        XCTAssertEqual(found.queryString, "completed == true AND progressMinutes > 120")
        XCTAssertEqual(subscriptions.state, .complete)
    }

    /// "Bootstrap the realm with initial subscriptions".
    @MainActor
    func testInitialSubscriptions() async throws {
        try await writeAsAnotherUser { realm in
            realm.add(Team(value: ["teamName": "Developer Education"]))
            realm.add(Team(value: ["teamName": "Sales"]))
        }
        let user = try await newUser()
        var flexSyncConfig = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(
                QuerySubscription<Team> {
                    $0.teamName == "Developer Education"
                })
        })
        flexSyncConfig.objectTypes = [Task.self, Team.self]
        let realm = try await Realm(configuration: flexSyncConfig, downloadBeforeOpen: .always)
        XCTAssertEqual(realm.subscriptions.count, 1)
        XCTAssertEqual(realm.objects(Team.self).map(\.teamName), ["Developer Education"])
        // A second open does not run them again (no rerunOnOpen): a removal stays.
        let subscriptions = realm.subscriptions
        try await subscriptions.update { subscriptions.removeAll() }
        let again = try await Realm(configuration: flexSyncConfig)
        XCTAssertEqual(again.subscriptions.count, 0)
    }

    /// "Remove all subscriptions": allowed, and the realm empties.
    @MainActor
    func testRemoveAllSubscriptionsEmptiesTheRealm() async throws {
        try await writeAsAnotherUser { realm in realm.add(Team(value: ["teamName": "Developer Education"])) }
        try await openConfig()
        let realm = try await getRealmAfterRemovingAllSubscriptions()
        XCTAssertEqual(realm.subscriptions.count, 0)
        try await waitUntil("the team to leave the realm") { realm.refresh(); return realm.objects(Team.self).isEmpty }
    }

    @MainActor
    func getRealmAfterRemovingAllSubscriptions() async throws -> Realm {
        let realm = try await Realm(configuration: flexSyncConfig)
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(QuerySubscription<Team>(name: "all_teams"))
        }
        XCTAssertEqual(realm.objects(Team.self).count, 1)
        try await subscriptions.update {
            subscriptions.removeAll()
        }
        return realm
    }
}
