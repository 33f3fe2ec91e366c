import Foundation
import RealmSwift

extension Tour {
    func copyForCarol() async throws {
        try await app.emailPasswordAuth.registerUser(email: "carol@example.com", password: "carol-password")
        let carol = try await app.login(credentials: .emailPassword(email: "carol@example.com", password: "carol-password"))
        var carolConfig = flexSyncConfig(carol)
        carolConfig.fileURL = clientRoot.appendingPathComponent("copied.realm")
        narrator.say("Carol logged in (user \(carol.id)); her copy goes to \(carolConfig.fileURL!.lastPathComponent)")

        // While Alice has changes the server has not acknowledged, the copy is refused.
        let session = aliceRealm.syncSession!
        session.suspend()
        try aliceRealm.write { aliceRealm.add(Task(value: ["taskName": "Written offline", "assignee": "Alice"])) }
        do {
            try aliceRealm.writeCopy(configuration: carolConfig)
            throw TourFailure(step: nil, cause: "writeCopy should refuse while Alice has unuploaded changes")
        } catch let error as Realm.Error {
            narrator.say("with Alice offline and a change pending, writeCopy refuses:")
            narrator.say("  \(error.message)")
        }
        session.resume()
        try await session.wait(for: .upload)
        narrator.say("back online, the change uploaded: the copy can be made")

        try aliceRealm.writeCopy(configuration: carolConfig)
        let carolRealm = try await Realm(configuration: carolConfig)
        aliceRealm.refresh()
        let aliceCount = aliceRealm.objects(Task.self).count
        try expect(carolRealm.objects(Task.self).count == aliceCount,
                   "Carol's copy should hold Alice's \(aliceCount) tasks, not \(carolRealm.objects(Task.self).count)")
        try expect(carolRealm.subscriptions.count == 2, "the copy should carry Alice's 2 subscriptions, not \(carolRealm.subscriptions.count)")
        try expect(carolRealm.syncSession?.parentUser() == carol, "the copy should sync as Carol")
        narrator.say("Carol's realm holds the same \(aliceCount) tasks and Alice's \(carolRealm.subscriptions.count) subscriptions, and syncs as Carol")

        // From now on the two files evolve independently.
        try carolRealm.write { carolRealm.add(Task(value: ["taskName": "Keep an eye on that Gollum", "assignee": "Carol"])) }
        try aliceRealm.write { aliceRealm.add(Task(value: ["taskName": "Review Carol's work", "assignee": "Alice"])) }
        let carolsInCarol = carolRealm.objects(Task.self).where { $0.assignee == "Carol" }.count
        let carolsInAlice = aliceRealm.objects(Task.self).where { $0.assignee == "Carol" }.count
        try expect(carolsInCarol == 1 && carolsInAlice == 0, "Carol's new task should be in her realm only (Carol \(carolsInCarol), Alice \(carolsInAlice))")
        narrator.say("Carol's new task is in her realm (1) and not in Alice's file (0); Alice's new task is in hers only")

        // They are two clients of the server now: each one's change reaches the other through it.
        try await waitUntil("Carol's task to reach Alice and Alice's to reach Carol through the server") {
            aliceRealm.refresh()
            carolRealm.refresh()
            return aliceRealm.objects(Task.self).where { $0.assignee == "Carol" }.count == 1
                && carolRealm.objects(Task.self).where { $0.taskName == "Review Carol's work" }.count == 1
        }
        narrator.say("both are clients of the server in their own right: each change reached the other through it")
    }
}
