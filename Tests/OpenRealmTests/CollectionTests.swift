import Foundation
import OpenRealm
import XCTest

final class CollectionItem: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var value: Int
}

final class CollectionNote: EmbeddedObject {
    @Persisted var text: String
    @Persisted var stars: Int
}

enum CollectionPriority: String, PersistableEnum {
    case low, high
}

final class CollectionHolder: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var ints: List<Int>
    @Persisted var strings: List<String>
    @Persisted var optionalInts: List<Int?>
    @Persisted var dates: List<Date>
    @Persisted var datas: List<Data>
    @Persisted var ids: List<ObjectId>
    @Persisted var uuids: List<UUID>
    @Persisted var decimals: List<Decimal128>
    @Persisted var doubles: List<Double>
    @Persisted var bools: List<Bool>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var items: List<CollectionItem>
    @Persisted var notes: List<CollectionNote>

    @Persisted var intSet: MutableSet<Int>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var optionalStringSet: MutableSet<String?>
    @Persisted var itemSet: MutableSet<CollectionItem>

    @Persisted var priorities: List<CollectionPriority>
    @Persisted var optionalPriorities: List<CollectionPriority?>
    @Persisted var prioritySet: MutableSet<CollectionPriority>
    @Persisted var priorityMap: Map<String, CollectionPriority>

    @Persisted var intMap: Map<String, Int>
    @Persisted var optionalStringMap: Map<String, String?>
    @Persisted var itemMap: Map<String, CollectionItem?>
    @Persisted var noteMap: Map<String, CollectionNote?>
}

