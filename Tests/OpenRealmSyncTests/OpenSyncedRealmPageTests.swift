import XCTest
import RealmSwift

/// The flexible sync examples of the seed page "Configure & Open a Synced Realm" (002)
/// that `SyncTests` does not already run, written as the page writes them. (The
/// partition-based ones are in `PartitionSyncTests`.)
final class OpenSyncedRealmPageTests: SyncTestCase {
    /// "Open a synced realm": email/password login, objectTypes, download before open.
    @MainActor
    func testOpenFlexibleSyncRealm() async throws {
        try await writeAsAnotherUser { realm in realm.add(Task(value: ["taskName": "Already there"])) }
        try await registerSeedUser()
        let realm = try await openFlexibleSyncRealm()
        XCTAssertEqual(realm.configuration.syncConfiguration?.enableFlexibleSync, true)
        XCTAssertEqual(realm.syncSession?.parentUser()?.id, App(id: APPID).currentUser?.id)
        // The page adds subscriptions next.
        let subscriptions = realm.subscriptions
        try await subscriptions.update { subscriptions.append(QuerySubscription<Task>(name: "all_tasks")) }
        XCTAssertEqual(realm.objects(Task.self).map(\.taskName), ["Already there"])
    }

    // Opening a realm and accessing it must be done from the same thread.
    // Marking this function as `@MainActor` avoids threading-related issues.
    @MainActor
    func openFlexibleSyncRealm() async throws -> Realm {
        let app = App(id: APPID)
        let credentials = emailPasswordCredentials(app: app)
        let user = try await app.login(credentials: credentials)
        var config = user.flexibleSyncConfiguration()
        // Pass object types to the Flexible Sync configuration
        // as a temporary workaround for not being able to add complete schema
        // for a Flexible Sync app
        config.objectTypes = [Task.self, Team.self]
        let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
        print("Successfully opened realm: \(realm)")
        return realm
    }

    /// "Open a synced realm with Swift concurrency features": a MainActor realm with an
    /// initial subscription to every Todo, downloaded before open.
    @MainActor
    func testMainThreadFunction() async throws {
        // Another user's todo, on the server before the page's function runs.
        let writer = try await newUser("writer")
        var writerConfig = writer.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Todo>(name: "all_todos"))})
        writerConfig.objectTypes = [Todo.self]
        let writerRealm = try await Realm(configuration: writerConfig, downloadBeforeOpen: .always)
        try writerRealm.write { writerRealm.add(Todo(value: ["name": "Buy milk", "owner": "writer", "status": "open"])) }
        try await writerRealm.syncSession!.wait(for: .upload)

        try await mainThreadFunction()
        XCTAssertEqual(usedTodos, ["Buy milk"])
    }

    var usedTodos: [String] = []

    @MainActor
    func mainThreadFunction() async throws {
        // Initialize the app client and authenticate a user
        let app = App(id: APPID)
        let user = try await app.login(credentials: Credentials.anonymous)
        // Configure the synced realm
        var flexSyncConfig = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Todo>(name: "all_todos"))})
        flexSyncConfig.objectTypes = [Todo.self]
        // Open and use the synced realm
        let realm = try await Realm(configuration: flexSyncConfig, actor: MainActor.shared, downloadBeforeOpen: .always)
        try await useTheSyncedRealm(realm: realm)
    }

    @MainActor
    func useTheSyncedRealm(realm: Realm) async throws {
        usedTodos = realm.objects(Todo.self).map(\.name)
        try await realm.asyncWrite {
            realm.add(Todo(value: ["name": "Written on the main actor", "owner": "me", "status": "open"]))
        }
        XCTAssertEqual(realm.objects(Todo.self).count, 2)
        try await realm.syncSession!.wait(for: .upload)
    }

    /// "Download changes before open", with the page's prefixed models.
    @MainActor
    func testGetRealmAfterDownloadingUpdates() async throws {
        // The page's user opens first and subscribes; what it wrote is downloaded by the
        // next `.always` open of the same file.
        let realm = try await getRealmAfterDownloadingUpdates()
        print("The open realm is: \(realm)")
        // Add subscription and work with the realm
        let subscriptions = realm.subscriptions
        try await subscriptions.update { subscriptions.append(QuerySubscription<FlexibleSync_Task>(name: "tasks")) }
        try realm.write { realm.add(FlexibleSync_Task(value: ["taskName": "Downloaded later", "progressMinutes": 3])) }
        XCTAssertEqual(realm.configuration.objectTypes?.count, 2)
        XCTAssertNotNil(realm.schema["FlexibleSync_Team"])
        try await realm.syncSession!.wait(for: .upload)

        // Another user sees it once subscribed.
        let other = try await newUser("other")
        var config = other.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<FlexibleSync_Task>(name: "tasks"))
        })
        config.objectTypes = [FlexibleSync_Task.self, FlexibleSync_Team.self]
        let downloaded = try await Realm(configuration: config, downloadBeforeOpen: .always)
        XCTAssertEqual(downloaded.objects(FlexibleSync_Task.self).map(\.taskName), ["Downloaded later"])
    }

    @MainActor
    func getRealmAfterDownloadingUpdates() async throws -> Realm {
        let app = App(id: APPID)
        let user = try await app.login(credentials: Credentials.anonymous)
        var configuration = user.flexibleSyncConfiguration()
        configuration.objectTypes = [FlexibleSync_Task.self, FlexibleSync_Team.self]
        let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
        print("Successfully opened realm after downloading: \(realm)")
        return realm
    }
}
