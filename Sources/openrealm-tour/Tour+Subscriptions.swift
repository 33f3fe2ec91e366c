import Foundation
import RealmSwift

extension Tour {
    func updateQuery() async throws {
        let subscriptions = bobRealm.subscriptions
        try await subscriptions.update {
            subscriptions.first(named: "long_tasks")?.updateQuery(toType: Task.self, where: { $0.progressMinutes < 60 })
        }
        let sub = subscriptions.first(named: "long_tasks")
        try expect(sub?.queryString == "progressMinutes < 60", "the subscription should now read progressMinutes < 60, not \(sub?.queryString ?? "nil")")
        narrator.say("\"long_tasks\" is now: Task where \(sub!.queryString)")
        try await waitUntil("Bob's realm to follow the new query") { taskNames(bobRealm) == ["Fix a typo"] }
        narrator.say("Bob's tasks: \(taskNames(bobRealm)) — \"Write the tour\" left his device, \"Fix a typo\" arrived")
    }

    func removeSubscriptions() async throws {
        let subscriptions = bobRealm.subscriptions
        try await subscriptions.update {
            subscriptions.remove(named: "long_tasks")
        }
        try await waitUntil("Bob's tasks to leave his realm") { taskNames(bobRealm).isEmpty }
        narrator.say("remove(named: \"long_tasks\"): Bob's realm holds \(bobRealm.objects(Task.self).count) tasks")
        try await subscriptions.update {
            subscriptions.removeAll(ofType: Team.self)
        }
        try await waitUntil("Bob's team to leave his realm") { bobRealm.refresh(); return bobRealm.objects(Team.self).isEmpty }
        try expect(subscriptions.isEmpty, "Bob should have no subscription left, not \(subscriptions.count)")
        narrator.say("removeAll(ofType: Team.self): \(subscriptions.count) subscriptions, \(bobRealm.objects(Team.self).count) teams")

        // With no subscription covering Task, a new Task is refused locally.
        do {
            try bobRealm.write { bobRealm.add(Task(value: ["taskName": "Nobody would see this"])) }
            throw TourFailure(step: nil, cause: "adding a Task with no subscription covering Task should throw")
        } catch let error as Realm.Error {
            try expect(error.message.contains("no subscription covers"), "unexpected error: \(error)")
            narrator.say("with no subscription covering Task, write { add(Task) } throws and commits nothing:")
            narrator.say("  \(error.message)")
        }
    }

    func rejectedQuery() async throws {
        let subscriptions = bobRealm.subscriptions
        do {
            try await subscriptions.update {
                subscriptions.append(QuerySubscription<Task>(name: "sorted", where: "progressMinutes > 0 SORT(progressMinutes ASC)"))
            }
            throw TourFailure(step: nil, cause: "the server should have refused a subscription with SORT")
        } catch let error as Realm.Error {
            try expect(error.code == .subscriptionFailed, "update should throw subscriptionFailed, not \(error.code)")
            narrator.say("update threw Realm.Error.subscriptionFailed")
        }
        guard case .error(let error) = subscriptions.state else {
            throw TourFailure(step: nil, cause: "the set should be in the .error state, not \(subscriptions.state)")
        }
        try expect("\(error)".contains("SORT"), "the error should carry the server's message about SORT: \(error)")
        narrator.say("subscriptions.state is .error with the server's message:")
        narrator.say("  \((error as? Realm.Error)?.message ?? "\(error)")")

        // A later set works again.
        try await subscriptions.update {
            subscriptions.remove(named: "sorted")
            subscriptions.append(QuerySubscription<Task>(name: "all_tasks"))
        }
        try expect(subscriptions.state == .complete, "the next set should be .complete, not \(subscriptions.state)")
        try await waitUntil("Bob to receive every task") { taskNames(bobRealm) == ["Fix a typo", "Write the tour"] }
        narrator.say("the next set (all tasks) is .complete; Bob has \(taskNames(bobRealm))")
    }

    func inMemoryRealm() async throws {
        // The anonymous login returns Bob again: a logged-in anonymous user is reused.
        let user = try await app.login(credentials: Credentials.anonymous)
        try expect(user == bob, "an anonymous login should reuse Bob's logged-in anonymous user")
        var configuration = user.flexibleSyncConfiguration()
        configuration.objectTypes = [Task.self, Team.self]
        configuration.inMemoryIdentifier = "openrealm-tour-in-memory"
        let realm = try await Realm(configuration: configuration)
        try expect(configuration.fileURL == nil, "an in-memory configuration should have no fileURL")
        let subscriptions = realm.subscriptions
        try await subscriptions.update {
            subscriptions.append(QuerySubscription<Task> { $0.assignee == "Bob" })
        }
        realm.refresh()
        let names = realm.objects(Task.self).map(\.taskName)
        try expect(Array(names) == ["Write the tour"], "the in-memory realm should hold Bob's task, not \(Array(names))")
        narrator.say("opened with inMemoryIdentifier \"\(configuration.inMemoryIdentifier!)\": fileURL is nil")
        narrator.say("subscribed to assignee == \"Bob\": it holds \(Array(names)), synced like any realm")
    }
}