final class CollectionTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration(
            [CollectionHolder.self, CollectionItem.self, CollectionNote.self]))
    }

    override func tearDown() {
        realm = nil
    }

    /// A managed holder; `body` fills it before it is added.
    private func managedHolder(_ body: (CollectionHolder) -> Void = { _ in }) throws -> CollectionHolder {
        let holder = CollectionHolder()
        body(holder)
        try realm.write { realm.add(holder) }
        return holder
    }

    // MARK: List

    /// The operations every list supports, checked unmanaged and then managed.
    private func exerciseListOfInts(_ list: List<Int>, inWrite write: (() throws -> Void) throws -> Void) throws {
        try write {
            list.append(1)
            list.append(objectsIn: [2, 3, 4])
            list.insert(0, at: 0)
        }
        XCTAssertEqual(Array(list), [0, 1, 2, 3, 4])
        XCTAssertEqual(list.count, 5)
        XCTAssertEqual(list.first, 0)
        XCTAssertEqual(list.last, 4)
        XCTAssertEqual(list[2], 2)
        XCTAssertEqual(list.index(of: 3), 3)
        XCTAssertNil(list.index(of: 42))
        XCTAssertTrue(list.contains(4))
        XCTAssertFalse(list.contains(5))

        try write {
            list[0] = 10
            list.replace(index: 1, object: 11)
        }
        XCTAssertEqual(Array(list), [10, 11, 2, 3, 4])

        try write { list.move(from: 0, to: 4) }
        XCTAssertEqual(Array(list), [11, 2, 3, 4, 10])
        try write { list.swapAt(0, 4) }
        XCTAssertEqual(Array(list), [10, 2, 3, 4, 11])
        try write { list.swapAt(1, 3) }
        XCTAssertEqual(Array(list), [10, 4, 3, 2, 11])

        try write {
            list.remove(at: 1)
            list.removeFirst()
            list.removeLast()
        }
        XCTAssertEqual(Array(list), [3, 2])

        try write { list.replaceSubrange(0..<1, with: [7, 8, 9]) }
        XCTAssertEqual(Array(list), [7, 8, 9, 2])

        try write { list.append(2) }
        XCTAssertEqual(list.index(of: 2), 3, "index(of:) finds the first occurrence")
        XCTAssertEqual(list.reduce(0, +), 28)
        XCTAssertEqual(list.map { $0 * 2 }, [14, 16, 18, 4, 4])

        try write { list.removeAll() }
        XCTAssertTrue(list.isEmpty)
        XCTAssertNil(list.first)
        XCTAssertNil(list.last)
    }

    func testUnmanagedListOfValues() throws {
        let holder = CollectionHolder()
        XCTAssertNil(holder.ints.realm)
        try exerciseListOfInts(holder.ints) { try $0() }
    }

    func testManagedListOfValues() throws {
        let holder = try managedHolder()
        XCTAssertEqual(holder.ints.realm, realm)
        try exerciseListOfInts(holder.ints) { body in try realm.write { try body() } }
    }

    func testListsOfEveryValueType() throws {
        let date = Date(timeIntervalSince1970: 1_000.5)
        let id = ObjectId.generate()
        let uuid = UUID()
        let decimal = try Decimal128(string: "-0.001")
        let holder = try managedHolder { h in
            h.strings.append(objectsIn: ["a", "", "ü"])
            h.optionalInts.append(objectsIn: [1, nil, 3])
            h.dates.append(date)
            h.datas.append(objectsIn: [Data([1, 2]), Data()])
            h.ids.append(id)
            h.uuids.append(uuid)
            h.decimals.append(decimal)
            h.doubles.append(objectsIn: [1.5, -0.0, .infinity])
            h.bools.append(objectsIn: [true, false])
            h.mixed.append(objectsIn: [.int(1), .string("two"), .none, .double(3.5)])
        }
        XCTAssertEqual(Array(holder.strings), ["a", "", "ü"])
        XCTAssertEqual(Array(holder.optionalInts), [1, nil, 3])
        XCTAssertEqual(Array(holder.dates), [date])
        XCTAssertEqual(Array(holder.datas), [Data([1, 2]), Data()])
        XCTAssertEqual(Array(holder.ids), [id])
        XCTAssertEqual(Array(holder.uuids), [uuid])
        XCTAssertEqual(Array(holder.decimals), [decimal])
        XCTAssertEqual(Array(holder.doubles), [1.5, -0.0, .infinity])
        XCTAssertEqual(Array(holder.bools), [true, false])
        XCTAssertEqual(Array(holder.mixed), [.int(1), .string("two"), .none, .double(3.5)])
        XCTAssertEqual(holder.optionalInts.index(of: nil), 1)
        XCTAssertEqual(holder.strings.index(of: ""), 1)

        try realm.write {
            holder.optionalInts[0] = nil
            holder.mixed.append(.bool(true))
        }
        XCTAssertEqual(Array(holder.optionalInts), [nil, nil, 3])
        XCTAssertEqual(holder.mixed.last, .bool(true))
    }

    func testListOfObjects() throws {
        let a = CollectionItem(value: ["name": "a", "value": 1])
        let holder = try managedHolder { $0.items.append(a) }
        XCTAssertEqual(a.realm, realm, "an unmanaged object in a list is added with the list's owner")

        let b = CollectionItem(value: ["name": "b", "value": 2])
        try realm.write {
            holder.items.append(b)
            holder.items.append(a)
        }
        XCTAssertEqual(b.realm, realm, "appending an unmanaged object to a managed list adds it")
        XCTAssertEqual(holder.items.map(\.name), ["a", "b", "a"], "a list may hold the same object twice")
        XCTAssertEqual(holder.items[0], holder.items[2])
        XCTAssertEqual(holder.items.index(of: b), 1)
        XCTAssertTrue(holder.items.contains(a))
        XCTAssertNil(holder.items.index(of: CollectionItem(value: ["name": "unmanaged"])))

        try realm.write { holder.items[1].value = 20 }
        XCTAssertEqual(b.value, 20, "list elements are live accessors of the objects")

        try realm.write { holder.items.remove(at: 0) }
        XCTAssertFalse(a.isInvalidated, "removing from a list does not delete the object")
        XCTAssertEqual(holder.items.map(\.name), ["b", "a"])

        try realm.write { holder.items.insert(CollectionItem(value: ["name": "c"]), at: 1) }
        XCTAssertEqual(holder.items.map(\.name), ["b", "c", "a"])
    }

    func testAppendingAnObjectWithAnExistingPrimaryKeyFailsTheWrite() throws {
        let holder = try managedHolder { $0.items.append(CollectionItem(value: ["name": "taken"])) }
        assertThrowsRealmError(.primaryKeyExists, messageContains: ["taken"]) {
            try self.realm.write { holder.items.append(CollectionItem(value: ["name": "taken"])) }
        }
        XCTAssertEqual(holder.items.count, 1)
    }

    func testListOfEmbeddedObjects() throws {
        let first = CollectionNote(value: ["text": "first", "stars": 1])
        let holder = try managedHolder { $0.notes.append(first) }
        XCTAssertEqual(first.realm, realm)
        try realm.write {
            holder.notes.append(CollectionNote(value: ["text": "second", "stars": 2]))
            holder.notes.insert(CollectionNote(value: ["zeroth", 0]), at: 0)
        }
        XCTAssertEqual(holder.notes.map(\.text), ["zeroth", "first", "second"])
        XCTAssertEqual(holder.notes.map(\.stars), [0, 1, 2])

        try realm.write { holder.notes[1].stars = 5 }
        XCTAssertEqual(first.stars, 5)

        let removed = holder.notes[0]
        try realm.write { holder.notes.remove(at: 0) }
        XCTAssertTrue(removed.isInvalidated, "an embedded object removed from its list is deleted")
        XCTAssertEqual(holder.notes.map(\.text), ["first", "second"])

        let replaced = holder.notes[1]
        try realm.write { holder.notes[1] = CollectionNote(value: ["text": "replacement"]) }
        XCTAssertTrue(replaced.isInvalidated)
        XCTAssertEqual(holder.notes.map(\.text), ["first", "replacement"])

        try realm.write { holder.notes.removeAll() }
        XCTAssertTrue(first.isInvalidated)
        XCTAssertTrue(holder.notes.isEmpty)
    }

    func testMovingEmbeddedObjectsKeepsThem() throws {
        let holder = try managedHolder { h in
            h.notes.append(objectsIn: ["a", "b", "c"].map { CollectionNote(value: ["text": $0]) })
        }
        try realm.write { holder.notes.move(from: 0, to: 2) }
        XCTAssertEqual(holder.notes.map(\.text), ["b", "c", "a"])
        try realm.write { holder.notes.swapAt(0, 1) }
        XCTAssertEqual(holder.notes.map(\.text), ["c", "b", "a"])
    }

    func testAssigningEmbeddedCollectionsToThemselvesKeepsThem() throws {
        let holder = try managedHolder { h in
            h.notes.append(objectsIn: [CollectionNote(value: ["a", 1]), CollectionNote(value: ["b", 2])])
            h.noteMap["x"] = CollectionNote(value: ["x", 3])
            h.noteMap.updateValue(nil, forKey: "none")
        }
        try realm.write {
            holder.notes = holder.notes
            holder.noteMap = holder.noteMap
        }
        XCTAssertEqual(holder.notes.map(\.text), ["a", "b"])
        XCTAssertEqual(holder.notes.map(\.stars), [1, 2])
        XCTAssertEqual(holder.noteMap["x"]??.stars, 3)
        XCTAssertEqual(holder.noteMap.keys, ["none", "x"])

        try realm.write {
            holder.notes[0] = holder.notes[0]
            holder.notes.append(holder.notes[1])
            holder.noteMap["x"] = holder.noteMap["x"]!
        }
        XCTAssertEqual(holder.notes.map(\.text), ["a", "b", "b"])
        XCTAssertEqual(holder.noteMap["x"]??.text, "x")
        try realm.write { holder.notes[2].text = "copy" }
        XCTAssertEqual(holder.notes.map(\.text), ["a", "b", "copy"], "an appended embedded object is a copy")
    }

    func testAssigningAListPropertyReplacesItsContents() throws {
        let holder = try managedHolder { $0.ints.append(objectsIn: [1, 2]) }
        try realm.write { holder.ints = List([7, 8, 9]) }
        XCTAssertEqual(Array(holder.ints), [7, 8, 9])
        let other = try managedHolder { $0.ints.append(objectsIn: [4, 5]) }
        try realm.write { holder.ints = other.ints }
        XCTAssertEqual(Array(holder.ints), [4, 5])
        try realm.write { holder["strings"] = ["x", "y"] }
        XCTAssertEqual(Array(holder.strings), ["x", "y"])
    }

    func testAListOutlivesNothing() throws {
        let holder = try managedHolder { $0.ints.append(1) }
        let list = holder.ints
        XCTAssertFalse(list.isInvalidated)
        try realm.write { realm.delete(holder) }
        XCTAssertTrue(list.isInvalidated, "a list is invalidated with its owner")
    }

    func testOutOfRangeWritesFailTheWrite() throws {
        let holder = try managedHolder { $0.ints.append(1) }
        assertThrowsRealmError(.invalidArgument, messageContains: ["5"]) {
            try self.realm.write { holder.ints.insert(3, at: 5) }
        }
        assertThrowsRealmError(.invalidArgument) {
            try self.realm.write { holder.ints.remove(at: 3) }
        }
        assertThrowsRealmError(.invalidArgument) {
            try self.realm.write { holder.ints.move(from: 0, to: 4) }
        }
        XCTAssertEqual(Array(holder.ints), [1])
    }

    func testListDescription() throws {
        let holder = try managedHolder { $0.strings.append(objectsIn: ["alpha", "beta"]) }
        XCTAssertTrue(holder.strings.description.contains("alpha"))
        XCTAssertTrue(holder.strings.description.contains("beta"))
    }

    // MARK: MutableSet

    private func exerciseSetOfInts(_ set: MutableSet<Int>, other: MutableSet<Int>,
                                   inWrite write: (() throws -> Void) throws -> Void) throws {
        try write {
            set.insert(3)
            set.insert(1)
            set.insert(3)
            set.insert(objectsIn: [2, 2, 1])
            other.insert(objectsIn: [2, 3, 4])
        }
        XCTAssertEqual(set.count, 3, "duplicates are ignored")
        XCTAssertEqual(Set(set), [1, 2, 3])
        XCTAssertTrue(set.contains(2))
        XCTAssertFalse(set.contains(4))
        XCTAssertTrue(set.intersects(other))
        XCTAssertFalse(set.isSubset(of: other))

        try write { set.remove(1) }
        XCTAssertEqual(Set(set), [2, 3])
        XCTAssertTrue(set.isSubset(of: other))
        try write { set.remove(42) }
        XCTAssertEqual(set.count, 2, "removing a missing value changes nothing")

        try write { set.formUnion(other) }
        XCTAssertEqual(Set(set), [2, 3, 4])
        try write {
            other.remove(4)
            set.formIntersection(other)
        }
        XCTAssertEqual(Set(set), [2, 3])
        try write { set.subtract(other) }
        XCTAssertTrue(set.isEmpty)

        try write { set.insert(objectsIn: [9, 8]) }
        try write { set.removeAll() }
        XCTAssertEqual(set.count, 0)
    }

    func testUnmanagedSet() throws {
        let holder = CollectionHolder()
        try exerciseSetOfInts(holder.intSet, other: MutableSet<Int>()) { try $0() }
    }

    func testManagedSet() throws {
        let holder = try managedHolder()
        let other = try managedHolder()
        XCTAssertEqual(holder.intSet.realm, realm)
        try exerciseSetOfInts(holder.intSet, other: other.intSet) { body in try realm.write { try body() } }
    }

    func testManagedSetWithAnUnmanagedOperand() throws {
        let holder = try managedHolder { $0.stringSet.insert(objectsIn: ["a", "b"]) }
        let operand = MutableSet(["b", "c"])
        XCTAssertTrue(holder.stringSet.intersects(operand))
        try realm.write { holder.stringSet.formUnion(operand) }
        XCTAssertEqual(Set(holder.stringSet), ["a", "b", "c"])
    }

    func testSetOfOptionalStrings() throws {
        let holder = try managedHolder { $0.optionalStringSet.insert(objectsIn: [nil, "x", nil]) }
        XCTAssertEqual(holder.optionalStringSet.count, 2)
        XCTAssertTrue(holder.optionalStringSet.contains(nil))
        XCTAssertTrue(holder.optionalStringSet.contains("x"))
        try realm.write { holder.optionalStringSet.remove(nil) }
        XCTAssertEqual(Array(holder.optionalStringSet), ["x"])
    }

    func testSetOfObjects() throws {
        let a = CollectionItem(value: ["name": "a"])
        let holder = try managedHolder { h in
            h.itemSet.insert(a)
            h.itemSet.insert(a)
        }
        XCTAssertEqual(a.realm, realm)
        XCTAssertEqual(holder.itemSet.count, 1)
        let b = CollectionItem(value: ["name": "b"])
        try realm.write {
            holder.itemSet.insert(b)
            holder.itemSet.insert(b)
        }
        XCTAssertEqual(holder.itemSet.count, 2)
        XCTAssertEqual(Set(holder.itemSet.map(\.name)), ["a", "b"])
        XCTAssertTrue(holder.itemSet.contains(b))
        XCTAssertFalse(holder.itemSet.contains(CollectionItem(value: ["name": "a"])),
                       "an unmanaged object is never in a managed set")
        try realm.write { holder.itemSet.remove(a) }
        XCTAssertEqual(holder.itemSet.map(\.name), ["b"])
        XCTAssertFalse(a.isInvalidated)
    }

    // MARK: Map

    private func exerciseMapOfInts(_ map: Map<String, Int>, inWrite write: (() throws -> Void) throws -> Void) throws {
        try write {
            map["b"] = 2
            map["a"] = 1
            map.setValue(3, forKey: "c")
            map.updateValue(4, forKey: "d")
        }
        XCTAssertEqual(map.count, 4)
        XCTAssertEqual(map["a"], 1)
        XCTAssertEqual(map.object(forKey: "c"), 3)
        XCTAssertNil(map["missing"])
        XCTAssertEqual(map.keys, ["a", "b", "c", "d"], "keys come in key order")
        XCTAssertEqual(map.values, [1, 2, 3, 4])
        XCTAssertEqual(map.map { "\($0.key)=\($0.value)" }, ["a=1", "b=2", "c=3", "d=4"])

        try write { map["a"] = 10 }
        XCTAssertEqual(map["a"], 10)
        XCTAssertEqual(map.count, 4)

        try write {
            map["b"] = nil
            map.removeObject(for: "c")
        }
        XCTAssertEqual(map.keys, ["a", "d"])

        try write { map.merge([(key: "a", value: 5), (key: "e", value: 6)]) { $0 + $1 } }
        XCTAssertEqual(map["a"], 15)
        XCTAssertEqual(map["e"], 6)
        XCTAssertEqual(map.asKeyValueSequence().count, 3)

        try write { map.removeAll() }
        XCTAssertTrue(map.isEmpty)
    }

    func testUnmanagedMap() throws {
        try exerciseMapOfInts(CollectionHolder().intMap) { try $0() }
    }

    func testManagedMap() throws {
        let holder = try managedHolder()
        XCTAssertEqual(holder.intMap.realm, realm)
        try exerciseMapOfInts(holder.intMap) { body in try realm.write { try body() } }
    }

    func testMapOfOptionalValues() throws {
        let holder = try managedHolder { h in
            h.optionalStringMap["some"] = "value"
            h.optionalStringMap.updateValue(nil, forKey: "none")
        }
        XCTAssertEqual(holder.optionalStringMap.count, 2)
        XCTAssertEqual(holder.optionalStringMap["some"], "value")
        XCTAssertEqual(holder.optionalStringMap["none"], Optional<String?>.some(nil), "the key is present, with a nil value")
        XCTAssertEqual(holder.optionalStringMap["absent"], Optional<String?>.none)
        try realm.write { holder.optionalStringMap["some"] = nil }
        XCTAssertEqual(holder.optionalStringMap.keys, ["none"], "assigning nil through the subscript removes the key")
    }

    func testMapOfObjects() throws {
        let a = CollectionItem(value: ["name": "a", "value": 1])
        let holder = try managedHolder { $0.itemMap["first"] = a }
        XCTAssertEqual(a.realm, realm)
        XCTAssertEqual(holder.itemMap["first"]??.name, "a")
        try realm.write {
            holder.itemMap["second"] = CollectionItem(value: ["name": "b", "value": 2])
            holder.itemMap["alias"] = a
        }
        XCTAssertEqual(holder.itemMap.count, 3)
        XCTAssertEqual(holder.itemMap["alias"]!!, a)
        XCTAssertEqual(holder.itemMap["second"]??.value, 2)
    }

    func testMapOfEmbeddedObjects() throws {
        let holder = try managedHolder { $0.noteMap["x"] = CollectionNote(value: ["text": "ex"]) }
        XCTAssertEqual(holder.noteMap["x"]??.text, "ex")
        let old = holder.noteMap["x"]!!
        try realm.write { holder.noteMap["x"] = CollectionNote(value: ["text": "new ex"]) }
        XCTAssertEqual(holder.noteMap["x"]??.text, "new ex")
        XCTAssertTrue(old.isInvalidated, "replacing an embedded map value deletes the old object")
        XCTAssertEqual(holder.noteMap.count, 1)
        try realm.write { holder.noteMap["x"] = nil }
        XCTAssertEqual(holder.noteMap.count, 0)
    }

    func testInvalidMapKeysFailTheWrite() throws {
        let holder = try managedHolder()
        for key in ["a.b", "$dollar", ""] {
            assertThrowsRealmError(.invalidArgument, messageContains: ["intMap"]) {
                try self.realm.write { holder.intMap[key] = 1 }
            }
        }
        XCTAssertEqual(holder.intMap.count, 0)
        try realm.write { holder.intMap["a$b"] = 1 }
        XCTAssertEqual(holder.intMap["a$b"], 1, "a '$' that is not the first character is fine")
    }

    // MARK: Enums in collections

    func testCollectionsOfEnums() throws {
        let holder = try managedHolder { h in
            h.priorities.append(objectsIn: [.high, .low, .high])
            h.optionalPriorities.append(objectsIn: [nil, .low])
            h.prioritySet.insert(objectsIn: [.high, .high])
            h.priorityMap["today"] = .high
        }
        XCTAssertEqual(Array(holder.priorities), [.high, .low, .high])
        XCTAssertEqual(Array(holder.optionalPriorities), [nil, .low])
        XCTAssertEqual(Array(holder.prioritySet), [.high])
        XCTAssertEqual(holder.priorityMap["today"], .high)
        XCTAssertEqual(holder.priorities.index(of: .low), 1)
        XCTAssertEqual(holder.objectSchema["priorities"]?.type, .string)
        XCTAssertEqual(holder.objectSchema["priorities"]?.isArray, true)

        try realm.write {
            holder.priorities[0] = .low
            holder["prioritySet"] = ["low", "high"]
        }
        XCTAssertEqual(Array(holder.priorities), [.low, .low, .high])
        XCTAssertEqual(Set(holder.prioritySet), [.low, .high])
        assertThrowsRealmError(.invalidValue, messageContains: ["medium"]) {
            try self.realm.write { holder["priorities"] = ["medium"] }
        }
    }

    // MARK: Collections from Object(value:) and create

    func testCollectionsFromValues() throws {
        let holder = try realm.write {
            realm.create(CollectionHolder.self, value: [
                "ints": [3, 2, 1],
                "optionalInts": [NSNull(), 1],
                "items": [["name": "x", "value": 1], ["y", 2]],
                "notes": [["text": "n1"], ["text": "n2", "stars": 3]],
                "stringSet": ["s", "s", "t"],
                "intMap": ["k": 1, "l": 2],
                "itemMap": ["one": ["name": "z"]],
            ])
        }
        XCTAssertEqual(Array(holder.ints), [3, 2, 1])
        XCTAssertEqual(Array(holder.optionalInts), [nil, 1])
        XCTAssertEqual(holder.items.map(\.name), ["x", "y"])
        XCTAssertEqual(holder.items[1].value, 2)
        XCTAssertEqual(holder.notes.map(\.text), ["n1", "n2"])
        XCTAssertEqual(holder.notes[1].stars, 3)
        XCTAssertEqual(Set(holder.stringSet), ["s", "t"])
        XCTAssertEqual(holder.intMap["l"], 2)
        XCTAssertEqual(holder.itemMap["one"]??.name, "z")

        let copy = CollectionHolder(value: holder)
        XCTAssertNil(copy.realm)
        XCTAssertNil(copy.ints.realm, "a copy's collections are unmanaged")
        XCTAssertEqual(Array(copy.ints), [3, 2, 1])
        XCTAssertEqual(copy.notes.map(\.text), ["n1", "n2"])
        XCTAssertEqual(copy.intMap["k"], 1)
        copy.ints.append(0)
        XCTAssertEqual(holder.ints.count, 3)
    }

    func testAWrongElementTypeFailsTheWrite() throws {
        assertThrowsRealmError(.invalidValue, messageContains: ["ints"]) {
            try self.realm.write { _ = self.realm.create(CollectionHolder.self, value: ["ints": ["one"]]) }
        }
        assertThrowsRealmError(.invalidValue, messageContains: ["intMap"]) {
            try self.realm.write { _ = self.realm.create(CollectionHolder.self, value: ["intMap": [1, 2]]) }
        }
        // Not a sequence at all: the collection's type is named.
        assertThrowsRealmError(.invalidValue, messageContains: ["'7'", "List<Int>", "expected a sequence"]) {
            try self.realm.write { _ = self.realm.create(CollectionHolder.self, value: ["ints": 7]) }
        }
        assertThrowsRealmError(.invalidValue, messageContains: ["'3'", "MutableSet<String>", "expected a sequence"]) {
            try self.realm.write { _ = self.realm.create(CollectionHolder.self, value: ["stringSet": 3]) }
        }
        XCTAssertEqual(realm.objects(CollectionHolder.self).count, 0)
    }
}

