import XCTest
import OpenRealm

/// The seed models of RealmSwiftImportTests (`ImportTask`, `ImportTeam`), written once.
final class SmokeTests: XCTestCase {
    func testBasics() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "smoke"))
        let task = ImportTask(value: ["taskName": "a", "progressMinutes": 70])
        let team = ImportTeam()
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

final class SmokeQueryTests: XCTestCase {
    func testQueries() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "smoke-q"))
        try realm.write {
            for i in 0..<10 {
                let team = ImportTeam()
                team.teamName = "T\(i)"
                if i % 2 == 0 { team.members.append("Bob Smith") }
                team.tasks.append(ImportTask(value: ["taskName": "t\(i)", "progressMinutes": i * 20, "completed": i % 3 == 0]))
                realm.add(team)
            }
        }
        let tasks = realm.objects(ImportTask.self)
        XCTAssertEqual(tasks.count, 10)
        let long = tasks.where { $0.progressMinutes >= 60 }
        XCTAssertEqual(long.count, 7)
        let rql = tasks.filter("progressMinutes >= 60")
        XCTAssertEqual(rql.count, 7)
        XCTAssertEqual(long.queryDescription, rql.queryDescription)
        let bob = realm.objects(ImportTeam.self).where { $0.members.contains("Bob Smith") }
        XCTAssertEqual(bob.count, 5)
        XCTAssertEqual(bob.queryDescription, realm.objects(ImportTeam.self).filter("'Bob Smith' IN members").queryDescription)
        print(bob.queryDescription, long.queryDescription)
        let sorted = tasks.sorted(byKeyPath: "progressMinutes", ascending: false)
        XCTAssertEqual(sorted.first?.progressMinutes, 180)
        XCTAssertEqual(tasks.sum(ofProperty: "progressMinutes") as Int, 900)
        XCTAssertEqual(tasks.max(ofProperty: "progressMinutes") as Int?, 180)
        let avg: Double? = tasks.average(ofProperty: "progressMinutes")
        XCTAssertEqual(avg, 90)
        XCTAssertThrowsError(try tasks.filter("priority IN {1, 2}", arguments: [])) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidQuery)
            print((error as? Realm.Error)?.message ?? "")
        }
        XCTAssertThrowsError(try tasks.filter("progressMinutes >= AND", arguments: [])) { error in
            print((error as? Realm.Error)?.message ?? "")
        }
    }
}

final class SmokeAsyncTests: XCTestCase {
    @MainActor
    func testAsyncOpen() async throws {
        let realm = try await Realm(configuration: .init(inMemoryIdentifier: "smoke-async"))
        try realm.write { realm.add(ImportTask(value: ["taskName": "async"])) }
        XCTAssertEqual(realm.objects(ImportTask.self).count, 1)
    }

    func testAsyncOpenFromNonisolated() async throws {
        let count = try await MainActor.run { () -> Int in
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "smoke-async2"))
            return realm.objects(ImportTask.self).count
        }
        XCTAssertEqual(count, 0)
        let realm = try await Realm(configuration: .init(inMemoryIdentifier: "smoke-async3"))
        _ = realm
    }
}

final class SmokeAsyncHopTests: XCTestCase {
    func testNonisolatedTaskUsesItsRealmAcrossAwaits() async throws {
        let realm = try await Realm(configuration: .init(inMemoryIdentifier: "smoke-hop-\(UUID())"))
        for i in 0..<20 {
            try realm.write { realm.add(ImportTask(value: ["taskName": "t\(i)"])) }
            await Task.yield()
            XCTAssertEqual(realm.objects(ImportTask.self).count, i + 1)
        }
    }
}
