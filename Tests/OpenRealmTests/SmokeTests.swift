import XCTest
import OpenRealm

final class SmokeTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
    @Persisted var dueDate: Date
}
final class SmokeTeam: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<SmokeTask>
    @Persisted var members: List<String>
}

final class SmokeTests: XCTestCase {
    func testBasics() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "smoke"))
        let task = SmokeTask(value: ["taskName": "a", "progressMinutes": 70])
        let team = SmokeTeam()
        team.teamName = "Docs"
        team.members.append("Bob Smith")
        team.tasks.append(task)
        try realm.write { realm.add(team) }
        XCTAssertEqual(task.realm, realm)
        XCTAssertEqual(task.taskName, "a")
        XCTAssertEqual(task.progressMinutes, 70)
        XCTAssertEqual(team.tasks.count, 1)
        XCTAssertEqual(team.tasks[0].taskName, "a")
        XCTAssertEqual(Array(team.members), ["Bob Smith"])
        try realm.write { task.progressMinutes += 5 }
        XCTAssertEqual(task.progressMinutes, 75)
        print(team)
    }
}
