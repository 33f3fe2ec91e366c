import Foundation
import RealmSwift
import XCTest

final class SecContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var starred = false
    @Persisted var nicknames: List<String>
    @Persisted var optionalNicknames: List<String?>
    @Persisted var luckyNumbers: MutableSet<Int>
    @Persisted var friends: List<SecContact>
}

extension SecContact {
    /// A section key computed from a stored property, as SDK users write them.
    var firstLetter: String? { name.first.map { String($0) } }
}

/// Collects sectioned results notifications as an SDK user would switch over them.
final class SecChangeLog<C>: @unchecked Sendable {
    struct Update: Equatable {
        var deletions: [IndexPath]
        var insertions: [IndexPath]
        var modifications: [IndexPath]
        var sectionsToInsert: IndexSet
        var sectionsToDelete: IndexSet
    }
    private let lock = NSLock()
    private var _initials: [C] = []
    private var _updates: [Update] = []
    private var _collections: [C] = []
    private var _onMainThread: [Bool] = []

    var initials: [C] { lock.withLock { _initials } }
    var updates: [Update] { lock.withLock { _updates } }
    var collections: [C] { lock.withLock { _collections } }
    var onMainThread: [Bool] { lock.withLock { _onMainThread } }

    func record(_ change: SectionedResultsChange<C>) {
        let main = Thread.isMainThread
        switch change {
        case .initial(let collection):
            lock.withLock { _initials.append(collection); _onMainThread.append(main) }
        case let .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                         sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete):
            lock.withLock {
                _updates.append(Update(deletions: deletions, insertions: insertions, modifications: modifications,
                                       sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete))
                _collections.append(collection)
                _onMainThread.append(main)
            }
        }
    }
}

private func path(_ item: Int, _ section: Int) -> IndexPath { IndexPath(item: item, section: section) }

