import Foundation
import RealmSwift

/// The tour's state — the app, the users and their realms — and its steps in order.
/// Everything runs on the main actor: a realm belongs to the actor that opened it.
@MainActor
final class Tour {
    let narrator = Narrator()
    let app: App
    let clientRoot: URL

    var alice: User!
    var bob: User!
    var aliceRealm: Realm!
    var bobRealm: Realm!

    init(baseURL: String, clientRoot: URL) {
        self.clientRoot = clientRoot
        // One app id per run, so that every run starts from an empty server store.
        app = App(id: "openrealm-tour-\(UUID().uuidString.prefix(8).lowercased())",
                  configuration: OpenRealmSync.AppConfiguration(baseURL: baseURL, rootDirectory: clientRoot))
    }

    /// The steps, in order; the first that fails throws a ``TourFailure`` naming it.
    func run() async throws {
        try await narrator.step("Alice registers and logs in with email/password; Bob logs in anonymously") { try await logIn() }
        try await narrator.step("Alice opens her synced realm and subscribes with subscriptions.update { append(...) }") { try await openAlice() }
        try await narrator.step("Bob opens his realm and subscribes with .subscribe(name:waitForSync:)") { try await openBob() }
        try await narrator.step("Alice writes; Bob receives what his subscriptions cover, and only that") { try await aliceWrites() }
        try await narrator.step("Bob changes the task; the change reaches Alice") { try await bobWrites() }
        try await narrator.step("Bob changes a subscription's query with updateQuery(toType:where:)") { try await updateQuery() }
        try await narrator.step("Bob removes subscriptions with remove(named:) and removeAll(ofType:); writes to uncovered classes are refused") { try await removeSubscriptions() }
        try await narrator.step("A query the server refuses (SORT) puts the set in the .error state") { try await rejectedQuery() }
        try await narrator.step("An in-memory synced realm: synced data, no file") { try await inMemoryRealm() }
        try await narrator.step("writeCopy(configuration:) gives Carol a copy of Alice's realm; both evolve independently") { try await copyForCarol() }
    }

    /// Logs every user out (which stops their sync sessions).
    func finish() async {
        for user in app.allUsers.values where user.isLoggedIn {
            try? await user.logOut()
        }
    }

    /// The seed's configuration: flexible sync, with the model's two classes.
    func flexSyncConfig(_ user: User) -> Realm.Configuration {
        var flexSyncConfig = user.flexibleSyncConfiguration()
        flexSyncConfig.objectTypes = [Task.self, Team.self]
        return flexSyncConfig
    }

    func taskNames(_ realm: Realm) -> [String] {
        realm.refresh()
        return realm.objects(Task.self).map(\.taskName).sorted()
    }

    // MARK: Users and opening

    func logIn() async throws {
        try await app.emailPasswordAuth.registerUser(email: "alice@example.com", password: "alice-password")
        alice = try await app.login(credentials: .emailPassword(email: "alice@example.com", password: "alice-password"))
        narrator.say("Alice registered and logged in: user \(alice.id)")
        bob = try await app.login(credentials: Credentials.anonymous)
        narrator.say("Bob logged in anonymously: user \(bob.id)")
        try expect(alice.isLoggedIn && bob.isLoggedIn, "both users should be logged in")
        try expect(alice.id != bob.id, "Alice and Bob should be different users")
        try expect(app.allUsers.count == 2, "the app should know 2 users, not \(app.allUsers.count)")
        try expect(app.currentUser == bob, "the last user to log in (Bob) should be the current user")
        narrator.say("app.currentUser is Bob, the last to log in; app.allUsers holds both")
    }

