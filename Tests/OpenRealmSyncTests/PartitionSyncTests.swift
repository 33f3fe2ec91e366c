import Foundation
import OpenRealmServer
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Partition-based sync end to end: the server runs an app configured with
/// `"partitionField": "_partition"`, clients open `user.configuration(partitionValue:)`.
/// Models may declare the partition property (``PartitionedTask``) or not (the seed's
/// ``QsTask``: the server then keeps each object's partition in a hidden column).
/// Includes the seed's "open a synced realm as a different sync user" scenario
/// (`writeCopy(configuration:)` between two partition-based users) and its offline open.
class PartitionSyncTests: SyncTestCase {
    override var serverApp: ServerAppConfiguration? {
        var config = ServerAppConfiguration.development(appId: appId)
        config.partitionField = "_partition"
        return config
    }

    /// Opens `partitionValue` for a new email user, with the model `types`.
    nonisolated(nonsending) func openPartition(_ name: String, _ partitionValue: String,
                                               types: [ObjectBase.Type] = [PartitionedTask.self]) async throws -> Realm {
        var config = try await newUser(name).configuration(partitionValue: partitionValue)
        config.objectTypes = types
        return try await Realm(configuration: config, downloadBeforeOpen: .always)
    }

    @MainActor
    func testAPartitionHoldsExactlyItsObjects() async throws {
        let a = try await openPartition("a", "team-a")
        let b = try await openPartition("b", "team-a")
        let c = try await openPartition("c", "team-c")
        XCTAssertEqual(a.configuration.syncConfiguration?.enableFlexibleSync, false)
        XCTAssertEqual(a.subscriptions.count, 0, "a partition-based realm has no subscriptions")

        try a.write { a.add(PartitionedTask(value: ["_partition": "team-a", "name": "Shared in A", "owner": "a"])) }
        try c.write { c.add(PartitionedTask(value: ["_partition": "team-c", "name": "Only in C", "owner": "c"])) }
        try await a.syncSession!.wait(for: .upload)
        try await c.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive A's task") { b.refresh(); return b.objects(PartitionedTask.self).count == 1 }
        XCTAssertEqual(b.objects(PartitionedTask.self).first?.name, "Shared in A")
        try await b.syncSession!.wait(for: .download)
        try await c.syncSession!.wait(for: .download)
        b.refresh()
        c.refresh()
        XCTAssertEqual(b.objects(PartitionedTask.self).map(\.name), ["Shared in A"], "team-c's task never reaches team-a")
        XCTAssertEqual(c.objects(PartitionedTask.self).map(\.name), ["Only in C"])

        // Changes travel both ways within the partition.
        let task = b.objects(PartitionedTask.self).first!
        try b.write { task.owner = "b" }
        try await waitUntil("a to receive b's change") { a.refresh(); return a.objects(PartitionedTask.self).first?.owner == "b" }
    }

    @MainActor
    func testAWriteToAnotherPartitionIsRejected() async throws {
        let errors = ErrorLog()
        app.syncManager.errorHandler = { error, _ in errors.append(error) }
        defer { app.syncManager.errorHandler = nil }
        let a = try await openPartition("a", "team-a")
        let stray = PartitionedTask(value: ["_partition": "team-z", "name": "Wrong partition", "owner": "a"])
        try a.write { a.add(stray) }
        let strayId = stray._id
        try await waitUntil("the writeRejected error") { errors.writeRejected != nil }
        XCTAssertEqual(errors.writeRejected?.compensatingWriteInfo?.first?.objectType, "PartitionedTask")
        try await waitUntil("the stray object to be reverted") {
            a.refresh()
            return a.object(ofType: PartitionedTask.self, forPrimaryKey: strayId) == nil
        }
    }

    @MainActor
    func testAModelWithoutThePartitionPropertySyncsByPartition() async throws {
        let a = try await openPartition("a", "team-a", types: [QsTask.self, PartitionedTask.self])
        let b = try await openPartition("b", "team-a", types: [QsTask.self, PartitionedTask.self])
        let c = try await openPartition("c", "team-c", types: [QsTask.self])
        try a.write {
            a.add(QsTask(value: ["name": "Plain in A", "owner": "a"]))
            a.add(PartitionedTask(value: ["_partition": "team-a", "name": "Declared in A", "owner": "a"]))
        }
        try c.write { c.add(QsTask(value: ["name": "Plain in C", "owner": "c"])) }
        try await a.syncSession!.wait(for: .upload)
        try await c.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive A's tasks") {
            b.refresh()
            return b.objects(QsTask.self).count == 1 && b.objects(PartitionedTask.self).count == 1
        }
        try await b.syncSession!.wait(for: .download)
        try await c.syncSession!.wait(for: .download)
        b.refresh()
        c.refresh()
        XCTAssertEqual(b.objects(QsTask.self).map(\.name), ["Plain in A"], "team-c's task never reaches team-a")
        XCTAssertEqual(c.objects(QsTask.self).map(\.name), ["Plain in C"], "team-a's task never reaches team-c")

