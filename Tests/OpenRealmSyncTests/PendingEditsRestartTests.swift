import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Pending list edits transformed by a download survive a restart: the next download
/// after the restart is transformed against them as transformed, and their upload ends
/// with the list every peer computes (no element lost or doubled).
final class PendingEditsRestartTests: SyncTestCase {
    func members(_ realm: Realm) -> [String]? {
        realm.refresh()
        return realm.objects(Team.self).first.map { Array($0.members) }
    }

    nonisolated(nonsending) func open(_ user: User, waiting: Bool = false) async throws -> Realm {
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Team>(name: "teams"))
        })
        config.objectTypes = [Task.self, Team.self]
        return try await Realm(configuration: config, downloadBeforeOpen: waiting ? .always : .never)
    }

    /// a (user `userA`) and b hold a's team (members 1, 2, 3). a's uploads are held back
    /// (it stays connected, so downloads reach it as live changesets, not as a re-bind's
    /// resend of the whole object). a inserts; b inserts at the same place, and its
    /// insert reaches a first: counted as integrated first, it moves a's pending insert
    /// to 1. a is returned in `opened`, the only reference to it, so that the test can
    /// close it.
    @MainActor
    func pendingInsertOfAAfterB(_ opened: inout Realm?) async throws -> (userA: User, b: Realm, path: String) {
        let userA = try await newUser("a")
        let a = try await open(userA, waiting: true)
        let b = try await openClient("b", [Task.self, Team.self]) { $0.append(QuerySubscription<Team>(name: "teams")) }.1
        try a.write { a.add(Team(value: ["teamName": "Docs", "members": ["1", "2", "3"]])) }
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive the team") { members(b) == ["1", "2", "3"] }

        let path = a._coordinator.path
        holdUploads(a, true)
        addTeardownBlock { _ = SyncSession.uploadsHeld.withLock { $0.remove(path) } }
        try a.write { a.objects(Team.self).first!.members.insert("a", at: 0) }            // a 1 2 3
        try b.write { b.objects(Team.self).first!.members.insert("b", at: 0) }            // b 1 2 3
        try await b.syncSession!.wait(for: .upload)
        try await waitUntil("a to integrate b's insert") { members(a) == ["b", "a", "1", "2", "3"] }
        opened = a
        return (userA, b, path)
    }

    @MainActor
    func testTransformedPendingEditsSurviveARestart() async throws {
        var a: Realm?
        let (userA, b, path) = try await pendingInsertOfAAfterB(&a)
        XCTAssertTrue(a!.syncSession!.hasUnuploadedChanges)

        // Restart a: its session and the edits it held in memory are gone, and the file
        // is closed and opened again while the old session may still be letting go of it.
        SyncSessionRegistry.shared.stopSessions(of: userA)
        try await waitUntil("a's session to stop") { SyncSessionRegistry.shared.existing(path: path) == nil }
        a = nil
        let reopened = try await open(userA)
        try await reopened.syncSession!.wait(for: .download)
        XCTAssertEqual(members(reopened), ["b", "a", "1", "2", "3"])

        // b inserts between its own element and the next. a must put it before its own
        // pending insert (at 1 as a holds it, not at 0 as it was committed), where the
        // server will put it.
        try b.write { b.objects(Team.self).first!.members.insert("c", at: 1) }            // b c 1 2 3
        try await b.syncSession!.wait(for: .upload)
        try await waitUntil("a to integrate b's second insert") { members(reopened)?.count == 6 }
        XCTAssertEqual(members(reopened), ["b", "c", "a", "1", "2", "3"])

        holdUploads(reopened, false)
        try await reopened.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive a's insert") { members(b) == ["b", "c", "a", "1", "2", "3"] }
        XCTAssertEqual(members(reopened), ["b", "c", "a", "1", "2", "3"])
        let c = try await openClient("c", [Task.self, Team.self]) { $0.append(QuerySubscription<Team>(name: "teams")) }.1
        try await waitUntil("c to download the team") { members(c) != nil }
        XCTAssertEqual(members(c), ["b", "c", "a", "1", "2", "3"])
    }

    /// A pending edit transformed by two downloads is stored as the second left it (the
    /// stored encodings are kept between downloads and must not go stale).
    @MainActor
    func testAPendingEditTransformedTwiceIsStoredAsTransformedLast() async throws {
        var a: Realm?
        let (userA, b, path) = try await pendingInsertOfAAfterB(&a)
        try b.write { b.objects(Team.self).first!.members.insert("x", at: 0) }            // x b 1 2 3
        try await b.syncSession!.wait(for: .upload)
        try await waitUntil("a to integrate b's second insert") { members(a!) == ["x", "b", "a", "1", "2", "3"] }

        SyncSessionRegistry.shared.stopSessions(of: userA)
        try await waitUntil("a's session to stop") { SyncSessionRegistry.shared.existing(path: path) == nil }
        a = nil
        let reopened = try await open(userA)
        try await reopened.syncSession!.wait(for: .download)
        XCTAssertEqual(members(reopened), ["x", "b", "a", "1", "2", "3"])

        // b's next insert lands where a holds its own pending insert (index 2 after the
        // second transform, 1 after the first): it goes before it, as on the server.
        try b.write { b.objects(Team.self).first!.members.insert("c", at: 2) }            // x b c 1 2 3
        try await b.syncSession!.wait(for: .upload)
        try await waitUntil("a to integrate b's third insert") { members(reopened)?.count == 7 }
        XCTAssertEqual(members(reopened), ["x", "b", "c", "a", "1", "2", "3"])

        holdUploads(reopened, false)
        try await reopened.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive a's insert") { members(b)?.count == 7 }
        XCTAssertEqual(members(b), members(reopened))
    }
}
