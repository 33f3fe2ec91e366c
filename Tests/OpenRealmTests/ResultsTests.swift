import Foundation
import XCTest
import OpenRealm

// MARK: - Models

final class RTOwner: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var rank: Int
    @Persisted var items: List<RTItem>
    @Persisted var favorites: MutableSet<RTItem>
    @Persisted(originProperty: "owner") var owned: LinkingObjects<RTItem>
}

final class RTItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var group: Int
    @Persisted var score: Double
    @Persisted var optScore: Double?
    @Persisted var ratio: Float
    @Persisted var amount: Decimal128
    @Persisted var small: Int8
    @Persisted var optCount: Int?
    @Persisted var date: Date
    @Persisted var optDate: Date?
    @Persisted var owner: RTOwner?
}

final class RTStringKey: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted var value: Int
}

final class RTUUIDKey: Object {
    @Persisted(primaryKey: true) var key: UUID
    @Persisted var value: Int
}

final class RTObjectIdKey: Object {
    @Persisted(primaryKey: true) var key: ObjectId
    @Persisted var value: Int
}

final class RTOptionalIntKey: Object {
    @Persisted(primaryKey: true) var key: Int?
    @Persisted var value: Int
}

final class RTNoKey: Object {
    @Persisted var value: Int
}

// MARK: - Tests

final class ResultsTests: XCTestCase {
    var realm: Realm!
    static let types: [ObjectBase.Type] = [RTOwner.self, RTItem.self, RTStringKey.self, RTUUIDKey.self, RTObjectIdKey.self,
                                           RTOptionalIntKey.self, RTNoKey.self]

    override func setUpWithError() throws {
        realm = try qtInMemoryRealm(Self.types, "qt-results")
    }

    override func tearDown() {
        realm = nil
    }

    /// Items 0..<n: name "item<i>", group i % 3, score i * 1.5, optScore nil for odd i.
    @discardableResult
    func addItems(_ n: Int, from start: Int = 0) throws -> [RTItem] {
        try realm.write {
            (start..<(start + n)).map { i in
                let item = RTItem()
                item.id = i
                item.name = "item\(i)"
                item.group = i % 3
                item.score = Double(i) * 1.5
                item.optScore = i.isMultiple(of: 2) ? Double(i) : nil
                item.ratio = Float(i) / 4
                item.amount = Decimal128(integerLiteral: Int64(i * 10))
                item.small = Int8(i)
                item.optCount = i.isMultiple(of: 3) ? i : nil
                item.date = Date(timeIntervalSince1970: TimeInterval(1_000_000 + i * 3600))
                item.optDate = i > 2 ? Date(timeIntervalSince1970: TimeInterval(2_000_000 - i)) : nil
                realm.add(item)
                return item
            }
        }
    }

    var items: Results<RTItem> { realm.objects(RTItem.self) }

    // MARK: Collection basics

