import Foundation
import RealmSwift
import XCTest

// The seeds' models exactly as the pages write them, through `import RealmSwift`.
final class ImportTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
    @Persisted var dueDate: Date
}

final class ImportTeam: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<ImportTask>
    @Persisted var members: List<String>
}

final class RealmSwiftImportTests: XCTestCase {
    func testSeedModelsAndQueriesThroughImportRealmSwift() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "import-realmswift-\(UUID())")
        config.objectTypes = [ImportTask.self, ImportTeam.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            let team = ImportTeam()
            team.teamName = "Developer Education"
            team.members.append("Bob Smith")
            team.tasks.append(ImportTask(value: ["taskName": "Write docs", "progressMinutes": 90, "completed": true]))
            team.tasks.append(ImportTask(value: ["taskName": "Review", "assignee": "John Doe", "progressMinutes": 30]))
            realm.add(team)
        }
        XCTAssertEqual(realm.objects(ImportTask.self).where { $0.progressMinutes >= 60 }.count, 1)
        XCTAssertEqual(realm.objects(ImportTeam.self).where { $0.teamName == "Developer Education" }.count, 1)
        XCTAssertEqual(realm.objects(ImportTeam.self).where { $0.members.contains("Bob Smith") }.count, 1)
        XCTAssertEqual(realm.objects(ImportTask.self).where { $0.completed == true && $0.progressMinutes > 120 }.count, 0)
        XCTAssertEqual(realm.objects(ImportTask.self).where { $0.assignee == "John Doe" }.count, 1)
        XCTAssertEqual(realm.objects(ImportTask.self).filter("progressMinutes IN {30, 90}").count, 2)
    }
}