final class CollectionMapQueryTests: XCTestCase {
    func testQueriesOverMapValues() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "map-query-\(UUID())", objectTypes: [CMQOwner.self, CMQItem.self]))
        let owner = CMQOwner()
        try realm.write {
            realm.add(owner)
            for i in 0..<6 { owner.items["k\(i)"] = CMQItem(value: ["price": i * 10]) }
            owner.items["none"] = nil as CMQItem?
            for (i, score) in [3.5, 1.5, 2.0].enumerated() { owner.scores["s\(i)"] = score }
        }
        XCTAssertEqual(owner.items.filter("price >= 30").count, 3)
        XCTAssertEqual(owner.items.where { $0.price < 20 }.count, 2)
        XCTAssertEqual(owner.items.sorted(byKeyPath: "price", ascending: false).first?.price, 50)
        XCTAssertEqual(owner.items.max(ofProperty: "price") as Int?, 50)
        XCTAssertEqual(owner.items.sum(ofProperty: "price") as Int, 150)
        XCTAssertEqual(owner.scores.min(), 1.5)
        XCTAssertEqual(owner.scores.max(), 3.5)
        XCTAssertEqual(owner.scores.sum(), 7.0)
        XCTAssertEqual(owner.scores.average(), 7.0 / 3)
        XCTAssertEqual(owner.scores.sorted(), [1.5, 2.0, 3.5])
    }
}

final class CMQOwner: Object {
    @Persisted var items: Map<String, CMQItem?>
    @Persisted var scores: Map<String, Double>
}

final class CMQItem: Object {
    @Persisted var price = 0
}