        // Edits and erases travel within the partition; the object keeps its partition.
        let plain = b.objects(QsTask.self).first!
        try b.write { plain.owner = "b" }
        try await waitUntil("a to receive b's change") { a.refresh(); return a.objects(QsTask.self).first?.owner == "b" }
        let late = try await openPartition("late", "team-a", types: [QsTask.self])
        XCTAssertEqual(late.objects(QsTask.self).map(\.owner), ["b"], "a new client of team-a bootstraps the task")
        let lateC = try await openPartition("late-c", "team-c", types: [QsTask.self])
        XCTAssertEqual(lateC.objects(QsTask.self).map(\.name), ["Plain in C"])
        try a.write { a.delete(a.objects(QsTask.self)) }
        try await waitUntil("b to see the erase") { b.refresh(); return b.objects(QsTask.self).isEmpty }
        c.refresh()
        XCTAssertEqual(c.objects(QsTask.self).count, 1)
    }

    @MainActor
    func testAnObjectOfAnotherPartitionCannotBeTakenOverByItsPrimaryKey() async throws {
        let errors = ErrorLog()
        app.syncManager.errorHandler = { error, _ in errors.append(error) }
        defer { app.syncManager.errorHandler = nil }
        let a = try await openPartition("a", "team-a", types: [QsTask.self])
        let task = QsTask(value: ["name": "A's", "owner": "a"])
        try a.write { a.add(task) }
        let id = task._id
        try await a.syncSession!.wait(for: .upload)
        // A client of team-c creates an object with the same primary key: the server
        // refuses it (the object is not in team-c), and team-a's object is unchanged.
        let c = try await openPartition("c", "team-c", types: [QsTask.self])
        try c.write { c.add(QsTask(value: ["_id": id, "name": "Taken over", "owner": "c"])) }
        try await waitUntil("the writeRejected error") { errors.writeRejected != nil }
        try await waitUntil("c's copy to be reverted") { c.refresh(); return c.object(ofType: QsTask.self, forPrimaryKey: id) == nil }
        try await a.syncSession!.wait(for: .download)
        a.refresh()
        XCTAssertEqual(a.object(ofType: QsTask.self, forPrimaryKey: id)?.name, "A's")
    }

    @MainActor
    func testWriteCopyForAnotherPartitionUser() async throws {
        // The data the seed expects in frodo's realm: three of frodo's tasks.
        let seeder = try await openPartition("seeder", "Some Partition Value", types: [QsTask.self])
        try seeder.write {
            for i in 0..<3 { seeder.add(QsTask(value: ["name": "Task \(i)", "owner": "Frodo"])) }
        }
        try await seeder.syncSession!.wait(for: .upload)
        try await convertSyncedRealmForAnotherUser()
    }

    // The seed's function, as written (XCTAssert calls included), but for two changes:
    // sam logs in with email/password (a second anonymous login would return frodo, a
    // logged-in anonymous user being reused), and the copy goes to the test's directory.
    // Its model declares no partition property: the server files each task under the
    // partition of the session that created it.
    @MainActor
    func convertSyncedRealmForAnotherUser() async throws {
        let app = App(id: YOUR_APP_SERVICES_APP_ID)
        // Log in the user whose realm you want to use with another sync user
        let frodoBaggins = try await app.login(credentials: Credentials.anonymous)
        var frodoConfig = frodoBaggins.configuration(partitionValue: "Some Partition Value")
        frodoConfig.objectTypes = [QsTask.self]
        // Open the synced realm, and confirm it contains the data we want
        // the other user to be able to access.
        let frodoRealm = try await Realm(configuration: frodoConfig, downloadBeforeOpen: .always)
        let frodoRealmTasks = frodoRealm.objects(QsTask.self)
        let frodoSyncedTasks = frodoRealmTasks.where { $0.owner == "Frodo" }
        XCTAssertEqual(frodoSyncedTasks.count, 3)
        print("Successfully opened frodo's realm and it contains this many tasks: \(frodoSyncedTasks.count)")
        // Log in as the user who will work with frodo's synced realm
        try await registerSeedUser()
        let samwiseGamgee = try await app.login(credentials: emailPasswordCredentials(app: app))
        var samConfig = samwiseGamgee.configuration(partitionValue: "Some Partition Value")
        samConfig.objectTypes = [QsTask.self]
        // Specify an output directory for the copied realm
        // (the page asks FileManager for the documents directory; the test keeps its
        // files in its own temporary directory, removed after the test)
        let outputDir: URL = rootDirectory
        // Append a file name to complete the path
        let copiedRealmFilePath = outputDir.appendingPathComponent("copied.realm")
        // Update the config file path to the path where you want to save the copied realm
        samConfig.fileURL = copiedRealmFilePath
        // Make a copy of frodo's realm that uses sam's config
        try frodoRealm.writeCopy(configuration: samConfig)
        // Open sam's realm, and see that it contains the same data as frodo's realm
        let samRealm = try await Realm(configuration: samConfig)
        let samRealmTasks = samRealm.objects(QsTask.self)
        var samSyncedTasks = samRealmTasks.where { $0.owner == "Frodo" }
        print("Successfully opened sam's realm and it contains this many tasks: \(samSyncedTasks.count)")
        XCTAssertEqual(frodoSyncedTasks.count, samSyncedTasks.count)
        // Add a task to sam's realm
        let task = QsTask(value: ["name": "Keep an eye on that Gollum", "owner": "Sam"])
        try! samRealm.write {
            samRealm.add(task)
        }
        // See that the new task reflects in sam's realm, but not frodo's
        samSyncedTasks = samRealmTasks.where { $0.owner == "Sam" }
        XCTAssertEqual(samSyncedTasks.count, 1)
        let samTasksInFrodoRealm = frodoRealmTasks.where { $0.owner == "Sam" }
        XCTAssertEqual(samTasksInFrodoRealm.count, 0)

        // Beyond the page: the copy is a client of sam's in its own right, so its task
        // reaches frodo through the server.
        XCTAssertEqual(samRealm.syncSession?.parentUser(), samwiseGamgee)
        try await waitUntil("sam's task to reach frodo") { frodoRealm.refresh(); return samTasksInFrodoRealm.count == 1 }
    }

    /// The page's "Open a synced realm offline": the cached user opens its partition
    /// realm without the server.
    @MainActor
    func testOpenPartitionRealmOffline() async throws {
        let first = try await app.login(credentials: Credentials.anonymous)
        var firstConfig = first.configuration(partitionValue: "Some Partition Value")
        firstConfig.objectTypes = [QsTask.self]
        let online = try await Realm(configuration: firstConfig, downloadBeforeOpen: .always)
        try online.write { online.add(QsTask(value: ["name": "Cached", "owner": "me"])) }
        try await online.syncSession!.wait(for: .upload)
        stopServer()

        let app = App(id: YOUR_APP_SERVICES_APP_ID)
        // Log the user into the backend app.
        // The first time you login, the user must have a network connection.
        func getUser() async throws -> User {
            // Check for an existing user.
            // If the user is offline but credentials are
            // cached, this returns the existing user.
            if let user = app.currentUser {
                return user
            } else {
                // If the device has no cached user
                // credentials, log them in.
                let app = App(id: YOUR_APP_SERVICES_APP_ID)
                let loggedInUser = try await app.login(credentials: Credentials.anonymous)
                return loggedInUser
            }
        }
        let user = try await getUser()
        var configuration = user.configuration(partitionValue: "Some Partition Value")
        configuration.objectTypes = [QsTask.self]
        // Open a Realm with this configuration.
        // If you do not require the app to download updates
        // before opening the realm, the realm just opens, even if
        // offline.
        let realm = try await Realm(configuration: configuration)
        print("Successfully opened realm: \(realm)")
        XCTAssertEqual(user.id, first.id)
        XCTAssertEqual(realm.objects(QsTask.self).map(\.name), ["Cached"])
        try startServer()
    }
}

