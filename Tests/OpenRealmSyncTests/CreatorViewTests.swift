import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Objects a client creates are in that client's view on the server, so other clients'
/// deletions reach the creator (the server-side counterpart is `ViewOwnershipTests`).
final class CreatorViewTests: SyncTestCase {
    /// Opens a realm for a new user subscribed to every Task and Team.
    @MainActor
    func testAnotherClientsDeletionsReachTheCreator() async throws {
        let (a, b, task) = try await openTwoWithATaskUploadedByA()
        try await waitUntil("b to receive the task") { b.refresh(); return b.objects(Task.self).count == 1 }
        let received = try XCTUnwrap(b.objects(Task.self).first)
        try b.write { received.progressMinutes = 75; received.assignee = "Bob" }
        try await waitUntil("a to receive b's change") { a.refresh(); return a.objects(Task.self).first?.progressMinutes == 75 }
        let team = Team(value: ["teamName": "Docs", "members": ["Ana", "Bob Smith"]])
        try a.write { a.add(team); team.tasks.append(task) }
        try await waitUntil("b to receive the team") {
            b.refresh()
            return b.objects(Team.self).first?.members.count == 2 && b.objects(Team.self).first?.tasks.count == 1
        }
        try b.write { b.delete(b.objects(Team.self)) }
        try await waitUntil("a to see the team deleted") { a.refresh(); return a.objects(Team.self).isEmpty }
        try b.write { b.delete(b.objects(Task.self)) }
        try await waitUntil("a to see the task deleted") { a.refresh(); return a.objects(Task.self).isEmpty }
    }
}