    func openAlice() async throws {
        let realm = try await Realm(configuration: flexSyncConfig(alice), downloadBeforeOpen: .always)
        narrator.say("opened \(realm.configuration.fileURL?.lastPathComponent ?? "?") with downloadBeforeOpen: .always")
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(QuerySubscription<Task>(name: "all_tasks"))
            subscriptions.append(QuerySubscription<Team>(name: "all_teams"))
        }
        try expect(subscriptions.count == 2, "Alice should have 2 subscriptions, not \(subscriptions.count)")
        try expect(subscriptions.state == .complete, "Alice's subscription set should be .complete, not \(subscriptions.state)")
        for sub in subscriptions {
            narrator.say("subscription \"\(sub.name ?? "")\": \(sub.objectClassName) where \(sub.queryString)")
        }
        narrator.say("state: \(subscriptions.state) (the server has sent everything they match)")
        aliceRealm = realm
    }

    func openBob() async throws {
        let realm = try await Realm(configuration: flexSyncConfig(bob))
        let longTasks = try await realm.objects(Task.self)
            .where { $0.progressMinutes >= 60 }
            .subscribe(name: "long_tasks", waitForSync: .onCreation)
        let teams = try await realm.objects(Team.self)
            .where { $0.teamName == "Developer Education" }
            .subscribe(name: "team_developer_education")
        try expect(realm.subscriptions.count == 2, "Bob should have 2 subscriptions, not \(realm.subscriptions.count)")
        try expect(longTasks.isEmpty && teams.isEmpty, "nothing has been written yet, Bob's results should be empty")
        for sub in realm.subscriptions {
            narrator.say("subscription \"\(sub.name ?? "")\": \(sub.objectClassName) where \(sub.queryString)")
        }
        narrator.say("his results are empty: nobody has written anything yet")
        bobRealm = realm
    }

    // MARK: Writing and receiving

    func aliceWrites() async throws {
        // Bob observes his tasks; the downloads arrive in write transactions that notify.
        let inserted = Counter()
        let token = bobRealm.objects(Task.self).observe(on: DispatchQueue(label: "openrealm-tour.observer")) { change in
            if case .update(_, _, let insertions, _) = change { inserted.add(insertions.count) }
        }
        defer { token.invalidate() }

        let long = Task(value: ["taskName": "Write the tour", "progressMinutes": 90, "assignee": "Alice"])
        let short = Task(value: ["taskName": "Fix a typo", "progressMinutes": 15])
        let team = Team(value: ["teamName": "Developer Education", "members": ["Alice", "Bob"]])
        try aliceRealm.write {
            aliceRealm.add(long)
            aliceRealm.add(short)
            aliceRealm.add(team)
            team.tasks.append(long)
        }
        narrator.say("Alice wrote \"Write the tour\" (90 min), \"Fix a typo\" (15 min) and the team \"Developer Education\"")
        try await aliceRealm.syncSession!.wait(for: .upload)
        narrator.say("syncSession.wait(for: .upload) returned: the server has them")

        try await waitUntil("Bob to receive the long task and the team") {
            bobRealm.refresh()
            return bobRealm.objects(Task.self).count == 1 && bobRealm.objects(Team.self).count == 1
        }
        try await waitUntil("Bob's observer to be notified") { inserted.value == 1 }
        let received = bobRealm.objects(Task.self).first!
        try expect(received.taskName == "Write the tour" && received._id == long._id,
                   "Bob should have received \"Write the tour\", not \(received.taskName)")
        try expect(bobRealm.objects(Team.self).first?.tasks.first?._id == long._id, "the team's task list should have arrived too")
        narrator.say("Bob's observer saw 1 insertion: \"\(received.taskName)\" (progressMinutes >= 60)")
        narrator.say("\"Fix a typo\" (15 min) matches none of Bob's subscriptions: it never reaches his device")
    }

    func bobWrites() async throws {
        let task = bobRealm.objects(Task.self).first!
        try bobRealm.write {
            task.assignee = "Bob"
            task.progressMinutes = 120
        }
        narrator.say("Bob set assignee = \"Bob\" and progressMinutes = 120")
        try await waitUntil("Alice to receive Bob's change") {
            aliceRealm.refresh()
            return aliceRealm.objects(Task.self).where { $0.taskName == "Write the tour" }.first?.assignee == "Bob"
        }
        let seen = aliceRealm.objects(Task.self).where { $0.taskName == "Write the tour" }.first!
        try expect(seen.progressMinutes == 120, "Alice should see 120 minutes, not \(seen.progressMinutes)")
        narrator.say("Alice's realm now says: \"\(seen.taskName)\", assignee \(seen.assignee ?? "nil"), \(seen.progressMinutes) min")
    }
}