    func testCountFirstLastSubscriptsAndIteration() throws {
        XCTAssertEqual(items.count, 0)
        XCTAssertTrue(items.isEmpty)
        XCTAssertNil(items.first)
        XCTAssertNil(items.last)
        try addItems(6)
        XCTAssertEqual(items.count, 6)
        XCTAssertFalse(items.isEmpty)
        XCTAssertEqual(items.first?.id, 0)
        XCTAssertEqual(items.last?.id, 5)
        XCTAssertEqual(items[2].name, "item2")
        XCTAssertEqual(items.map(\.id), [0, 1, 2, 3, 4, 5])
        var seen: [Int] = []
        for item in items { seen.append(item.id) }
        XCTAssertEqual(seen, [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(Array(items.reversed()).map(\.id), [5, 4, 3, 2, 1, 0])
        XCTAssertEqual(items.objects(at: IndexSet([1, 3])).map(\.id), [1, 3])
        XCTAssertEqual(items[items.startIndex..<2].map(\.id), [0, 1])
        XCTAssertEqual(items.startIndex, 0)
        XCTAssertEqual(items.endIndex, 6)
        XCTAssertEqual(items.filter { $0.group == 1 }.map(\.id), [1, 4])
        XCTAssertTrue(items.contains { $0.name == "item4" })
        XCTAssertEqual(items.realm, realm)
        XCTAssertFalse(items.isFrozen)
        XCTAssertFalse(items.isInvalidated)
        // The objects read are managed accessors of the realm.
        XCTAssertEqual(items[0].realm, realm)
        // Described as the Realm Swift SDK describes results: each object, in order.
        XCTAssertTrue(items.description.hasPrefix("Results<RTItem> <0x"), items.description)
        XCTAssertTrue(items.description.contains("\t[5] RTItem {"), items.description)
    }

    func testIndexOfAndIndexMatching() throws {
        let added = try addItems(5)
        let odd = items.where { $0.group == 1 }   // 1, 4
        XCTAssertEqual(items.index(of: added[3]), 3)
        XCTAssertEqual(odd.index(of: added[4]), 1)
        XCTAssertNil(odd.index(of: added[0]))
        XCTAssertNil(items.index(of: RTItem()))
        XCTAssertEqual(items.index(matching: "name == $0", "item2"), 2)
        XCTAssertEqual(items.index(matching: { $0.score > 4 }), 3)
        XCTAssertNil(items.index(matching: "name == 'nope'"))
        let sorted = items.sorted(byKeyPath: "id", ascending: false)
        XCTAssertEqual(sorted.index(of: added[4]), 0)
        XCTAssertEqual(sorted.index(matching: "group == 0"), 1)
        // An object of another realm is not in these results.
        let other = try qtInMemoryRealm(Self.types, "qt-results-other")
        let stranger = try other.write { other.create(RTItem.self, value: ["id": 3, "name": "item3"]) }
        XCTAssertNil(items.index(of: stranger))
    }

    // MARK: Laziness and liveness

    func testResultsAreLiveAfterWritesInTheSameRealm() throws {
        let all = items
        let groupOne = items.where { $0.group == 1 }
        let byScoreDesc = items.sorted(byKeyPath: "score", ascending: false)
        XCTAssertEqual(all.count, 0)
        try addItems(4)
        XCTAssertEqual(all.count, 4)
        XCTAssertEqual(groupOne.map(\.id), [1])
        XCTAssertEqual(byScoreDesc.first?.id, 3)
        // A change of a property moves an object in and out of a filtered result and
        // within a sorted one.
        let zero = all[0]
        try realm.write {
            zero.group = 1
            zero.score = 100
        }
        XCTAssertEqual(groupOne.map(\.id), [0, 1])
        XCTAssertEqual(byScoreDesc.map(\.id), [0, 3, 2, 1])
        // Deletions.
        try realm.write { realm.delete(all.where { $0.id == 1 }) }
        XCTAssertEqual(all.map(\.id), [0, 2, 3])
        XCTAssertEqual(groupOne.map(\.id), [0])
        try realm.write { realm.deleteAll() }
        XCTAssertTrue(all.isEmpty)
        XCTAssertTrue(groupOne.isEmpty)
        XCTAssertNil(byScoreDesc.first)
    }

    func testResultsSeeUncommittedChangesInsideTheirWrite() throws {
        try addItems(3)
        let groupZero = items.where { $0.group == 0 }
        XCTAssertEqual(groupZero.count, 1)
        realm.beginWrite()
        realm.create(RTItem.self, value: ["id": 10, "name": "ten", "group": 0])
        XCTAssertEqual(groupZero.count, 2)
        XCTAssertEqual(groupZero.last?.name, "ten")
        items[1].group = 0
        XCTAssertEqual(groupZero.map(\.id), [0, 1, 10])
        realm.cancelWrite()
        // Cancelled: back to the committed state.
        XCTAssertEqual(groupZero.map(\.id), [0])
        XCTAssertEqual(items.count, 3)
    }

    func testResultsFollowWritesOfAnotherRealmInstance() throws {
        let config = try makeFileConfiguration(Self.types, name: "live.realm")
        let first = try Realm(configuration: config)
        let results = first.objects(RTNoKey.self).where { $0.value > 1 }
        XCTAssertEqual(results.count, 0)
        let done = expectation(description: "written on another thread")
        DispatchQueue.global().async {
            do {
                let second = try Realm(configuration: config)
                try second.write {
                    for v in 0..<5 { second.create(RTNoKey.self, value: ["value": v]) }
                }
            } catch {
                XCTFail("\(error)")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        first.refresh()
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(results.map(\.value), [2, 3, 4])
    }

    func testResultsFollowWritesOfAnotherInstanceOnTheSameThread() throws {
        // Realm hands out one instance per thread and file, so code that opens the realm
        // in several places (`try Realm()` in each function) shares one live view.
        let config = try makeFileConfiguration(Self.types, name: "same-thread.realm")
        let reader = try Realm(configuration: config)
        let results = reader.objects(RTNoKey.self)
        XCTAssertEqual(results.count, 0)
        let writer = try Realm(configuration: config)
        try writer.write { writer.create(RTNoKey.self, value: ["value": 1]) }
        XCTAssertEqual(results.count, 1, "a write through another instance on this thread is not seen without refresh()")
    }

    func testBuildingResultsReadsNothingUntilUsed() throws {
        try addItems(3)
        // Built before the objects it shows exist, used after: lazy and live.
        let later = items.where { $0.name.starts(with: "late") }.sorted(byKeyPath: "id", ascending: false)
        try realm.write {
            for i in 0..<3 { realm.create(RTItem.self, value: ["id": 100 + i, "name": "late\(i)"]) }
        }
        XCTAssertEqual(later.map(\.id), [102, 101, 100])
        // Results built inside a write, over objects added later in the same write.
        try realm.write {
            let inWrite = realm.objects(RTItem.self).filter("id >= 200")
            XCTAssertEqual(inWrite.count, 0)
            realm.create(RTItem.self, value: ["id": 200])
            XCTAssertEqual(inWrite.count, 1)
        }
    }

    // MARK: Sorting

    func testSortingByOneAndSeveralKeys() throws {
        try addItems(9)
        XCTAssertEqual(items.sorted(byKeyPath: "score").map(\.id), Array(0..<9))
        XCTAssertEqual(items.sorted(byKeyPath: "score", ascending: false).map(\.id), Array((0..<9).reversed()))
        // group ascending, then score descending.
        let multi = items.sorted(by: [SortDescriptor(keyPath: "group"), SortDescriptor(keyPath: "score", ascending: false)])
        XCTAssertEqual(multi.map(\.id), [6, 3, 0, 7, 4, 1, 8, 5, 2])
        let literal = items.sorted(by: ["group", SortDescriptor(keyPath: "name", ascending: true)])
        XCTAssertEqual(literal.map(\.id), [0, 3, 6, 1, 4, 7, 2, 5, 8])
        XCTAssertEqual(items.sorted(by: \.date, ascending: false).first?.id, 8)
        XCTAssertEqual(items.sorted(by: [SortDescriptor(keyPath: \RTItem.small, ascending: false)]).first?.id, 8)
        XCTAssertEqual(SortDescriptor(keyPath: "a").reversed(), SortDescriptor(keyPath: "a", ascending: false))
        // A later sort takes precedence; the earlier one breaks its ties.
        let chained = items.sorted(byKeyPath: "score", ascending: false).sorted(byKeyPath: "group")
        XCTAssertEqual(chained.map(\.id), [6, 3, 0, 7, 4, 1, 8, 5, 2])
        // nil sorts before any value, ascending.
        XCTAssertEqual(items.sorted(byKeyPath: "optScore").map(\.optScore), [nil, nil, nil, nil, 0, 2, 4, 6, 8])
        XCTAssertEqual(items.sorted(byKeyPath: "optScore", ascending: false).map(\.optScore), [8, 6, 4, 2, 0, nil, nil, nil, nil])
        XCTAssertEqual(items.sorted(by: \.optScore).map(\.optScore), [nil, nil, nil, nil, 0, 2, 4, 6, 8])
        XCTAssertEqual(items.sorted(by: \.optDate, ascending: false).first?.id, 3)
        // Sorting a filtered result, and filtering a sorted one.
        XCTAssertEqual(items.where { $0.group == 2 }.sorted(byKeyPath: "id", ascending: false).map(\.id), [8, 5, 2])
        XCTAssertEqual(items.sorted(byKeyPath: "id", ascending: false).where { $0.group == 2 }.map(\.id), [8, 5, 2])
        XCTAssertEqual(items.sorted(byKeyPath: "id", ascending: false).queryDescription, "TRUEPREDICATE SORT(id DESC)")
    }

    func testSortingThroughALink() throws {
        try addItems(6)
        try realm.write {
            let a = realm.create(RTOwner.self, value: ["name": "a", "rank": 2])
            let b = realm.create(RTOwner.self, value: ["name": "b", "rank": 1])
            for item in items { item.owner = item.id.isMultiple(of: 2) ? a : (item.id == 5 ? nil : b) }
        }
        // Objects with no owner sort first, then by the owner's rank, ties by id descending.
        let sorted = items.sorted(by: [SortDescriptor(keyPath: "owner.rank"), SortDescriptor(keyPath: "id", ascending: false)])
        XCTAssertEqual(sorted.map(\.id), [5, 3, 1, 4, 2, 0])
        XCTAssertEqual(items.sorted(by: \.name).first?.name, "item0")
    }

    func testSortingIsLive() throws {
        try addItems(3)
        let sorted = items.sorted(byKeyPath: "score", ascending: false)
        XCTAssertEqual(sorted.map(\.id), [2, 1, 0])
        try realm.write { items[0].score = 10 }
        XCTAssertEqual(sorted.map(\.id), [0, 2, 1])
        try addItems(1, from: 3)
        XCTAssertEqual(sorted.map(\.id), [0, 3, 2, 1])
    }

    // MARK: Distinct

    func testDistinct() throws {
        try addItems(9)
        let distinctGroups = items.distinct(by: ["group"])
        XCTAssertEqual(distinctGroups.map(\.id), [0, 1, 2])
        XCTAssertEqual(items.sorted(byKeyPath: "id", ascending: false).distinct(by: ["group"]).map(\.id), [8, 7, 6])
        XCTAssertEqual(items.distinct(by: ["group", "optCount"]).count, 5)   // (0,0) (1,nil) (2,nil) (0,3) (0,6)
        XCTAssertEqual(items.distinct(by: ["optScore"]).count, 6)            // nil and five values
        XCTAssertEqual(items.distinct(by: [\RTItem.group]).map(\.id), [0, 1, 2])
        XCTAssertEqual(items.distinct(by: [\RTItem.group, \RTItem.optCount]).count, 5)
        XCTAssertEqual(items.distinct(by: ["group"]).sorted(byKeyPath: "id", ascending: false).map(\.id), [2, 1, 0])
        // Live.
        try realm.write { realm.create(RTItem.self, value: ["id": 50, "group": 7]) }
        XCTAssertEqual(distinctGroups.map(\.id), [0, 1, 2, 50])
        // Through a link.
        try realm.write {
            let a = realm.create(RTOwner.self, value: ["name": "a", "rank": 2])
            for item in items where item.id < 4 { item.owner = a }
        }
        XCTAssertEqual(items.distinct(by: ["owner.name"]).map(\.id), [0, 4])
        XCTAssertEqual(items.distinct(by: ["group"]).queryDescription, "TRUEPREDICATE DISTINCT(group)")
    }

    // MARK: Aggregates

    func testAggregates() throws {
        try addItems(5)   // scores 0, 1.5, 3, 4.5, 6; optScore 0, nil, 2, nil, 4
        XCTAssertEqual(items.sum(ofProperty: "score") as Double, 15)
        XCTAssertEqual(items.average(ofProperty: "score") as Double?, 3)
        XCTAssertEqual(items.min(ofProperty: "score") as Double?, 0)
        XCTAssertEqual(items.max(ofProperty: "score") as Double?, 6)
        XCTAssertEqual(items.sum(ofProperty: "group") as Int, 0 + 1 + 2 + 0 + 1)
        XCTAssertEqual(items.max(ofProperty: "group") as Int?, 2)
        XCTAssertEqual(items.average(ofProperty: "group") as Double?, 0.8)
        XCTAssertEqual(items.sum(ofProperty: "ratio") as Float, 2.5)
        XCTAssertEqual(items.max(ofProperty: "ratio") as Float?, 1)
        XCTAssertEqual(items.sum(ofProperty: "amount") as Decimal128, Decimal128(integerLiteral: 100))
        XCTAssertEqual(items.max(ofProperty: "amount") as Decimal128?, Decimal128(integerLiteral: 40))
        XCTAssertEqual(items.average(ofProperty: "amount") as Decimal128?, Decimal128(integerLiteral: 20))
        XCTAssertEqual(items.sum(ofProperty: "small") as Int8, 10)
        XCTAssertEqual(items.min(ofProperty: "date") as Date?, Date(timeIntervalSince1970: 1_000_000))
        XCTAssertEqual(items.max(ofProperty: "date") as Date?, Date(timeIntervalSince1970: 1_000_000 + 4 * 3600))
        // Optionals: nil values are skipped.
        XCTAssertEqual(items.sum(ofProperty: "optScore") as Double, 6)
        XCTAssertEqual(items.average(ofProperty: "optScore") as Double?, 2)
        XCTAssertEqual(items.min(ofProperty: "optScore") as Double?, 0)
        XCTAssertEqual(items.max(ofProperty: "optDate") as Date?, Date(timeIntervalSince1970: 2_000_000 - 3))
        XCTAssertEqual(items.min(ofProperty: "optCount") as Int?, 0)
        XCTAssertEqual(items.max(ofProperty: "optCount") as Int?, 3)
        // Typed key paths.
        XCTAssertEqual(items.sum(of: \.score), 15)
        XCTAssertEqual(items.average(of: \.score), 3)
        XCTAssertEqual(items.min(of: \.group), 0)
        XCTAssertEqual(items.max(of: \.date), Date(timeIntervalSince1970: 1_000_000 + 4 * 3600))
        // Over a filtered result, and live.
        let high = items.where { $0.score > 2 }
        XCTAssertEqual(high.sum(ofProperty: "score") as Double, 13.5)
        try realm.write { items[4].score = 100 }
        XCTAssertEqual(high.sum(ofProperty: "score") as Double, 107.5)
        XCTAssertEqual(high.max(ofProperty: "score") as Double?, 100)
    }

    func testAggregatesOfEmptyResults() throws {
        try addItems(3)
        let none = items.where { $0.score > 1000 }
        XCTAssertEqual(none.sum(ofProperty: "score") as Double, 0)
        XCTAssertEqual(none.sum(ofProperty: "group") as Int, 0)
        XCTAssertEqual(none.sum(ofProperty: "amount") as Decimal128, Decimal128(integerLiteral: 0))
        XCTAssertNil(none.average(ofProperty: "score") as Double?)
        XCTAssertNil(none.min(ofProperty: "score") as Double?)
        XCTAssertNil(none.max(ofProperty: "group") as Int?)
        XCTAssertNil(none.max(ofProperty: "date") as Date?)
        XCTAssertNil(none.min(of: \.date))
        XCTAssertEqual(none.sum(of: \.ratio), 0)
        // All values nil: like empty.
        let oddOnes = items.where { $0.optScore == nil }
        XCTAssertEqual(oddOnes.count, 1)
        XCTAssertNil(oddOnes.max(ofProperty: "optScore") as Double?)
        XCTAssertNil(oddOnes.average(ofProperty: "optScore") as Double?)
        XCTAssertEqual(oddOnes.sum(ofProperty: "optScore") as Double, 0)
    }

    // MARK: Results of lists, sets and linking objects

    func testResultsOfListsSetsAndLinkingObjects() throws {
        try addItems(6)
        let owner = try realm.write { () -> RTOwner in
            let owner = realm.create(RTOwner.self, value: ["name": "o", "rank": 1])
            // The list in its own order, with a duplicate.
            for id in [4, 1, 5, 1] { owner.items.append(items.where { $0.id == id }.first!) }
            for id in [2, 3] { owner.favorites.insert(items.where { $0.id == id }.first!) }
            for item in items where item.group == 1 { item.owner = owner }   // 1 and 4
            return owner
        }
        let list = owner.items
        XCTAssertEqual(list.where { $0.score > 0 }.map(\.id), [4, 1, 5, 1])
        XCTAssertEqual(list.filter("group == 1").map(\.id), [4, 1, 1])
        XCTAssertEqual(list.sorted(byKeyPath: "id").map(\.id), [1, 1, 4, 5])
        XCTAssertEqual(list.distinct(by: ["id"]).map(\.id), [4, 1, 5])
        XCTAssertEqual(list.distinct(by: [\RTItem.group]).map(\.id), [4, 5])
        XCTAssertEqual(list.sorted(by: \.optScore).map(\.id), [1, 5, 1, 4])   // stable: nils in list order
        XCTAssertEqual(list.sum(ofProperty: "score") as Double, 6 + 1.5 + 7.5 + 1.5)
        XCTAssertEqual(list.max(ofProperty: "id") as Int?, 5)
        XCTAssertEqual(list.average(ofProperty: "group") as Double?, 1.25)
        let filteredList = list.where { $0.group == 1 }
        XCTAssertEqual(filteredList.first?.id, 4)
        XCTAssertEqual(filteredList.last?.id, 1)
        XCTAssertEqual(filteredList.index(of: items.where { $0.id == 1 }.first!), 1)

        let set = owner.favorites
        XCTAssertEqual(set.where { $0.id > 2 }.map(\.id), [3])
        XCTAssertEqual(set.filter("TRUEPREDICATE").map(\.id).sorted(), [2, 3])
        XCTAssertEqual(set.sorted(byKeyPath: "id", ascending: false).map(\.id), [3, 2])
        XCTAssertEqual(set.sum(ofProperty: "group") as Int, 2 + 0)

        let owned = owner.owned
        XCTAssertEqual(owned.sorted(byKeyPath: "id").map(\.id), [1, 4])
        XCTAssertEqual(owned.where { $0.id > 1 }.map(\.id), [4])
        XCTAssertEqual(owned.min(ofProperty: "score") as Double?, 1.5)

        // Live: these results follow changes to the collection.
        try realm.write {
            list.remove(at: 0)
            owner.favorites.removeAll()
            items.where { $0.id == 0 }.first!.owner = owner
        }
        XCTAssertEqual(filteredList.map(\.id), [1, 1])
        XCTAssertEqual(set.where { $0.id > 2 }.count, 0)
        XCTAssertEqual(owned.sorted(byKeyPath: "id").map(\.id), [0, 1, 4])
        // Deleting the owner empties its collections' results.
        let ownedResults = owned.where { $0.score >= 0 }
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(ownedResults.count, 0)
    }

    // MARK: Lookups by primary key

    func testObjectForPrimaryKey() throws {
        try addItems(3)
        let id = UUID(), oid = ObjectId.generate()
        try realm.write {
            realm.create(RTStringKey.self, value: ["key": "k", "value": 1])
            realm.create(RTUUIDKey.self, value: ["key": id, "value": 2])
            realm.create(RTObjectIdKey.self, value: ["key": oid, "value": 3])
            realm.create(RTOptionalIntKey.self, value: ["key": NSNull(), "value": 4])
            realm.create(RTOptionalIntKey.self, value: ["key": 7, "value": 5])
        }
        XCTAssertEqual(realm.object(ofType: RTItem.self, forPrimaryKey: 2)?.name, "item2")
        XCTAssertNil(realm.object(ofType: RTItem.self, forPrimaryKey: 99))
        XCTAssertEqual(realm.object(ofType: RTStringKey.self, forPrimaryKey: "k")?.value, 1)
        XCTAssertNil(realm.object(ofType: RTStringKey.self, forPrimaryKey: "K"))
        XCTAssertEqual(realm.object(ofType: RTUUIDKey.self, forPrimaryKey: id)?.value, 2)
        XCTAssertNil(realm.object(ofType: RTUUIDKey.self, forPrimaryKey: UUID()))
        XCTAssertEqual(realm.object(ofType: RTObjectIdKey.self, forPrimaryKey: oid)?.value, 3)
        XCTAssertEqual(realm.object(ofType: RTOptionalIntKey.self, forPrimaryKey: Int?.none)?.value, 4)
        XCTAssertEqual(realm.object(ofType: RTOptionalIntKey.self, forPrimaryKey: 7)?.value, 5)
        XCTAssertEqual(realm.object(ofType: RTOptionalIntKey.self, forPrimaryKey: Int?(7))?.value, 5)
        // The object found is live.
        let item = realm.object(ofType: RTItem.self, forPrimaryKey: 1)!
        try realm.write { item.name = "renamed" }
        XCTAssertEqual(realm.object(ofType: RTItem.self, forPrimaryKey: 1)?.name, "renamed")
        try realm.write { realm.delete(item) }
        XCTAssertNil(realm.object(ofType: RTItem.self, forPrimaryKey: 1))
        XCTAssertTrue(item.isInvalidated)
    }

    func testObjectsOfAClassWithNoObjectsYet() throws {
        XCTAssertEqual(realm.objects(RTNoKey.self).count, 0)
        XCTAssertNil(realm.objects(RTNoKey.self).where { $0.value > 0 }.first)
        XCTAssertEqual(realm.objects(RTNoKey.self).sum(ofProperty: "value") as Int, 0)
        XCTAssertNil(realm.objects(RTNoKey.self).max(ofProperty: "value") as Int?)
    }
}

final class ResultsAnyCollectionTests: XCTestCase {
    private func total<C: RealmCollection>(_ items: C) -> Int where C.Element == RTAnyItem {
        items.reduce(0) { $0 + $1.value }
    }

    func testGenericCodeAndTypeErasureOverResultsAndLists() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "any-collection-\(UUID())", objectTypes: [RTAnyItem.self, RTAnyBag.self]))
        let bag = RTAnyBag()
        try realm.write {
            for i in 1...5 { bag.items.append(RTAnyItem(value: ["value": i])) }
            realm.add(bag)
        }
        XCTAssertEqual(total(realm.objects(RTAnyItem.self)), 15)
        XCTAssertEqual(total(bag.items), 15)
        let erased: [AnyRealmCollection<RTAnyItem>] = [AnyRealmCollection(realm.objects(RTAnyItem.self)), AnyRealmCollection(bag.items)]
        for collection in erased {
            XCTAssertEqual(collection.count, 5)
            XCTAssertEqual(collection.filter("value > 3").count, 2)
            XCTAssertEqual(collection.where { $0.value <= 2 }.count, 2)
            XCTAssertEqual(collection.sorted(byKeyPath: "value", ascending: false).first?.value, 5)
            XCTAssertEqual(collection.sum(ofProperty: "value") as Int, 15)
            XCTAssertEqual(collection.index(of: collection[2]), 2)
            XCTAssertTrue(collection.realm == realm)
        }
    }
}

final class RTAnyItem: Object {
    @Persisted var value = 0
}

final class RTAnyBag: Object {
    @Persisted var items: List<RTAnyItem>
}

final class ResultsKeyValueTests: XCTestCase {
    func testValueForKeyAndSetValueForKey() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "kv-\(UUID())", objectTypes: [RTAnyItem.self, RTAnyBag.self]))
        let bag = RTAnyBag()
        try realm.write {
            for i in 1...3 { bag.items.append(RTAnyItem(value: ["value": i])) }
            realm.add(bag)
        }
        let values = realm.objects(RTAnyItem.self).sorted(byKeyPath: "value").value(forKey: "value") as? [Any]
        XCTAssertEqual(values?.compactMap { $0 as? Int }, [1, 2, 3])
        XCTAssertEqual((bag.items.value(forKey: "value") as? [Any])?.compactMap { $0 as? Int }, [1, 2, 3])
        try realm.write { realm.objects(RTAnyItem.self).setValue(7, forKey: "value") }
        XCTAssertEqual(realm.objects(RTAnyItem.self).sum(ofProperty: "value") as Int, 21)
    }
}
