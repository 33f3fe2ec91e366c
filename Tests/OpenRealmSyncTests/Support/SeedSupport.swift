import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// What the seed pages assume exists around their examples: an app id constant, a
/// helper returning email/password credentials of a registered user, a custom global
/// actor, and the extra models of "Configure & Open a Synced Realm".
extension SyncTestCase {
    /// The pages' `APPID` / `YOUR_APP_SERVICES_APP_ID`: the test's app, whose base URL
    /// `App(id:)` takes from the `App(id:configuration:)` made first (`SyncTestCase.app`).
    var APPID: String { _ = app; return appId }
    var YOUR_APP_SERVICES_APP_ID: String { APPID }

    /// Registers the user that `emailPasswordCredentials(app:)` logs in.
    nonisolated(nonsending) func registerSeedUser() async throws {
        try await app.emailPasswordAuth.registerUser(email: "seed-\(appId)@example.com", password: "seed-password")
    }

    /// The pages' helper: credentials of a registered email/password user.
    func emailPasswordCredentials(app: App) -> Credentials {
        .emailPassword(email: "seed-\(appId)@example.com", password: "seed-password")
    }

    /// Writes through another user's realm subscribed to every Task and Team, and waits
    /// until the server has it.
    /// A new user named `name` and their realm, subscribed to every task and team and
    /// downloaded before it opens.
    nonisolated(nonsending) func openAllTasksAndTeams(_ name: String) async throws -> (User, Realm) {
        let user = try await newUser(name)
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Task>(name: "all_tasks"))
            subs.append(QuerySubscription<Team>(name: "all_teams"))
        })
        config.objectTypes = [Task.self, Team.self]
        let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
        return (user, realm)
    }

    /// The realms of two new users, `a` and `b`, subscribed to every task and team, and
    /// a task ("Write docs", 10 minutes) that `a` wrote and uploaded.
    nonisolated(nonsending) func openTwoWithATaskUploadedByA() async throws -> (a: Realm, b: Realm, task: Task) {
        let (_, a) = try await openAllTasksAndTeams("a")
        let (_, b) = try await openAllTasksAndTeams("b")
        let task = Task(value: ["taskName": "Write docs", "progressMinutes": 10])
        try a.write { a.add(task) }
        try await a.syncSession!.wait(for: .upload)
        return (a, b, task)
    }

    nonisolated(nonsending) func writeAsAnotherUser(_ body: @escaping (Realm) -> Void) async throws {
        let (_, realm) = try await openAllTasksAndTeams("writer")
        try realm.write { body(realm) }
        try await realm.syncSession!.wait(for: .upload)
    }
}

/// The page's custom global actor.
@globalActor actor CustomGlobalActor: GlobalActor {
    static let shared = CustomGlobalActor()
}

/// The model of the page's actor example.
class Todo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var owner: String
    @Persisted var status: String
}

/// The models of the page's `downloadBeforeOpen` example.
class FlexibleSync_Task: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
}

class FlexibleSync_Team: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<FlexibleSync_Task>
    @Persisted var members: List<String>
}