final class SectionedResultsTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration([SecContact.self]))
    }

    /// banana, box, apple, chalk: sections a [apple], b [banana, box], c [chalk] ascending.
    private func makeFruitRealm() throws -> Realm {
        let realm = try makeRealm()
        try realm.write {
            for (id, name) in ["banana", "box", "apple", "chalk"].enumerated() {
                let contact = SecContact(value: ["id": id, "name": name, "age": name.count])
                if id == 0 {
                    contact.nicknames.append(objectsIn: ["banana", "box", "apple", "chalk"])
                    contact.luckyNumbers.insert(objectsIn: [5, 4, 3, 2, 1])
                    contact.optionalNicknames.append(objectsIn: ["bee", nil, "ant", "bat"])
                }
                realm.add(contact)
            }
        }
        return realm
    }

    private func names(_ section: ResultsSection<String?, SecContact>) -> [String] { section.map(\.name) }

    // MARK: Making sections

    func testSectionsByFirstLetterFromResultsInBothDirections() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)

        let ascending = contacts.sectioned(by: \.firstLetter, ascending: true)
        XCTAssertEqual(ascending.count, 3)
        XCTAssertEqual(ascending.map(\.key), ["a", "b", "c"])
        XCTAssertEqual(ascending.map { $0.map(\.name) }, [["apple"], ["banana", "box"], ["chalk"]])

        let descending = contacts.sectioned(by: \.firstLetter, ascending: false)
        XCTAssertEqual(descending.map(\.key), ["c", "b", "a"])
        XCTAssertEqual(descending.map { $0.map(\.name) }, [["chalk"], ["box", "banana"], ["apple"]])

        let withDescriptors = contacts.sectioned(by: \.firstLetter,
                                                 sortDescriptors: [SortDescriptor(keyPath: "name", ascending: false)])
        XCTAssertEqual(withDescriptors.map(\.key), ["c", "b", "a"])

        let withBlock = contacts.sectioned(by: { String($0.name.first!) },
                                           sortDescriptors: [SortDescriptor(keyPath: "name", ascending: true)])
        XCTAssertEqual(withBlock.allKeys, ["a", "b", "c"])
        XCTAssertEqual(withBlock[1].map(\.name), ["banana", "box"])

        let viaRequirement = contacts.sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) { $0.name.count }
        // Sorted by name: apple(5) banana(6) box(3) chalk(5): sections in order of first appearance.
        XCTAssertEqual(viaRequirement.allKeys, [5, 6, 3])
        XCTAssertEqual(viaRequirement[0].map(\.name), ["apple", "chalk"], "equal keys share a section wherever they sort")
    }

    func testSectionsByAPropertyKeepTheSecondarySortInsideSections() throws {
        let realm = try makeRealm()
        try realm.write {
            for (id, (name, age)) in [("Ann", 30), ("Bob", 20), ("Cid", 30), ("Dee", 20), ("Eve", 40)].enumerated() {
                realm.add(SecContact(value: ["id": id, "name": name, "age": age]))
            }
        }
        let byAge = realm.objects(SecContact.self)
            .sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age", ascending: true),
                                                     SortDescriptor(keyPath: "name", ascending: false)])
        XCTAssertEqual(byAge.allKeys, [20, 30, 40])
        XCTAssertEqual(byAge.map { $0.map(\.name) }, [["Dee", "Bob"], ["Cid", "Ann"], ["Eve"]])
        XCTAssertEqual(byAge.map(\.id), [20, 30, 40], "a section's id is its key")

        let filtered = realm.objects(SecContact.self).where { $0.age < 40 }.sectioned(by: \.age, ascending: false)
        XCTAssertEqual(filtered.allKeys, [30, 20])
        XCTAssertEqual(Set(filtered[0].map(\.name)), ["Ann", "Cid"])
    }

    func testSubscriptsByIndexAndIndexPathAndIteration() throws {
        let realm = try makeFruitRealm()
        let sections = realm.objects(SecContact.self).sectioned(by: \.firstLetter, ascending: true)
        let first = sections[0]
        XCTAssertEqual(first.key, "a")
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(first[0].name, "apple")
        XCTAssertEqual(sections[IndexPath(item: 1, section: 1)].name, "box")
        XCTAssertEqual(sections[path(0, 2)].name, "chalk")

        var keys: [String?] = []
        var names: [String] = []
        for section in sections {
            keys.append(section.key)
            for contact in section { names.append(contact.name) }
        }
        XCTAssertEqual(keys, ["a", "b", "c"])
        XCTAssertEqual(names, ["apple", "banana", "box", "chalk"])
        XCTAssertEqual(sections.realm?.configuration.inMemoryIdentifier, realm.configuration.inMemoryIdentifier)
    }

    func testEmptyResultsHaveNoSectionsUntilObjectsArrive() throws {
        let realm = try makeRealm()
        let sections = realm.objects(SecContact.self).sectioned(by: \.firstLetter, ascending: true)
        XCTAssertEqual(sections.count, 0)
        XCTAssertTrue(sections.isEmpty)
        XCTAssertEqual(sections.allKeys, [])
        XCTAssertEqual(Array(sections).count, 0)
        try realm.write { realm.add(SecContact(value: ["id": 1, "name": "zed"])) }
        XCTAssertEqual(sections.allKeys, ["z"])
    }

    func testSectionsAreLiveAfterWritesAndInsideAWrite() throws {
        let realm = try makeFruitRealm()
        let sections = realm.objects(SecContact.self).sectioned(by: \.firstLetter, ascending: true)
        let b = sections[1]
        XCTAssertEqual(b.count, 2)
        try realm.write {
            realm.add(SecContact(value: ["id": 10, "name": "dune"]))
            // Read inside the write: the new object is there already.
            XCTAssertEqual(sections.allKeys, ["a", "b", "c", "d"])
            realm.delete(realm.objects(SecContact.self).where { $0.name == "apple" })
            XCTAssertEqual(sections.allKeys, ["b", "c", "d"])
        }
        XCTAssertEqual(sections.map { $0.map(\.name) }, [["banana", "box"], ["chalk"], ["dune"]])
        try realm.write { realm.objects(SecContact.self).where { $0.name == "banana" }.first!.name = "cherry" }
        XCTAssertEqual(b.map(\.name), ["box"], "a section follows its key")
        XCTAssertEqual(sections.map { $0.map(\.name) }, [["box"], ["chalk", "cherry"], ["dune"]])
        try realm.write { realm.delete(realm.objects(SecContact.self).where { $0.name == "box" }) }
        XCTAssertEqual(b.count, 0, "the key has no section any more")
        XCTAssertEqual(Array(b).count, 0)
    }

    // MARK: Collections of values and other collections

    func testListAndSetOfValuesSortBySelf() throws {
        let realm = try makeFruitRealm()
        let owner = realm.objects(SecContact.self).where { $0.id == 0 }.first!

        let list = owner.nicknames.sectioned(by: { String($0.first!) }, ascending: true)
        XCTAssertEqual(list.allKeys, ["a", "b", "c"])
        XCTAssertEqual(list.map { Array($0) }, [["apple"], ["banana", "box"], ["chalk"]])
        XCTAssertEqual(owner.nicknames.sectioned(by: { String($0.first!) }, ascending: false).allKeys, ["c", "b", "a"])

        let parity = owner.luckyNumbers.sectioned(by: { $0 % 2 }, ascending: true)
        XCTAssertEqual(parity.allKeys, [1, 0])
        XCTAssertEqual(parity.map { Array($0) }, [[1, 3, 5], [2, 4]])
        let parityDown = owner.luckyNumbers.sectioned(by: { $0 % 2 }, ascending: false)
        XCTAssertEqual(parityDown.allKeys, [1, 0])
        XCTAssertEqual(parityDown.map { Array($0) }, [[5, 3, 1], [4, 2]])

        let optional = owner.optionalNicknames.sectioned(by: { $0.map { String($0.first!) } }, ascending: true)
        XCTAssertEqual(optional.allKeys, [nil, "a", "b"], "nil sorts first")
        XCTAssertEqual(optional.map { Array($0) }, [[nil], ["ant"], ["bat", "bee"]])

        let erased = AnyRealmCollection(owner.nicknames).sectioned(by: { $0.count }, ascending: true)
        XCTAssertEqual(erased.allKeys, [5, 6, 3])

        try realm.write { owner.nicknames.append("avocado") }
        XCTAssertEqual(list[0].map { $0 }, ["apple", "avocado"], "sections of a list are live")
    }

    func testListOfObjectsAndAnyRealmCollectionSectionByKeyPath() throws {
        let realm = try makeFruitRealm()
        let owner = realm.objects(SecContact.self).where { $0.id == 0 }.first!
        try realm.write { owner.friends.append(objectsIn: realm.objects(SecContact.self).where { $0.id != 0 }) }
        let friends = owner.friends.sectioned(by: \.firstLetter, ascending: true)
        XCTAssertEqual(friends.allKeys, ["a", "b", "c"])
        XCTAssertEqual(friends[1].map(\.name), ["box"])
        let erased = AnyRealmCollection(owner.friends).sectioned(by: \.age, ascending: false)
        XCTAssertEqual(erased.allKeys, [5, 3])
        XCTAssertEqual(Set(erased[0].map(\.name)), ["apple", "chalk"])
    }

    // MARK: Notifications

    /// The SDK's own scenario: a write deletes a section, empties part of another,
    /// moves an object inside it and adds a section at the end.
    func testNotificationsReportSectionAndRowChanges() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let sections = contacts.sectioned(by: \.firstLetter, ascending: true)
        let log = SecChangeLog<SectionedResults<String?, SecContact>>()
        let token = sections.observe(keyPaths: [\.name]) { log.record($0) }
        pollUntil("initial") { log.initials.count == 1 }
        XCTAssertEqual(log.initials.first?.count, 3)

        try realm.write {
            realm.delete(contacts.where { $0.name == "banana" || $0.name == "apple" })
            contacts.where { $0.name == "box" }.first!.name = "bog"
            realm.add(SecContact(value: ["id": 9, "name": "zebra"]))
        }
        pollUntil("update") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0], .init(deletions: [path(0, 1), path(1, 1)], insertions: [path(0, 0), path(0, 2)],
                                             modifications: [], sectionsToInsert: [2], sectionsToDelete: [0]))
        XCTAssertEqual(log.collections[0].allKeys, ["b", "c", "z"])

        try realm.write {
            contacts.where { $0.name == "bog" }.first!.name = "bogg"
            contacts.where { $0.name == "chalk" }.first!.age = 1   // not on the observed key paths
        }
        pollUntil("modification") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1], .init(deletions: [], insertions: [], modifications: [path(0, 0)],
                                             sectionsToInsert: [], sectionsToDelete: []))
        token.invalidate()
    }

    func testInsertionsIntoSectionsAndNewSectionsInTheMiddle() throws {
        let realm = try makeFruitRealm()
        let sections = realm.objects(SecContact.self).sectioned(by: \.firstLetter, ascending: true)
        let log = SecChangeLog<SectionedResults<String?, SecContact>>()
        let token = sections.observe { log.record($0) }
        pollUntil("initial") { log.initials.count == 1 }

        try realm.write {
            realm.add(SecContact(value: ["id": 10, "name": "bee"]))     // b: banana, bee, box
            realm.add(SecContact(value: ["id": 11, "name": "bread"]))   // b: ..., box, bread
            realm.add(SecContact(value: ["id": 12, "name": "apricot"])) // a: apple, apricot
        }
        pollUntil("insertions") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0], .init(deletions: [], insertions: [path(1, 0), path(1, 1), path(3, 1)],
                                             modifications: [], sectionsToInsert: [], sectionsToDelete: []))

        try realm.write { realm.add(SecContact(value: ["id": 13, "name": "bz"])); realm.add(SecContact(value: ["id": 14, "name": "bb"])) }
        pollUntil("second insertions") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].insertions, [path(1, 1), path(5, 1)])

        try realm.write { realm.add(SecContact(value: ["id": 15, "name": "cab"])); realm.add(SecContact(value: ["id": 16, "name": "add"])) }
        pollUntil("third") { log.updates.count == 3 }
        // a: add, apple, apricot; c: cab, chalk
        XCTAssertEqual(log.updates[2].insertions, [path(0, 0), path(0, 2)])

        try realm.write { realm.add(SecContact(value: ["id": 17, "name": "b0"])); realm.add(SecContact(value: ["id": 18, "name": "Ω"])) }
        pollUntil("new sections") { log.updates.count == 4 }
        XCTAssertEqual(log.updates[3].sectionsToInsert, [3])
        XCTAssertEqual(log.updates[3].insertions, [path(0, 1), path(0, 3)])
        XCTAssertEqual(sections.allKeys, ["a", "b", "c", "Ω"])
        token.invalidate()
    }

    func testModifiedObjectsInPlaceAndObjectsMovingBetweenSections() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let sections = contacts.sectioned(by: \.firstLetter, ascending: true)
        let log = SecChangeLog<SectionedResults<String?, SecContact>>()
        let token = sections.observe { log.record($0) }
        pollUntil("initial") { log.initials.count == 1 }

        try realm.write { contacts.where { $0.name == "box" }.first!.age = 99 }
        pollUntil("modification") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0], .init(deletions: [], insertions: [], modifications: [path(1, 1)],
                                             sectionsToInsert: [], sectionsToDelete: []))

        // banana moves from b to c (b keeps box; c: chalk, cobra).
        try realm.write { contacts.where { $0.name == "banana" }.first!.name = "cobra" }
        pollUntil("move") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1], .init(deletions: [path(0, 1)], insertions: [path(1, 2)], modifications: [],
                                             sectionsToInsert: [], sectionsToDelete: []))

        // The last b leaves: its section goes, and c shifts down without being reported.
        try realm.write { contacts.where { $0.name == "box" }.first!.name = "ant" }
        pollUntil("section emptied") { log.updates.count == 3 }
        XCTAssertEqual(log.updates[2], .init(deletions: [], insertions: [path(0, 0)], modifications: [],
                                             sectionsToInsert: [], sectionsToDelete: [1]))
        XCTAssertEqual(sections.map { $0.map(\.name) }, [["ant", "apple"], ["chalk", "cobra"]])

        try realm.write { realm.delete(contacts) }
        pollUntil("everything deleted") { log.updates.count == 4 }
        XCTAssertEqual(log.updates[3], .init(deletions: [], insertions: [], modifications: [],
                                             sectionsToInsert: [], sectionsToDelete: [0, 1]))
        XCTAssertEqual(log.collections[3].count, 0)
        token.invalidate()
    }

    func testKeyPathFilteredObservation() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let sections = contacts.sectioned(by: \.firstLetter, ascending: true)
        let log = SecChangeLog<SectionedResults<String?, SecContact>>()
        let token = sections.observe(keyPaths: [\.starred]) { log.record($0) }
        pollUntil("initial") { log.initials.count == 1 }

        let apple = contacts.where { $0.name == "apple" }.first!
        try realm.write { apple.age = 42 }
        try realm.write { apple.name = "avocado" }   // same place, same section: not observed
        XCTAssertEqual(log.updates.count, 0, "changes off the key paths that move nothing are not reported")

        try realm.write { apple.starred = true }
        pollUntil("starred") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0].modifications, [path(0, 0)])

        try realm.write { apple.name = "bz" }   // changes section although `name` is not observed
        pollUntil("section change") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1], .init(deletions: [], insertions: [path(2, 0)], modifications: [],
                                             sectionsToInsert: [], sectionsToDelete: [0]))
        token.invalidate()
    }

    func testObservingOneSectionReportsOnlyItsChanges() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let sections = contacts.sectioned(by: \.firstLetter, ascending: true)
        let a = SecChangeLog<ResultsSection<String?, SecContact>>()
        let b = SecChangeLog<ResultsSection<String?, SecContact>>()
        let tokenA = sections[0].observe(keyPaths: [\.name]) { a.record($0) }
        let tokenB = sections[1].observe(keyPaths: ["name"]) { b.record($0) }
        pollUntil("initials") { a.initials.count == 1 && b.initials.count == 1 }
        XCTAssertEqual(a.initials[0].count, 1)
        XCTAssertEqual(b.initials[0].count, 2)

        try realm.write { realm.delete(contacts.where { $0.name == "banana" || $0.name == "apple" }) }
        pollUntil("deletions") { a.updates.count == 1 && b.updates.count == 1 }
        XCTAssertEqual(a.updates[0], .init(deletions: [], insertions: [], modifications: [], sectionsToInsert: [], sectionsToDelete: [0]))
        XCTAssertEqual(b.updates[0], .init(deletions: [path(0, 1)], insertions: [], modifications: [], sectionsToInsert: [], sectionsToDelete: []))
        XCTAssertEqual(a.collections[0].count, 0)
        XCTAssertEqual(b.collections[0].count, 1)

        try realm.write {
            contacts.where { $0.name == "box" }.first!.name = "bog"
            realm.add(SecContact(value: ["id": 20, "name": "bag"]))
        }
        pollUntil("b changed") { b.updates.count == 2 }
        XCTAssertEqual(b.updates[1], .init(deletions: [path(0, 0)], insertions: [path(0, 0), path(1, 0)], modifications: [],
                                           sectionsToInsert: [], sectionsToDelete: []))
        XCTAssertEqual(a.updates.count, 1, "nothing happened to a")

        try realm.write { realm.add(SecContact(value: ["id": 21, "name": "app"])) }
        pollUntil("a again") { a.updates.count == 2 }
        XCTAssertEqual(a.updates[1], .init(deletions: [], insertions: [path(0, 0)], modifications: [], sectionsToInsert: [0], sectionsToDelete: []))
        XCTAssertEqual(a.collections[1].map(\.name), ["app"])
        XCTAssertEqual(b.updates.count, 2, "b only shifted")
        tokenA.invalidate()
        tokenB.invalidate()
    }

    func testObserveOnAQueueDeliversThere() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let log = SecChangeLog<SectionedResults<String?, SecContact>>()
        let queue = DispatchQueue(label: "sectioned-results-tests")
        let token = contacts.sectioned(by: \.firstLetter, ascending: true).observe(keyPaths: [\.name], on: queue) { change in
            if case .update(let sections, _, _, _, _, _) = change {
                XCTAssertEqual(sections.allKeys.count, 4, "read on the delivering queue")
            }
            log.record(change)
        }
        pollUntil("initial") { log.initials.count == 1 }
        try realm.write { realm.add(SecContact(value: ["id": 30, "name": "dune"])) }
        pollUntil("update on the queue") { log.updates.count == 1 }
        XCTAssertEqual(log.updates[0], .init(deletions: [], insertions: [path(0, 3)], modifications: [], sectionsToInsert: [3], sectionsToDelete: []))
        XCTAssertEqual(log.onMainThread, [false, false])
        token.invalidate()
    }

    func testSectionObservedOnAQueueAndSectionsOnAnActor() async throws {
        let realm = try await Realm(configuration: makeInMemoryConfiguration([SecContact.self]))
        try realm.write {
            for (id, name) in ["banana", "box", "apple", "chalk"].enumerated() {
                realm.add(SecContact(value: ["id": id, "name": name]))
            }
        }
        let sections = realm.objects(SecContact.self).sectioned(by: \.firstLetter, ascending: true)
        let queue = DispatchQueue(label: "section-observer")
        let b = SecChangeLog<ResultsSection<String?, SecContact>>()
        let sectionToken = sections[1].observe(keyPaths: [\.name], on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            b.record(change)
        }
        let onActor = SecChangeLog<SectionedResults<String?, SecContact>>()
        let actorToken = await sections.observe(on: SecTestActor.shared) { _, change in
            if case .update(let sections, _, _, _, _, _) = change {
                XCTAssertEqual(sections.allKeys, ["a", "b"], "read on the actor")
            }
            onActor.record(change)
        }
        await pollUntilAsync("initials") { b.initials.count == 1 && onActor.initials.count == 1 }
        try realm.write {
            realm.delete(realm.objects(SecContact.self).where { $0.name == "chalk" })
            realm.add(SecContact(value: ["id": 9, "name": "bee"]))
        }
        await pollUntilAsync("updates") { b.updates.count == 1 && onActor.updates.count == 1 }
        XCTAssertEqual(b.updates[0], .init(deletions: [], insertions: [path(1, 1)], modifications: [],
                                           sectionsToInsert: [], sectionsToDelete: []))
        XCTAssertEqual(onActor.updates[0], .init(deletions: [], insertions: [path(1, 1)], modifications: [],
                                                 sectionsToInsert: [], sectionsToDelete: [2]))
        sectionToken.invalidate()
        actorToken.invalidate()
    }

    func testWriteWithoutNotifyingSkipsOnlyThatToken() throws {
        let realm = try makeFruitRealm()
        let sections = realm.objects(SecContact.self).sectioned(by: \.firstLetter, ascending: true)
        let skipped = SecChangeLog<SectionedResults<String?, SecContact>>()
        let told = SecChangeLog<SectionedResults<String?, SecContact>>()
        let token1 = sections.observe { skipped.record($0) }
        let token2 = sections.observe { told.record($0) }
        pollUntil("initials") { skipped.initials.count == 1 && told.initials.count == 1 }
        try realm.write(withoutNotifying: [token1]) { realm.delete(realm.objects(SecContact.self)) }
        pollUntil("told") { told.updates.count == 1 }
        XCTAssertEqual(told.updates[0].sectionsToDelete, [0, 1, 2])
        XCTAssertEqual(skipped.updates.count, 0)
        try realm.write { realm.add(SecContact(value: ["id": 40, "name": "eel"])) }
        pollUntil("both") { skipped.updates.count == 1 && told.updates.count == 2 }
        XCTAssertEqual(skipped.updates[0].sectionsToInsert, [0], "the skipped token starts again from the empty sections")
        token1.invalidate()
        token2.invalidate()
    }

    func testSectionedValuesOfAListNotify() throws {
        let realm = try makeFruitRealm()
        let owner = realm.objects(SecContact.self).where { $0.id == 0 }.first!
        let log = SecChangeLog<SectionedResults<String, String>>()
        let token = owner.nicknames.sectioned(by: { String($0.first!) }, ascending: true).observe { log.record($0) }
        pollUntil("initial") { log.initials.count == 1 }
        try realm.write {
            owner.nicknames.append("bat")
            owner.nicknames.append("dog")
            owner.nicknames.remove(at: 0)   // banana
        }
        pollUntil("update") { log.updates.count == 1 }
        // b: banana, box → bat, box; d is new.
        XCTAssertEqual(log.updates[0], .init(deletions: [path(0, 1)], insertions: [path(0, 1), path(0, 3)], modifications: [],
                                             sectionsToInsert: [3], sectionsToDelete: []))
        try realm.write { owner.nicknames.append("box") }
        pollUntil("a second copy") { log.updates.count == 2 }
        XCTAssertEqual(log.updates[1].insertions, [path(2, 1)], "one more copy of a repeated value is one insertion")
        token.invalidate()
    }

    // MARK: Frozen and thawed

    func testFrozenSectionedResultsStayAsTheyWereAndThaw() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let live = contacts.sectioned(by: \.firstLetter, ascending: true)
        XCTAssertFalse(live.isFrozen)
        let frozen = live.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen.realm?.isFrozen ?? false)
        try realm.write { realm.add(SecContact(value: ["id": 50, "name": "dune"])) }
        XCTAssertEqual(frozen.allKeys, ["a", "b", "c"])
        XCTAssertEqual(frozen[1].map(\.name), ["banana", "box"])
        XCTAssertEqual(live.allKeys, ["a", "b", "c", "d"])
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.allKeys, ["a", "b", "c", "d"])

        let frozenFromFrozenResults = contacts.freeze().sectioned(by: \.firstLetter, ascending: false)
        XCTAssertTrue(frozenFromFrozenResults.isFrozen)
        try realm.write { realm.add(SecContact(value: ["id": 51, "name": "eel"])) }
        XCTAssertEqual(frozenFromFrozenResults.allKeys, ["d", "c", "b", "a"])
        XCTAssertEqual(frozenFromFrozenResults.thaw()?.allKeys, ["e", "d", "c", "b", "a"])

        // Frozen sectioned results can be read on another thread.
        let names = SecBox<[String]>()
        let handed = SecBox<SectionedResults<String?, SecContact>>()
        handed.value = frozen
        runOnNewThread { names.value = handed.value![1].map(\.name) }
        XCTAssertEqual(names.value, ["banana", "box"])
    }

    func testFrozenSectionAndSectionsOfAFrozenList() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let section = contacts.sectioned(by: \.firstLetter, ascending: true)[0].freeze()
        try realm.write { realm.add(SecContact(value: ["id": 60, "name": "avocado"])) }
        XCTAssertTrue(section.isFrozen)
        XCTAssertEqual(section.key, "a")
        XCTAssertEqual(section.map(\.name), ["apple"])
        let thawed = try XCTUnwrap(section.thaw())
        XCTAssertEqual(thawed.map(\.name), ["apple", "avocado"])

        let owner = contacts.where { $0.id == 0 }.first!
        let frozenList = owner.nicknames.freeze().sectioned(by: { String($0.first!) })
        try realm.write { owner.nicknames.append("dune") }
        XCTAssertTrue(frozenList.isFrozen)
        XCTAssertEqual(frozenList.count, 3)
        XCTAssertEqual(frozenList.thaw()?.count, 4)
        XCTAssertEqual(owner.nicknames.sectioned(by: { String($0.first!) }).freeze().count, 4)
    }

    func testEqualityIdentityAndInvalidation() throws {
        let realm = try makeFruitRealm()
        let contacts = realm.objects(SecContact.self)
        let one = contacts.sectioned(by: \.firstLetter)
        let two = contacts.sectioned(by: \.firstLetter)
        XCTAssertEqual(one, one)
        XCTAssertNotEqual(one, two, "two sectionings of one collection are different collections")
        XCTAssertEqual(one[0], one[0])
        XCTAssertNotEqual(one[0], one[1])
        XCTAssertEqual(one[1].id, "b")
        XCTAssertFalse(one.isInvalidated)
        realm.invalidate()
        XCTAssertTrue(one.isInvalidated)
    }
}

@globalActor actor SecTestActor {
    static let shared = SecTestActor()
}

/// A value written on another thread and read after it finished.
final class SecBox<T>: @unchecked Sendable {
    var value: T?
}