/// The same pages against a server started without a configuration (development mode):
/// the app becomes partition-based when its first client binds with a partition value.
final class DevelopmentPartitionSyncTests: PartitionSyncTests {
    override var serverApp: ServerAppConfiguration? { nil }

    @MainActor
    func testTheAppKeepsTheModeOfItsFirstClientAndRefusesTheOther() async throws {
        _ = try await openPartition("first", "team-a", types: [QsTask.self])
        var flexible = try await newUser("flexible").flexibleSyncConfiguration()
        flexible.objectTypes = [QsTask.self]
        do {
            _ = try await Realm(configuration: flexible, downloadBeforeOpen: .always)
            XCTFail("a flexible client of a partition-based development app must be refused")
        } catch let error as SyncError {
            XCTAssertEqual(error.serverCode, .wrongSyncMode, "\(error)")
        }
        // After a restart too: the mode is kept in the app's store.
        stopServer()
        try startServer()
        do {
            _ = try await Realm(configuration: flexible, downloadBeforeOpen: .always)
            XCTFail("the mode was forgotten by a restart")
        } catch let error as SyncError {
            XCTAssertEqual(error.serverCode, .wrongSyncMode, "\(error)")
        }
    }
}

/// The seed's quick start task: no partition property.
class QsTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var owner: String?
}

/// A task that declares the app's partition field.
class PartitionedTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var _partition: String
    @Persisted var name: String
    @Persisted var owner: String?
}
