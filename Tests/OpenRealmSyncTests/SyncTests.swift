import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Data moving between clients through a real server. The tests run on the main actor:
/// realms belong to the thread (or actor) that opened them.
final class SyncTests: SyncTestCase {
    /// Opens a realm for a new user subscribed to every Task and Team.
    func tasks(_ realm: Realm, named name: String) -> Results<Task> {
        realm.refresh()
        return realm.objects(Task.self).where { $0.taskName == name }
    }

    @MainActor
    func testTwoClientsConverge() async throws {
        let (a, b, task) = try await openTwoWithATaskUploadedByA()
        try await waitUntil("b to receive the task") { tasks(b, named: "Write docs").count == 1 }
        let received = try XCTUnwrap(tasks(b, named: "Write docs").first)
        XCTAssertEqual(received._id, task._id)
        XCTAssertEqual(received.progressMinutes, 10)

        // b changes it; a sees the change.
        try b.write { received.progressMinutes = 75; received.assignee = "Bob" }
        try await waitUntil("a to receive b's change") { tasks(a, named: "Write docs").first?.progressMinutes == 75 }
        XCTAssertEqual(tasks(a, named: "Write docs").first?.assignee, "Bob")

        // Lists travel too.
        let team = Team(value: ["teamName": "Docs", "members": ["Ana", "Bob Smith"]])
        try a.write { a.add(team); team.tasks.append(task) }
        try await waitUntil("b to receive the team") {
            b.refresh()
            return b.objects(Team.self).first?.members.count == 2 && b.objects(Team.self).first?.tasks.count == 1
        }
        XCTAssertEqual(Array(b.objects(Team.self).first!.members), ["Ana", "Bob Smith"])

        // Deletions travel, to the object's creator too.
        try b.write { b.delete(b.objects(Team.self)) }
        try await waitUntil("a to see the team deleted") { a.refresh(); return a.objects(Team.self).isEmpty }
    }

