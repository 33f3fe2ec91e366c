import Foundation
import XCTest
import OpenRealm

// MARK: - Models

final class FTProject: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var budget: Int
    @Persisted var steps: List<FTStep>
    @Persisted var labels: List<String>
    @Persisted var tags: MutableSet<String>
}

final class FTStep: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
    @Persisted var done: Bool
    @Persisted(originProperty: "steps") var projects: LinkingObjects<FTProject>
}

/// Carries a value across threads in tests that check thread confinement by hand.
final class FTBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

// MARK: - Tests

final class FreezeTests: XCTestCase {
    static let types: [ObjectBase.Type] = [FTProject.self, FTStep.self]
    var directory: URL!
    var config: Realm.Configuration!
    var realm: Realm!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
        config = Realm.Configuration(fileURL: directory.appendingPathComponent("freeze.realm"), objectTypes: Self.types)
        realm = try Realm(configuration: config)
        try realm.write {
            let project = realm.create(FTProject.self, value: ["name": "Apollo", "budget": 100])
            for i in 0..<4 {
                project.steps.append(realm.create(FTStep.self, value: ["id": i, "title": "step \(i)", "done": i < 2]))
            }
            project.labels.append(objectsIn: ["space", "moon"])
            project.tags.insert("nasa")
            realm.create(FTProject.self, value: ["name": "Gemini", "budget": 50])
        }
    }

    override func tearDownWithError() throws {
        realm = nil
    }

    var apollo: FTProject { realm.object(ofType: FTProject.self, forPrimaryKey: "Apollo")! }

    // MARK: Frozen realms

    func testFrozenRealmDoesNotChangeAfterWrites() throws {
        let frozen = realm.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(realm.isFrozen)
        XCTAssertTrue(frozen.freeze() === frozen)
        let frozenSteps = frozen.objects(FTStep.self)
        XCTAssertTrue(frozenSteps.isFrozen)
        try realm.write {
            realm.create(FTStep.self, value: ["id": 10, "title": "new"])
            apollo.budget = 1
            realm.delete(realm.objects(FTStep.self).where { $0.id == 0 })
        }
        XCTAssertEqual(realm.objects(FTStep.self).count, 4)
        XCTAssertEqual(frozenSteps.count, 4)
        XCTAssertEqual(frozenSteps.map(\.id), [0, 1, 2, 3])
        XCTAssertEqual(frozen.objects(FTStep.self).where { $0.done }.map(\.id), [0, 1])
        XCTAssertEqual(frozen.object(ofType: FTProject.self, forPrimaryKey: "Apollo")?.budget, 100)
        XCTAssertNotNil(frozen.object(ofType: FTStep.self, forPrimaryKey: 0))
        XCTAssertNil(frozen.object(ofType: FTStep.self, forPrimaryKey: 10))
        // Refresh does not move a frozen realm.
        XCTAssertFalse(frozen.refresh())
        XCTAssertEqual(frozen.objects(FTStep.self).count, 4)
    }

    func testFrozenRealmCannotWrite() throws {
        let frozen = realm.freeze()
        let error = qtRealmError { try frozen.write { } }
        XCTAssertEqual(error?.code, .readOnly)
        XCTAssertEqual(qtRealmError { try frozen.write {} }?.code, .readOnly)
        XCTAssertFalse(frozen.isInWriteTransaction)
    }

    // MARK: Frozen objects

    func testFrozenObjectsKeepTheirValues() throws {
        let live = apollo
        let frozen = live.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(live.isFrozen)
        XCTAssertTrue(frozen.realm?.isFrozen ?? false)
        XCTAssertTrue(frozen.freeze() === frozen)
        let frozenSteps = frozen.steps
        XCTAssertTrue(frozenSteps.isFrozen)
        try realm.write {
            live.budget = 7
            live.labels.append("mars")
            live.steps.removeFirst()
            live.steps[0].title = "renamed"
        }
        XCTAssertEqual(live.budget, 7)
        XCTAssertEqual(frozen.budget, 100)
        XCTAssertEqual(Array(frozen.labels), ["space", "moon"])
        XCTAssertEqual(frozenSteps.map(\.id), [0, 1, 2, 3])
        XCTAssertEqual(frozen.steps[1].title, "step 1")
        XCTAssertEqual(frozen.steps[0].projects.count, 1)
        // Deleted in the live realm: the frozen object still reads its values.
        let frozenStep = realm.object(ofType: FTStep.self, forPrimaryKey: 3)!.freeze()
        try realm.write { realm.delete(realm.object(ofType: FTStep.self, forPrimaryKey: 3)!) }
        XCTAssertFalse(frozenStep.isInvalidated)
        XCTAssertEqual(frozenStep.title, "step 3")
        XCTAssertNil(frozenStep.thaw())
    }

    func testThawedObjectsAndRealmsAreLive() throws {
        let frozen = apollo.freeze()
        try realm.write { apollo.budget = 200 }
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.budget, 200)
        try thawed.realm!.write { thawed.budget = 300 }
        XCTAssertEqual(apollo.budget, 300)
        XCTAssertEqual(frozen.budget, 100)
        let thawedRealm = frozen.realm!.thaw()
        XCTAssertFalse(thawedRealm.isFrozen)
        XCTAssertEqual(thawedRealm.object(ofType: FTProject.self, forPrimaryKey: "Apollo")?.budget, 300)
        // A live object thaws to itself.
        XCTAssertTrue(apollo.thaw() === apollo || apollo.thaw()?.budget == 300)
        XCTAssertTrue(realm.thaw() === realm)
    }

    // MARK: Frozen collections

    func testFrozenListsSetsAndLinkingObjects() throws {
        let steps = apollo.steps, labels = apollo.labels, tags = apollo.tags
        let frozenSteps = steps.freeze(), frozenLabels = labels.freeze(), frozenTags = tags.freeze()
        XCTAssertTrue(frozenTags.isFrozen)
        let backlinks = realm.object(ofType: FTStep.self, forPrimaryKey: 0)!.projects
        let frozenBacklinks = backlinks.freeze()
        XCTAssertTrue(frozenSteps.isFrozen)
        XCTAssertTrue(frozenLabels.isFrozen)
        XCTAssertTrue(frozenBacklinks.isFrozen)
        XCTAssertFalse(backlinks.isFrozen)
        XCTAssertTrue(frozenSteps.freeze() === frozenSteps)
        try realm.write {
            steps.removeAll()
            labels.append("sun")
            tags.insert("esa")
            realm.object(ofType: FTProject.self, forPrimaryKey: "Gemini")!.steps.append(realm.object(ofType: FTStep.self, forPrimaryKey: 0)!)
        }
        XCTAssertEqual(steps.count, 0)
        XCTAssertEqual(frozenSteps.map(\.id), [0, 1, 2, 3])
        XCTAssertEqual(Array(frozenLabels), ["space", "moon"])
        XCTAssertEqual(Array(frozenTags), ["nasa"])
        XCTAssertEqual(tags.count, 2)
        XCTAssertEqual(backlinks.count, 1, "Gemini only: Apollo's list was emptied")
        XCTAssertEqual(frozenBacklinks.map(\.name), ["Apollo"])
        XCTAssertEqual(frozenSteps.where { $0.done }.map(\.id), [0, 1])
        // Thawed: live again.
        let thawed = try XCTUnwrap(frozenSteps.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.count, 0)
        XCTAssertEqual(try XCTUnwrap(frozenLabels.thaw()).count, 3)
        XCTAssertEqual(try XCTUnwrap(frozenTags.thaw()).count, 2)
        XCTAssertEqual(try XCTUnwrap(frozenBacklinks.thaw()).map(\.name), ["Gemini"])
        try realm.write { realm.delete(apollo) }
        XCTAssertNil(frozenSteps.thaw())
        XCTAssertEqual(frozenSteps.count, 4)
    }

    // MARK: Frozen results

    func testFrozenResultsDoNotChange() throws {
        let pending = realm.objects(FTStep.self).where { $0.done == false }.sorted(byKeyPath: "id", ascending: false)
        let frozen = pending.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen.realm?.isFrozen ?? false)
        XCTAssertEqual(frozen.map(\.id), [3, 2])
        try realm.write {
            realm.objects(FTStep.self).where { $0.id == 0 }.first!.done = false
            realm.create(FTStep.self, value: ["id": 9, "title": "nine"])
            realm.delete(realm.object(ofType: FTStep.self, forPrimaryKey: 3)!)
        }
        XCTAssertEqual(pending.map(\.id), [9, 2, 0])
        XCTAssertEqual(frozen.map(\.id), [3, 2])
        XCTAssertEqual(frozen.count, 2)
        XCTAssertEqual(frozen.first?.title, "step 3")
        XCTAssertEqual(frozen.max(ofProperty: "id") as Int?, 3)
        // Further queries on frozen results stay frozen, at the same version.
        let narrowed = frozen.where { $0.id < 3 }
        XCTAssertTrue(narrowed.isFrozen)
        XCTAssertEqual(narrowed.map(\.id), [2])
        XCTAssertEqual(frozen.sorted(byKeyPath: "id").map(\.id), [2, 3])
        // Thawed: live again, at the latest version.
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.map(\.id), [9, 2, 0])
        try thawed.realm!.write { thawed.realm!.create(FTStep.self, value: ["id": 11]) }
        XCTAssertEqual(thawed.map(\.id), [11, 9, 2, 0])
    }

    func testFrozenResultsOfAList() throws {
        // A step outside the list that the list's results must never show.
        try realm.write { realm.create(FTStep.self, value: ["id": 30, "done": false]) }
        let open = apollo.steps.where { $0.done == false }
        let frozen = open.freeze()
        XCTAssertEqual(frozen.map(\.id), [2, 3])
        try realm.write {
            // A step that is not in the list, and a change to the list.
            realm.create(FTStep.self, value: ["id": 20, "done": false])
            apollo.steps.remove(at: 2)
        }
        XCTAssertEqual(open.map(\.id), [3])
        XCTAssertEqual(frozen.map(\.id), [2, 3])
        // Narrowing frozen list results stays within the list as it was.
        XCTAssertEqual(frozen.where { $0.id >= 2 }.map(\.id), [2, 3])
        XCTAssertEqual(frozen.filter("TRUEPREDICATE").count, 2)
        XCTAssertEqual(frozen.sorted(byKeyPath: "id", ascending: false).map(\.id), [3, 2])
        XCTAssertEqual(frozen.max(ofProperty: "id") as Int?, 3)
        // Thawed list results follow the live list.
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertEqual(thawed.map(\.id), [3])
        try thawed.realm!.write { thawed.realm!.object(ofType: FTProject.self, forPrimaryKey: "Apollo")!.steps.removeAll() }
        XCTAssertEqual(thawed.count, 0)
        XCTAssertEqual(frozen.map(\.id), [2, 3])
    }

    func testFrozenResultsOfLinkingObjects() throws {
        try realm.write {
            let gemini = realm.object(ofType: FTProject.self, forPrimaryKey: "Gemini")!
            gemini.steps.append(realm.object(ofType: FTStep.self, forPrimaryKey: 1)!)
        }
        let step = realm.object(ofType: FTStep.self, forPrimaryKey: 1)!
        let rich = step.projects.where { $0.budget >= 50 }
        let frozen = rich.freeze()
        XCTAssertEqual(frozen.map(\.name).sorted(), ["Apollo", "Gemini"])
        try realm.write {
            realm.create(FTProject.self, value: ["name": "Mercury", "budget": 500])
            realm.object(ofType: FTProject.self, forPrimaryKey: "Gemini")!.steps.removeAll()
        }
        XCTAssertEqual(rich.map(\.name), ["Apollo"])
        XCTAssertEqual(frozen.map(\.name).sorted(), ["Apollo", "Gemini"])
        XCTAssertEqual(frozen.where { $0.budget > 0 }.map(\.name).sorted(), ["Apollo", "Gemini"])
        XCTAssertEqual(try XCTUnwrap(frozen.thaw()).map(\.name), ["Apollo"])
    }

    func testThreadSafeReferenceToListResults() throws {
        try realm.write { realm.create(FTStep.self, value: ["id": 30, "done": false]) }
        let open = apollo.steps.where { $0.done == false }
        let ids = resolveOnAnotherThread(ThreadSafeReference(to: open)) { results, ids in
            for step in results { ids.add(step.id) }
        }
        XCTAssertEqual(ids as? [Int], [2, 3])
    }

    /// Resolves `reference` in a realm opened on another thread and returns what `read`
    /// collected there.
    private func resolveOnAnotherThread(_ reference: ThreadSafeReference<Results<FTStep>>,
                                        _ read: @escaping @Sendable (Results<FTStep>, NSMutableArray) -> Void) -> NSMutableArray {
        let config = self.config!
        let done = expectation(description: "resolved")
        let collected = FTBox(NSMutableArray())
        DispatchQueue.global().async {
            if let other = try? Realm(configuration: config), let results = other.resolve(reference) {
                read(results, collected.value)
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        return collected.value
    }

    // MARK: Frozen data on other threads

    func testFrozenObjectsCanBeReadOnAnotherThread() throws {
        let frozen = FTBox(apollo.freeze())
        let frozenResults = FTBox(realm.objects(FTStep.self).freeze())
        try realm.write { apollo.budget = 5 }
        let done = expectation(description: "read on another thread")
        let seen = FTBox(NSMutableArray())
        DispatchQueue.global().async {
            seen.value.add(frozen.value.budget)
            seen.value.add(frozen.value.steps.count)
            seen.value.add(frozenResults.value.count)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(seen.value as? [Int], [100, 4, 4])
    }

    // MARK: ThreadSafeReference

    func testThreadSafeReferenceToAnObjectResolvesOnAnotherThread() throws {
        let reference = ThreadSafeReference(to: apollo)
        XCTAssertFalse(reference.isInvalidated)
        let config = self.config!
        let done = expectation(description: "resolved")
        let outcome = FTBox(NSMutableArray())
        DispatchQueue.global().async {
            do {
                let other = try Realm(configuration: config)
                guard let project = other.resolve(reference) else {
                    outcome.value.add("nil")
                    done.fulfill()
                    return
                }
                outcome.value.add(project.name)
                outcome.value.add(project.steps.count)
                outcome.value.add(project.realm === other)
                try other.write { project.budget = 999 }
            } catch {
                outcome.value.add("\(error)")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcome.value.count, 3, "\(outcome.value)")
        XCTAssertEqual(outcome.value.firstObject as? String, "Apollo")
        XCTAssertEqual(outcome.value[1] as? Int, 4)
        XCTAssertEqual(outcome.value[2] as? Bool, true)
        XCTAssertTrue(reference.isInvalidated)
        realm.refresh()
        XCTAssertEqual(apollo.budget, 999)
    }

    func testThreadSafeReferenceToResultsResolvesOnAnotherThread() throws {
        let pending = realm.objects(FTStep.self).where { $0.done == false }.sorted(byKeyPath: "id", ascending: false)
        let ids = resolveOnAnotherThread(ThreadSafeReference(to: pending)) { results, ids in
            for step in results { ids.add(step.id) }
            ids.add(results.queryDescription)
        }
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(ids[0] as? Int, 3)
        XCTAssertEqual(ids[1] as? Int, 2)
        XCTAssertEqual(ids[2] as? String, pending.queryDescription)
    }

    func testThreadSafeReferenceSeesTheLatestVersionAndDeletions() throws {
        let step = realm.object(ofType: FTStep.self, forPrimaryKey: 1)!
        let reference = ThreadSafeReference(to: step)
        let deletedReference = ThreadSafeReference(to: realm.object(ofType: FTStep.self, forPrimaryKey: 2)!)
        try realm.write {
            step.title = "after the reference"
            realm.delete(realm.object(ofType: FTStep.self, forPrimaryKey: 2)!)
        }
        let config = self.config!
        let done = expectation(description: "resolved")
        let outcome = FTBox(NSMutableArray())
        DispatchQueue.global().async {
            if let other = try? Realm(configuration: config) {
                outcome.value.add(other.resolve(reference)?.title ?? "nil")
                outcome.value.add(other.resolve(deletedReference) == nil)
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcome.value.firstObject as? String, "after the reference")
        XCTAssertEqual(outcome.value.lastObject as? Bool, true)
    }
}
