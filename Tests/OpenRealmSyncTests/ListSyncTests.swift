import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Concurrent edits of one list by two real clients through a real server: a client
/// that was offline transforms what it downloads against its own unacknowledged list
/// edits (`docs/PROTOCOL.md` §6.6), so both clients and the server end with one list.
final class ListSyncTests: SyncTestCase {
    /// Opens a realm for a new user subscribed to every Task and Team.
    /// The members of the one team in `realm` (nil while it has no team).
    func members(_ realm: Realm) -> [String]? {
        realm.refresh()
        return realm.objects(Team.self).first.map { Array($0.members) }
    }

    /// `a` goes offline, both clients edit the team's members, `b`'s edits reach the
    /// server first, then `a` comes back; every peer must end with `expected`.
    @MainActor
    func editConcurrently(_ a: Realm, _ b: Realm, offline: (List<String>) -> Void, online: (List<String>) -> Void,
                          expected: [String], file: StaticString = #filePath, line: UInt = #line) async throws {
        let session = try await goOffline(a)
        let teamA = try XCTUnwrap(a.objects(Team.self).first)
        try a.write { offline(teamA.members) }
        b.refresh()
        let teamB = try XCTUnwrap(b.objects(Team.self).first)
        try b.write { online(teamB.members) }
        try await b.syncSession!.wait(for: .upload)
        XCTAssertTrue(session.hasUnuploadedChanges, file: file, line: line)

        session.resume()
        try await session.wait(for: .upload)
        try await waitUntil("a to converge on \(expected)", file: file, line: line) { members(a) == expected }
        try await waitUntil("b to converge on \(expected)", file: file, line: line) { members(b) == expected }
    }

    @MainActor
    func testConcurrentListInsertsAndErasesConverge() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        let (_, b) = try await openAllTasksAndTeams("b")
        try a.write { a.add(Team(value: ["teamName": "Docs", "members": ["1", "2", "3", "4"]])) }
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive the team") { members(b) == ["1", "2", "3", "4"] }

        // Both insert at the front and each erases another element. b's changeset was
        // integrated first, so its insert stays first; both erasures happen once each.
        try await editConcurrently(a, b, offline: { list in
            list.insert("a", at: 0)     // a 1 2 3 4
            list.remove(at: 3)          // a 1 2 4
        }, online: { list in
            list.insert("b", at: 0)     // b 1 2 3 4
            list.remove(at: 2)          // b 1 3 4
        }, expected: ["b", "a", "1", "4"])

        // Both erase the same element (it goes once) and insert in its place; a also
        // appends and b sets an element a did not touch.
        try await editConcurrently(a, b, offline: { list in
            list.remove(at: 2)          // b a 4
            list.insert("x", at: 2)     // b a x 4
            list.append("tail")         // b a x 4 tail
        }, online: { list in
            list.remove(at: 2)          // b a 4
            list.insert("y", at: 2)     // b a y 4
            list[0] = "B"               // B a y 4
        }, expected: ["B", "a", "y", "x", "4", "tail"])

        // The server holds the same list: a new client downloads it.
        let (_, c) = try await openAllTasksAndTeams("c")
        try await waitUntil("c to download the team") { members(c) != nil }
        XCTAssertEqual(members(c), ["B", "a", "y", "x", "4", "tail"])
    }

    /// Both clients stay online and edit the list at once, round after round, without
    /// waiting for each other: downloads then often arrive while a client's own edits
    /// are not acknowledged yet, and must be transformed against them.
    @MainActor
    func testListEditsWhileBothAreOnlineConverge() async throws {
        let (_, a) = try await openAllTasksAndTeams("a")
        let (_, b) = try await openAllTasksAndTeams("b")
        try a.write { a.add(Team(value: ["teamName": "Docs", "members": ["1", "2", "3"]])) }
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to receive the team") { members(b) == ["1", "2", "3"] }
        var seed: UInt64 = 7
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        var erases = 0
        for round in 0..<30 {
            for (name, realm) in [("a", a), ("b", b)] {
                realm.refresh()
                let list = try XCTUnwrap(realm.objects(Team.self).first).members
                try realm.write {
                    if list.count > 2 && next(3) == 0 { list.remove(at: next(list.count)); erases += 1 }
                    list.insert("\(name)\(round)", at: next(list.count + 1))
                }
            }
            if round % 5 == 0 { try await _Concurrency.Task.sleep(nanoseconds: UInt64(next(20)) * 1_000_000) }
        }
        try await a.syncSession!.wait(for: .upload)
        try await b.syncSession!.wait(for: .upload)
        try await a.syncSession!.wait(for: .download)
        try await b.syncSession!.wait(for: .download)
        try await waitUntil("a and b to converge") { members(a) != nil && members(a) == members(b) }
        let final = try XCTUnwrap(members(a))
        // Every insert survives once; an erase removes one element (or nothing, when
        // both clients erased the same one).
        XCTAssertEqual(Set(final).count, final.count, "\(final)")
        XCTAssertGreaterThanOrEqual(final.count, 3 + 60 - erases, "\(final)")
        XCTAssertLessThanOrEqual(final.count, 3 + 60, "\(final)")
        let (_, c) = try await openAllTasksAndTeams("c")
        try await waitUntil("c to download the team") { members(c) != nil }
        XCTAssertEqual(members(c), final)
    }
}