    @MainActor
    func testObserversAreNotifiedOfDownloads() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        let (_, b) = try await openAllTasksAndTeams("b")
        let inserted = UncheckedBox(0)
        let token = b.objects(Task.self).observe(on: DispatchQueue(label: "observer")) { change in
            if case .update(_, _, let insertions, _) = change { inserted.value += insertions.count }
        }
        defer { token.invalidate() }
        try a.write { a.add(Task(value: ["taskName": "Observed"])) }
        try await waitUntil("the observer to see the insertion") { inserted.value == 1 }
    }

    @MainActor
    func testOfflineWritesUploadWhenTheConnectionReturns() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        let (_, b) = try await openAllTasksAndTeams("b")
        let session = try await goOffline(a)
        XCTAssertEqual(session.state, .paused)
        try a.write {
            a.add(Task(value: ["taskName": "Offline 1"]))
            a.add(Task(value: ["taskName": "Offline 2"]))
        }
        XCTAssertTrue(session.hasUnuploadedChanges)
        b.refresh()
        XCTAssertEqual(b.objects(Task.self).count, 0)
        session.resume()
        try await session.wait(for: .upload)
        XCTAssertFalse(session.hasUnuploadedChanges)
        try await waitUntil("b to receive the offline writes") {
            tasks(b, named: "Offline 1").count == 1 && tasks(b, named: "Offline 2").count == 1
        }
    }

    @MainActor
    func testObjectsLeaveTheRealmWhenTheyLeaveTheView() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        try a.write {
            a.add(Task(value: ["taskName": "Short", "progressMinutes": 5]))
            a.add(Task(value: ["taskName": "Long", "progressMinutes": 90]))
        }
        try await a.syncSession!.wait(for: .upload)

        let user = try await newUser("c")
        let realm = try await Realm(configuration: flexConfig(user))
        let results = try await realm.objects(Task.self).where { $0.progressMinutes >= 60 }.subscribe()
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(realm.objects(Task.self).count, 1, "only what the subscription covers reaches the device")
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.removeAll()
            subscriptions.append(QuerySubscription<Task> { $0.progressMinutes < 60 })
        }
        realm.refresh()
        XCTAssertEqual(realm.objects(Task.self).map(\.taskName), ["Short"])
    }

    @MainActor
    func testDownloadBeforeOpenAndOfflineOpen() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        try a.write { a.add(Task(value: ["taskName": "Before open"])) }
        try await a.syncSession!.wait(for: .upload)

        let user = try await newUser("d")
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Task>(name: "all_tasks"))
        })
        config.objectTypes = [Task.self, Team.self]
        XCTAssertNotNil(config.syncConfiguration)
        XCTAssertTrue(config.syncConfiguration!.enableFlexibleSync)
        let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
        XCTAssertEqual(realm.objects(Task.self).count, 1, ".always downloads before returning")

        // Offline: the server is gone, the cached user still opens the realm with .never.
        stopServer()
        let cached = try XCTUnwrap(app.currentUser)
        XCTAssertEqual(cached.id, user.id)
        var offline = cached.flexibleSyncConfiguration()
        offline.objectTypes = [Task.self, Team.self]
        let again = try await Realm(configuration: offline, downloadBeforeOpen: .never)
        XCTAssertEqual(again.objects(Task.self).count, 1)
        try again.write { again.add(Task(value: ["taskName": "Written offline"])) }
        try startServer()
    }

    @MainActor
    func testInitialSubscriptionsRerunOnOpen() async throws {
        let user = try await newUser()
        let secondsInAWeek: TimeInterval = 604800
        let dateLastWeek = (Date.now - secondsInAWeek)
        let dateNextWeek = (Date.now + secondsInAWeek)
        var flexSyncConfig = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(
                QuerySubscription<Task> {
                    $0.dueDate > dateLastWeek && $0.dueDate < dateNextWeek
                })
        }, rerunOnOpen: true)
        flexSyncConfig.objectTypes = [Task.self, Team.self]
        let realm = try await Realm(configuration: flexSyncConfig, actor: MainActor.shared, downloadBeforeOpen: .always)
        XCTAssertEqual(realm.subscriptions.count, 1)
        XCTAssertEqual(realm.subscriptions.state, .complete)
    }

    @MainActor
    func testResultsSubscribeModesAndUnsubscribe() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        try a.write {
            a.add(Team(value: ["teamName": "Developer Education", "members": ["Bob Smith"]]))
            a.add(Team(value: ["teamName": "Sales", "members": ["Ana"]]))
            a.add(Task(value: ["taskName": "Open task", "completed": false]))
        }
        try await a.syncSession!.wait(for: .upload)

        let user = try await newUser("e")
        let flexSyncConfig = flexConfig(user)
        let realm = try await Realm(configuration: flexSyncConfig)
        let results = try await realm.objects(Team.self)
            .where { $0.members.contains("Bob Smith") }
            .subscribe(
                name: "bob_smith_teams",
                waitForSync: .onCreation)
        XCTAssertEqual(results.count, 1)
        // Reassigning the name to another query.
        let sales = try await realm.objects(Team.self).where { $0.teamName == "Sales" }
            .subscribe(name: "bob_smith_teams", waitForSync: .always)
        XCTAssertEqual(sales.count, 1)
        XCTAssertEqual(realm.subscriptions.count, 1)
        XCTAssertEqual(realm.subscriptions.first?.queryString, #"teamName == "Sales""#)

        let results2 = try await realm.objects(Task.self).where { $0.completed == false }.subscribe(waitForSync: .never)
        XCTAssertEqual(realm.subscriptions.count, 2)
        results2.unsubscribe()
        try await waitUntil("the unsubscription") { realm.subscriptions.count == 1 }
        XCTAssertEqual(realm.subscriptions.first?.name, "bob_smith_teams")

        // removeAll(unnamedOnly:) of the seed.
        _ = try await realm.objects(Team.self).where { $0.teamName == "Developer Education" }.subscribe(name: "team_developer_education")
        _ = try await realm.objects(Task.self).where { $0.completed == false }.subscribe()
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.removeAll(unnamedOnly: true)
        }
        XCTAssertEqual(Set(subscriptions.compactMap(\.name)), ["bob_smith_teams", "team_developer_education"])
    }

    @MainActor
    func testSubscribeTimesOutWhenTheServerIsGone() async throws {
        let user = try await newUser()
        let realm = try await Realm(configuration: flexConfig(user))
        try await waitUntil("the session to connect") { realm.syncSession?.connectionState == .connected }
        realm.syncSession!.suspend()
        do {
            _ = try await realm.objects(Task.self).subscribe(name: "all", waitForSync: .always, timeout: 0.5)
            XCTFail("no server: the wait must time out")
        } catch let error as SyncError {
            XCTAssertEqual(error.code, .timedOut)
        }
        realm.syncSession!.resume()
    }

    @MainActor
    func testInMemorySyncedRealm() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        try a.write { a.add(Task(value: ["taskName": "Shared"])) }
        try await a.syncSession!.wait(for: .upload)

        let user = try await app.login(credentials: Credentials.anonymous)
        var configuration = user.flexibleSyncConfiguration()
        configuration.objectTypes = [Task.self, Team.self]
        configuration.inMemoryIdentifier = "YOUR-IDENTIFIER-STRING-\(appId)"
        let realm = try await Realm(configuration: configuration)
        XCTAssertNil(configuration.fileURL)
        let subscriptions = realm.subscriptions
        try await subscriptions.update { subscriptions.append(QuerySubscription<Task>(name: "all")) }
        realm.refresh()
        XCTAssertEqual(realm.objects(Task.self).count, 1)
    }

    @MainActor
    func testWriteCopyForAnotherUser() async throws {
        let (_, frodoRealm) = try await openAllTasksAndTeams("frodo")
        try frodoRealm.write {
            for i in 0..<3 { frodoRealm.add(Task(value: ["taskName": "Frodo \(i)", "assignee": "Frodo"])) }
        }
        let samwise = try await newUser("sam")
        var samConfig = samwise.flexibleSyncConfiguration()
        samConfig.objectTypes = [Task.self, Team.self]
        samConfig.fileURL = rootDirectory.appendingPathComponent("copied.realm")
        // Refused while local changes are not uploaded.
        frodoRealm.syncSession!.suspend()
        try frodoRealm.write { frodoRealm.add(Task(value: ["taskName": "Pending", "assignee": "Frodo"])) }
        XCTAssertThrowsError(try frodoRealm.writeCopy(configuration: samConfig)) { error in
            XCTAssertTrue("\(error)".contains("acknowledged"), "\(error)")
        }
        frodoRealm.syncSession!.resume()
        try await frodoRealm.syncSession!.wait(for: .upload)
        try frodoRealm.writeCopy(configuration: samConfig)

        let samRealm = try await Realm(configuration: samConfig)
        let frodoSyncedTasks = frodoRealm.objects(Task.self).where { $0.assignee == "Frodo" }
        var samSyncedTasks = samRealm.objects(Task.self).where { $0.assignee == "Frodo" }
        XCTAssertEqual(frodoSyncedTasks.count, 4)
        XCTAssertEqual(frodoSyncedTasks.count, samSyncedTasks.count)
        XCTAssertEqual(samRealm.subscriptions.count, 2, "subscriptions are carried")
        let task = Task(value: ["taskName": "Keep an eye on that Gollum", "assignee": "Sam"])
        try! samRealm.write {
            samRealm.add(task)
        }
        samSyncedTasks = samRealm.objects(Task.self).where { $0.assignee == "Sam" }
        XCTAssertEqual(samSyncedTasks.count, 1)
        frodoRealm.refresh()
        XCTAssertEqual(frodoRealm.objects(Task.self).where { $0.assignee == "Sam" }.count, 0)
        XCTAssertNotEqual(samRealm.syncSession?.parentUser(), frodoRealm.syncSession?.parentUser())
    }
}
