import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// What happens to local writes outside the subscriptions: refused at once when no
/// subscription covers the class; reverted by the server (a compensating write,
/// reported as `SyncError.writeRejected`) when the class is covered but the object is
/// outside every subscription's query.
final class WriteRulesTests: SyncTestCase {
    @MainActor
    func testWritingToAClassNoSubscriptionCoversThrows() async throws {
        let realm = try await Realm(configuration: flexConfig(try await newUser()))
        let subscriptions = realm.subscriptions
        try await subscriptions.update { subscriptions.append(QuerySubscription<Team>(name: "all_teams")) }

        XCTAssertThrowsError(try realm.write { realm.add(Task(value: ["taskName": "Uncovered"])) }) { error in
            guard let error = error as? Realm.Error else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .noSubscriptionForWrite, "the Realm Swift SDK's code for this refusal")
            XCTAssertTrue(error.message.contains("'Task'") && error.message.contains("no subscription covers"), error.message)
        }
        XCTAssertTrue(realm.objects(Task.self).isEmpty, "nothing was committed")
        XCTAssertFalse(realm.isInWriteTransaction)
        // create and objects reached through a link are refused the same way; the whole
        // transaction rolls back, the covered Team included.
        XCTAssertThrowsError(try realm.write { realm.create(Task.self, value: ["taskName": "Created"]) })
        XCTAssertThrowsError(try realm.write {
            let team = Team(value: ["teamName": "Linked"])
            team.tasks.append(Task(value: ["taskName": "Through a link"]))
            realm.add(team)
        })
        XCTAssertTrue(realm.objects(Team.self).isEmpty)
        // A covered class is written.
        try realm.write { realm.add(Team(value: ["teamName": "Covered"])) }
        XCTAssertEqual(realm.objects(Team.self).count, 1)

        // Removing every subscription is allowed; the writes after it are refused.
        try await subscriptions.update { subscriptions.removeAll() }
        XCTAssertThrowsError(try realm.write { realm.add(Team(value: ["teamName": "After removeAll"])) })
        // Subscribing again makes the class writable.
        try await subscriptions.update { subscriptions.append(QuerySubscription<Task> { $0.progressMinutes > 5 }) }
        try realm.write { realm.add(Task(value: ["taskName": "Covered now", "progressMinutes": 10])) }
        XCTAssertEqual(realm.objects(Task.self).count, 1)
    }

    func testLocalRealmsAreNotChecked() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "write-rules-\(appId)", objectTypes: [Task.self, Team.self])
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(Task(value: ["taskName": "Local"])) }
        XCTAssertEqual(realm.objects(Task.self).count, 1)
    }

    @MainActor
    func testCompensatingWriteRevertsAndReportsWriteRejected() async throws {
        let errors = ErrorLog()
        app.syncManager.errorHandler = { error, _ in errors.append(error) }
        defer { app.syncManager.errorHandler = nil }

        let realm = try await Realm(configuration: flexConfig(try await newUser("c")))
        _ = try await realm.objects(Task.self).where { $0.progressMinutes >= 60 }.subscribe(name: "long")
        // Task is covered, so the write is allowed locally; but the object is outside the
        // subscription's query, so the server refuses it.
        let outside = Task(value: ["taskName": "Too short", "progressMinutes": 5])
        let inside = Task(value: ["taskName": "Long enough", "progressMinutes": 90])
        try realm.write {
            realm.add(outside)
            realm.add(inside)
        }
        let outsideId = outside._id
        XCTAssertEqual(realm.objects(Task.self).count, 2)

        try await waitUntil("the writeRejected error") { errors.writeRejected != nil }
        let error = try XCTUnwrap(errors.writeRejected)
        XCTAssertEqual(error.code, .writeRejected)
        XCTAssertEqual(error.serverCode, .writeNotAllowed)
        let info = try XCTUnwrap(error.compensatingWriteInfo)
        XCTAssertEqual(info.count, 1, "\(info)")
        XCTAssertEqual(info.first?.objectType, "Task")
        XCTAssertEqual(info.first?.primaryKey, .objectId(outsideId), "the SDK's AnyRealmValue primary key")
        let sdkTyped: [CompensatingWriteInfo]? = error.compensatingWriteInfo   // the SDK's top-level name
        XCTAssertEqual(sdkTyped?.count, 1)
        XCTAssertTrue(info.first?.reason.contains("not in the session's view") ?? false, info.first?.reason ?? "")
        XCTAssertTrue(error.message.contains("Task"), error.message)

        // The compensating download erases the refused object; the other one stays.
        try await waitUntil("the refused object to be reverted") {
            realm.refresh()
            return realm.object(ofType: Task.self, forPrimaryKey: outsideId) == nil
        }
        XCTAssertEqual(realm.objects(Task.self).map(\.taskName), ["Long enough"])

        // Other clients never see the refused write.
        let other = try await newUser("d")
        var config = other.flexibleSyncConfiguration(initialSubscriptions: { $0.append(QuerySubscription<Task>(name: "all")) })
        config.objectTypes = [Task.self, Team.self]
        let otherRealm = try await Realm(configuration: config, downloadBeforeOpen: .always)
        XCTAssertEqual(otherRealm.objects(Task.self).map(\.taskName), ["Long enough"])
    }
}

/// Errors the app's sync error handler received, from a sync queue.
final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [Error] = []
    func append(_ error: Error) { lock.lock(); errors.append(error); lock.unlock() }
    var all: [Error] { lock.lock(); defer { lock.unlock() }; return errors }
    var writeRejected: SyncError? { all.compactMap { $0 as? SyncError }.first { $0.code == .writeRejected } }
}
