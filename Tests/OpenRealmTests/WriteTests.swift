import Foundation
import OpenRealm
import XCTest

final class WriteTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
    @Persisted var dueDate: Date
}

final class WriteTeam: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<WriteTask>
    @Persisted var members: List<String>
    @Persisted var lead: WritePerson?
}

final class WritePerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var nickname: String?
    @Persisted var friend: WritePerson?
    @Persisted var pets: List<WritePet>
    @Persisted var favorites: MutableSet<WritePet>
    @Persisted var petsByName: Map<String, WritePet?>
    @Persisted var home: WriteHome?
}

/// A class without a primary key.
final class WritePet: Object {
    @Persisted var name: String
    @Persisted var owner: WritePerson?
}

final class WriteHome: EmbeddedObject {
    @Persisted var street: String
}

final class WriteOptionalKey: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var value: Int
}

private struct WriteTestFailure: Error {}

final class WriteTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration(
            [WriteTask.self, WriteTeam.self, WritePerson.self, WritePet.self, WriteHome.self]))
    }

    override func tearDown() {
        realm = nil
    }

    // MARK: Transactions

    func testWriteReturnsTheBlocksValue() throws {
        XCTAssertFalse(realm.isInWriteTransaction)
        let task = try realm.write { () -> WriteTask in
            XCTAssertTrue(realm.isInWriteTransaction)
            return realm.create(WriteTask.self, value: ["taskName": "Returned"])
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(task.taskName, "Returned")
        XCTAssertEqual(task.realm, realm)
        let count = try realm.write { 41 + 1 }
        XCTAssertEqual(count, 42)
    }

    func testBeginAndCommitWrite() throws {
        let task = WriteTask(value: ["taskName": "Manual"])
        realm.beginWrite()
        XCTAssertTrue(realm.isInWriteTransaction)
        realm.add(task)
        task.progressMinutes = 10
        try realm.commitWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(task.progressMinutes, 10)
        XCTAssertEqual(try realm.upsertLookup(WriteTask.self, primaryKey: "_id", task._id).taskName, "Manual")
    }

    func testCancelWriteDiscardsEverything() throws {
        let kept = WriteTask(value: ["taskName": "Kept", "progressMinutes": 1])
        try realm.write { realm.add(kept) }

        let added = WriteTask(value: ["taskName": "Discarded"])
        let addedId = added._id
        realm.beginWrite()
        realm.add(added)
        kept.progressMinutes = 99
        kept.assignee = "Someone"
        XCTAssertEqual(kept.progressMinutes, 99, "a write is visible inside its transaction")
        realm.cancelWrite()

        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(kept.progressMinutes, 1)
        XCTAssertNil(kept.assignee)
        XCTAssertTrue(added.isInvalidated, "an object added in a cancelled write no longer exists")
        let lookup = try realm.upsertLookup(WriteTask.self, primaryKey: "_id", addedId)
        XCTAssertEqual(lookup.taskName, "", "nothing of the cancelled write was stored")
    }

    func testAThrowingBlockRollsBackTheWrite() throws {
        let task = WriteTask(value: ["taskName": "Before"])
        try realm.write { realm.add(task) }
        let other = WriteTask(value: ["taskName": "Never stored"])
        XCTAssertThrowsError(try realm.write {
            task.taskName = "After"
            realm.add(other)
            throw WriteTestFailure()
        }) { error in
            XCTAssertTrue(error is WriteTestFailure, "write rethrows the block's own error")
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(task.taskName, "Before")
        XCTAssertTrue(other.isInvalidated)
        // The realm still writes normally afterwards.
        try realm.write { task.taskName = "Later" }
        XCTAssertEqual(task.taskName, "Later")
    }

    func testCommitWriteThrowsTheFirstFailureAndRollsBack() throws {
        try realm.write { realm.add(WritePerson(value: ["name": "Taken"])) }
        let kept = WritePerson(value: ["name": "Would be kept"])
        realm.beginWrite()
        realm.add(kept)
        realm.add(WritePerson(value: ["name": "Taken"]))
        realm.create(WritePerson.self, value: ["name": "Other", "age": "not a number"])
        XCTAssertTrue(realm.isInWriteTransaction, "a failed write leaves the transaction open until commit")
        assertThrowsRealmError(.primaryKeyExists, messageContains: ["Taken"]) { try self.realm.commitWrite() }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertTrue(kept.isInvalidated)
        // The next transaction starts clean.
        try realm.write { realm.add(WritePerson(value: ["name": "Fresh"])) }
    }

    func testTransactionCallsAtTheWrongTimeThrow() throws {
        assertThrowsRealmError(.wrongTransactionState) { try self.realm.commitWrite() }
        realm.beginWrite()
        assertThrowsRealmError(.wrongTransactionState) { try self.realm.write {} }
        assertThrowsRealmError(.wrongTransactionState) { try self.realm.write {} }
        XCTAssertTrue(realm.isInWriteTransaction, "the failed nested begin leaves the outer write open")
        realm.cancelWrite()
    }

    func testASecondWriteOnTheSameThreadThrowsInsteadOfWaiting() throws {
        let other = try Realm(configuration: realm.configuration)
        realm.beginWrite()
        assertThrowsRealmError(.wrongTransactionState) { try other.write {} }
        assertThrowsRealmError(.wrongTransactionState) { try other.write {} }
        XCTAssertTrue(realm.isInWriteTransaction, "the refused begin leaves the first write open")
        realm.cancelWrite()
        try other.write { other.add(WritePerson(value: ["name": "After"])) }
    }

    func testAWriteCommittedOnOneInstanceIsSeenByAnotherAfterRefresh() throws {
        let other = try Realm(configuration: realm.configuration)
        let task = WriteTask(value: ["taskName": "Shared"])
        try realm.write { realm.add(task) }
        let seen = try other.upsertLookup(WriteTask.self, primaryKey: "_id", task._id)
        XCTAssertEqual(seen.taskName, "Shared", "a write starts from the latest version")
        XCTAssertEqual(seen.realm, other)
        try other.write { seen.progressMinutes = 5 }
        realm.refresh()
        XCTAssertEqual(task.progressMinutes, 5)
    }

    // MARK: add and create

    func testAddMakesTheObjectAndEverythingItLinksToManaged() throws {
        let team = WriteTeam(value: ["teamName": "Docs", "members": ["Bob Smith"]])
        let task = WriteTask(value: ["taskName": "Write", "progressMinutes": 60])
        let lead = WritePerson(value: ["name": "Lead"])
        team.tasks.append(task)
        team.lead = lead
        try realm.write { realm.add(team) }
        XCTAssertEqual(team.realm, realm)
        XCTAssertEqual(task.realm, realm, "objects in a list are added with their parent")
        XCTAssertEqual(lead.realm, realm, "a linked object is added with its parent")
        XCTAssertEqual(team.tasks.first, task)
        XCTAssertEqual(team.lead, lead)
        XCTAssertEqual(Array(team.members), ["Bob Smith"])

        // Adding an object that is already managed by this realm changes nothing.
        try realm.write { realm.add(task) }
        XCTAssertEqual(task.taskName, "Write")
    }

    func testAddASequence() throws {
        let tasks = (0..<5).map { WriteTask(value: ["taskName": "t\($0)", "progressMinutes": $0]) }
        try realm.write { realm.add(tasks) }
        for (i, task) in tasks.enumerated() {
            XCTAssertEqual(task.realm, realm)
            XCTAssertEqual(task.progressMinutes, i)
        }
    }

    func testDuplicatePrimaryKeyFailsTheWriteAndCommitsNothing() throws {
        let id = ObjectId.generate()
        try realm.write { realm.add(WriteTask(value: ["_id": id, "taskName": "Original"])) }

        let innocent = WriteTask(value: ["taskName": "Added before the duplicate"])
        let innocentId = innocent._id
        let duplicate = WriteTask(value: ["_id": id, "taskName": "Duplicate"])
        let error = assertThrowsRealmError(.primaryKeyExists, messageContains: ["WriteTask", id.stringValue]) {
            try self.realm.write {
                self.realm.add(innocent)
                self.realm.add(duplicate)
            }
        }
        XCTAssertNotNil(error)
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertTrue(innocent.isInvalidated, "the other object of the write was rolled back")
        XCTAssertEqual(try realm.upsertLookup(WriteTask.self, primaryKey: "_id", innocentId).taskName, "")
        XCTAssertEqual(try realm.upsertLookup(WriteTask.self, primaryKey: "_id", id).taskName, "Original")

        // The catch-by-code form works too.
        do {
            try realm.write { realm.add(WriteTask(value: ["_id": id])) }
            XCTFail("expected a duplicate primary key error")
        } catch Realm.Error.primaryKeyExists {
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    func testDuplicatePrimaryKeyOfALinkedObjectFailsTheWrite() throws {
        try realm.write { realm.add(WritePerson(value: ["name": "Ann", "age": 30])) }
        let team = WriteTeam(value: ["teamName": "T"])
        team.lead = WritePerson(value: ["name": "Ann", "age": 99])
        assertThrowsRealmError(.primaryKeyExists, messageContains: ["WritePerson", "Ann"]) {
            try self.realm.write { self.realm.add(team) }
        }
        XCTAssertEqual(try realm.upsertLookup(WritePerson.self, primaryKey: "name", "Ann").age, 30)
    }

    func testAddWithUpdateModifiedOverwritesTheExistingObject() throws {
        let id = ObjectId.generate()
        let original = WriteTask(value: ["_id": id, "taskName": "Old", "assignee": "Ann", "progressMinutes": 5])
        try realm.write { realm.add(original) }

        let replacement = WriteTask(value: ["_id": id, "taskName": "New", "progressMinutes": 5])
        try realm.write { realm.add(replacement, update: .modified) }
        XCTAssertEqual(replacement.realm, realm)
        XCTAssertEqual(replacement, original, "the added object now is the existing row")
        XCTAssertEqual(original.taskName, "New")
        XCTAssertNil(original.assignee, "every property of the added object is written, nil included")
        XCTAssertEqual(original.progressMinutes, 5)
    }

    func testAddWithUpdateAllOverwritesEveryProperty() throws {
        let id = ObjectId.generate()
        let original = WriteTask(value: ["_id": id, "taskName": "Old", "assignee": "Ann", "completed": true])
        try realm.write { realm.add(original) }
        let replacement = WriteTask(value: ["_id": id, "taskName": "All"])
        try realm.write { realm.add(replacement, update: .all) }
        XCTAssertEqual(original.taskName, "All")
        XCTAssertNil(original.assignee)
        XCTAssertFalse(original.completed)
    }

    func testAddWithUpdateCreatesWhenNoObjectExists() throws {
        let task = WriteTask(value: ["taskName": "Fresh"])
        try realm.write { realm.add(task, update: .modified) }
        XCTAssertEqual(task.realm, realm)
        XCTAssertEqual(task.taskName, "Fresh")
        let other = WriteTask(value: ["taskName": "Fresh too"])
        try realm.write { realm.add(other, update: .all) }
        XCTAssertEqual(other.taskName, "Fresh too")
    }

    func testUpdateNeedsAPrimaryKey() throws {
        assertThrowsRealmError(.invalidArgument, messageContains: ["WritePet", "primary key"]) {
            try self.realm.write { self.realm.add(WritePet(value: ["name": "Rex"]), update: .modified) }
        }
        assertThrowsRealmError(.invalidArgument, messageContains: ["WritePet"]) {
            try self.realm.write { _ = self.realm.create(WritePet.self, value: ["name": "Rex"], update: .all) }
        }
    }

    func testUpdateReplacesCollections() throws {
        let person = WritePerson(value: ["name": "Col", "pets": [["name": "a"], ["name": "b"]]])
        try realm.write { realm.add(person) }
        let oldPets = Array(person.pets)
        let update = WritePerson(value: ["name": "Col", "pets": [["name": "c"]]])
        try realm.write { realm.add(update, update: .modified) }
        XCTAssertEqual(person.pets.map(\.name), ["c"])
        XCTAssertFalse(oldPets[0].isInvalidated, "objects dropped from a list are not deleted")
    }

    func testCreateFromDictionaryArrayAndObject() throws {
        let fromDictionary = try realm.write {
            realm.create(WritePerson.self, value: ["name": "Dict", "age": 1, "friend": ["name": "Nested friend"]])
        }
        XCTAssertEqual(fromDictionary.realm, realm)
        XCTAssertEqual(fromDictionary.friend?.name, "Nested friend")
        XCTAssertEqual(fromDictionary.friend?.realm, realm)

        let fromArray = try realm.write {
            realm.create(WritePet.self, value: ["Arr", NSNull()])
        }
        XCTAssertEqual(fromArray.name, "Arr")
        XCTAssertNil(fromArray.owner)

        let template = WritePerson(value: ["name": "Template", "age": 3, "nickname": "T"])
        let fromObject = try realm.write { realm.create(WritePerson.self, value: template) }
        XCTAssertNil(template.realm, "create copies the values; the source stays unmanaged")
        XCTAssertFalse(fromObject === template)
        XCTAssertEqual(fromObject.nickname, "T")
        XCTAssertEqual(fromObject.age, 3)

        // A managed object as the value of create with an update policy upserts a copy.
        let copy = try realm.write { realm.create(WritePerson.self, value: fromObject, update: .all) }
        XCTAssertEqual(copy, fromObject)
    }

    func testCreateWithUpdateModifiedChangesOnlyTheGivenProperties() throws {
        let id = ObjectId.generate()
        let task = try realm.write {
            realm.create(WriteTask.self, value: ["_id": id, "taskName": "Start", "assignee": "Ann", "progressMinutes": 10])
        }
        let updated = try realm.write {
            realm.create(WriteTask.self, value: ["_id": id, "progressMinutes": 20], update: .modified)
        }
        XCTAssertEqual(updated, task)
        XCTAssertEqual(task.progressMinutes, 20)
        XCTAssertEqual(task.taskName, "Start", "properties not given are left alone")
        XCTAssertEqual(task.assignee, "Ann")

        try realm.write { _ = realm.create(WriteTask.self, value: ["_id": id, "assignee": NSNull()], update: .all) }
        XCTAssertNil(task.assignee, "an explicit null clears the property")
        XCTAssertEqual(task.taskName, "Start")
    }

    func testCreateWithDuplicatePrimaryKeyFails() throws {
        try realm.write { _ = realm.create(WritePerson.self, value: ["name": "Dup"]) }
        assertThrowsRealmError(.primaryKeyExists, messageContains: ["Dup"]) {
            try self.realm.write { _ = self.realm.create(WritePerson.self, value: ["name": "Dup", "age": 2]) }
        }
        XCTAssertEqual(try realm.upsertLookup(WritePerson.self, primaryKey: "name", "Dup").age, 0)
    }

    func testCreateWithNestedUpdatesUpdatesLinkedObjects() throws {
        try realm.write { _ = realm.create(WritePerson.self, value: ["name": "Friend", "age": 1, "nickname": "F"]) }
        let person = try realm.write {
            realm.create(WritePerson.self, value: ["name": "Main", "friend": ["name": "Friend", "age": 2]], update: .modified)
        }
        XCTAssertEqual(person.friend?.age, 2, "a nested dictionary updates the linked object with the same primary key")
        XCTAssertEqual(person.friend?.nickname, "F")
    }

    func testUpdateUpdatesLinkedObjectsWithTheSamePrimaryKey() throws {
        try realm.write { realm.add(WritePerson(value: ["name": "Lead", "age": 1, "nickname": "L"])) }
        let team = WriteTeam(value: ["teamName": "T", "lead": ["name": "Lead", "age": 2]])
        try realm.write { realm.add(team, update: .modified) }
        XCTAssertEqual(team.lead?.age, 2)
        XCTAssertNil(team.lead?.nickname, "the linked object's properties are all written")
        assertThrowsRealmError(.primaryKeyExists) {
            try self.realm.write { self.realm.add(WriteTeam(value: ["lead": ["name": "Lead"]])) }
        }
    }

    func testChangingThePrimaryKeyOfAManagedObjectFailsTheWrite() throws {
        let person = WritePerson(value: ["name": "Fixed"])
        try realm.write { realm.add(person) }
        assertThrowsRealmError(.invalidArgument, messageContains: ["WritePerson.name"]) {
            try self.realm.write { person.name = "Changed" }
        }
        XCTAssertEqual(person.name, "Fixed")
    }

    func testOptionalPrimaryKeys() throws {
        let config = makeInMemoryConfiguration([WriteOptionalKey.self])
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(WriteOptionalKey(value: ["value": 1])) }
        assertThrowsRealmError(.primaryKeyExists, messageContains: ["WriteOptionalKey"]) {
            try realm.write { realm.add(WriteOptionalKey(value: ["value": 2])) }
        }
        let nilKeyed = try realm.write {
            realm.create(WriteOptionalKey.self, value: ["id": NSNull(), "value": 3], update: .modified)
        }
        XCTAssertNil(nilKeyed.id)
        XCTAssertEqual(nilKeyed.value, 3)
        try realm.write { realm.add(WriteOptionalKey(value: ["id": 0, "value": 4])) }
        XCTAssertEqual(try realm.upsertLookup(WriteOptionalKey.self, primaryKey: "id", 0).value, 4)
    }

    // MARK: Graphs of unmanaged objects

    func testCyclesOfUnmanagedObjects() throws {
        let a = WritePerson(value: ["name": "A"])
        let b = WritePerson(value: ["name": "B"])
        let c = WritePerson(value: ["name": "C"])
        a.friend = b
        b.friend = c
        c.friend = a
        let selfish = WritePerson(value: ["name": "Self"])
        selfish.friend = selfish
        try realm.write {
            realm.add(a)
            realm.add(selfish)
        }
        for person in [a, b, c, selfish] { XCTAssertEqual(person.realm, realm) }
        XCTAssertEqual(a.friend, b)
        XCTAssertEqual(b.friend, c)
        XCTAssertEqual(c.friend, a)
        XCTAssertEqual(a.friend?.friend?.friend?.name, "A")
        XCTAssertEqual(selfish.friend, selfish)
    }

    func testCyclesThroughCollections() throws {
        let owner = WritePerson(value: ["name": "Owner"])
        let pet = WritePet(value: ["name": "Rex"])
        pet.owner = owner
        owner.pets.append(pet)
        owner.favorites.insert(pet)
        owner.petsByName["rex"] = pet
        try realm.write { realm.add(owner) }
        XCTAssertEqual(pet.realm, realm)
        XCTAssertEqual(owner.pets.count, 1)
        XCTAssertEqual(owner.pets[0], pet)
        XCTAssertEqual(owner.favorites.count, 1)
        XCTAssertEqual(owner.petsByName["rex"]??.name, "Rex")
        XCTAssertEqual(pet.owner, owner)
    }

    func testTheSameUnmanagedObjectTwiceInAGraphIsAddedOnce() throws {
        let pet = WritePet(value: ["name": "Twice"])
        let a = WritePerson(value: ["name": "A"])
        let b = WritePerson(value: ["name": "B"])
        a.pets.append(pet)
        a.pets.append(pet)
        b.pets.append(pet)
        try realm.write { realm.add([a, b]) }
        XCTAssertEqual(a.pets.count, 2)
        XCTAssertEqual(a.pets[0], a.pets[1])
        XCTAssertEqual(a.pets[0], b.pets[0])
    }

    // MARK: Errors of add

    func testAddingAnObjectOfAnotherRealmFails() throws {
        let otherRealm = try Realm(configuration: makeInMemoryConfiguration([WritePerson.self, WritePet.self, WriteHome.self]))
        let person = WritePerson(value: ["name": "Elsewhere"])
        try otherRealm.write { otherRealm.add(person) }
        assertThrowsRealmError(.invalidValue, messageContains: ["another Realm"]) {
            try self.realm.write { self.realm.add(person) }
        }
        let holder = WritePerson(value: ["name": "Holder"])
        holder.friend = person
        assertThrowsRealmError(.invalidValue) {
            try self.realm.write { self.realm.add(holder) }
        }
        // create copies an object of another realm into this one.
        let copy = try realm.write { realm.create(WritePerson.self, value: person) }
        XCTAssertEqual(copy.realm, realm)
        XCTAssertEqual(copy.name, "Elsewhere")
    }

    func testLinkingToADeletedObjectFails() throws {
        let gone = WritePerson(value: ["name": "Gone"])
        try realm.write { realm.add(gone) }
        try realm.write { realm.delete(gone) }
        let holder = WritePerson(value: ["name": "Holder"])
        holder.friend = gone
        assertThrowsRealmError(.objectInvalidated, messageContains: ["WritePerson"]) {
            try self.realm.write { self.realm.add(holder) }
        }
    }

    func testWritingToAReadOnlyOrFrozenRealmThrows() throws {
        let config = try makeFileConfiguration([WritePerson.self, WritePet.self, WriteHome.self])
        do { _ = try Realm(configuration: config) }
        var readOnly = config
        readOnly.readOnly = true
        let realm = try Realm(configuration: readOnly)
        assertThrowsRealmError(.readOnly) { try realm.write {} }
        assertThrowsRealmError(.readOnly) { try realm.write {} }
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    // MARK: delete

    func testDeleteClearsLinksAndRemovesFromCollections() throws {
        let owner = WritePerson(value: ["name": "Owner"])
        let pet = WritePet(value: ["name": "Rex"])
        let other = WritePet(value: ["name": "Other"])
        owner.pets.append(objectsIn: [pet, other, pet])
        owner.favorites.insert(objectsIn: [pet, other])
        owner.petsByName["rex"] = pet
        owner.petsByName["other"] = other
        let friend = WritePerson(value: ["name": "Friend"])
        owner.friend = friend
        try realm.write { realm.add(owner) }

        try realm.write {
            realm.delete(pet)
            realm.delete(friend)
        }
        XCTAssertTrue(pet.isInvalidated)
        XCTAssertTrue(friend.isInvalidated)
        XCTAssertNil(owner.friend, "a link to a deleted object reads nil")
        XCTAssertEqual(owner.pets.map(\.name), ["Other"], "lists drop every occurrence of a deleted object")
        XCTAssertEqual(owner.favorites.map(\.name), ["Other"])
        XCTAssertEqual(owner.petsByName.count, 2, "a map keeps the key of a deleted object")
        XCTAssertTrue(owner.petsByName.keys.contains("rex"))
        XCTAssertNil(owner.petsByName["rex"]!, "with a nil value")
        XCTAssertEqual(owner.petsByName["other"]??.name, "Other")
        XCTAssertFalse(owner.isInvalidated)
    }

    func testDeleteASequenceAndTheObjectsOfAList() throws {
        let owner = WritePerson(value: ["name": "Owner"])
        owner.pets.append(objectsIn: (0..<4).map { WritePet(value: ["name": "p\($0)"]) })
        try realm.write { realm.add(owner) }
        let pets = Array(owner.pets)
        try realm.write { realm.delete(pets[0...1]) }
        XCTAssertTrue(pets[0].isInvalidated)
        XCTAssertTrue(pets[1].isInvalidated)
        XCTAssertEqual(owner.pets.map(\.name), ["p2", "p3"])
        try realm.write { realm.delete(owner.pets) }
        XCTAssertEqual(owner.pets.count, 0)
        XCTAssertTrue(pets[2].isInvalidated)
        XCTAssertTrue(pets[3].isInvalidated)
    }

    func testDeleteTakesEmbeddedObjectsAlong() throws {
        let person = WritePerson(value: ["name": "Home owner", "home": ["street": "Elm"]])
        try realm.write { realm.add(person) }
        let home = person.home!
        try realm.write { realm.delete(person) }
        XCTAssertTrue(person.isInvalidated)
        XCTAssertTrue(home.isInvalidated)
    }

    func testDeleteThenAddTheSamePrimaryKey() throws {
        let first = WritePerson(value: ["name": "Again", "age": 1])
        try realm.write { realm.add(first) }
        try realm.write {
            realm.delete(first)
            realm.add(WritePerson(value: ["name": "Again", "age": 2]))
        }
        XCTAssertTrue(first.isInvalidated)
        XCTAssertEqual(try realm.upsertLookup(WritePerson.self, primaryKey: "name", "Again").age, 2)
    }

    func testDeletingAnUnmanagedObjectFailsTheWrite() throws {
        assertThrowsRealmError(.invalidArgument) {
            try self.realm.write { self.realm.delete(WritePerson(value: ["name": "Loose"])) }
        }
    }

    func testDeleteIsRolledBackWithItsWrite() throws {
        let person = WritePerson(value: ["name": "Survivor"])
        try realm.write { realm.add(person) }
        realm.beginWrite()
        realm.delete(person)
        XCTAssertTrue(person.isInvalidated)
        realm.cancelWrite()
        XCTAssertFalse(person.isInvalidated, "the object exists again after the delete is cancelled")
        XCTAssertEqual(person.name, "Survivor")
    }

    func testDeleteAll() throws {
        let person = WritePerson(value: ["name": "P", "home": ["street": "S"], "pets": [["name": "x"]]])
        let team = WriteTeam(value: ["teamName": "T", "tasks": [["taskName": "t"]]])
        try realm.write {
            realm.add(person)
            realm.add(team)
        }
        let home = person.home!
        let pet = person.pets[0]
        let task = team.tasks[0]
        try realm.write { realm.deleteAll() }
        for object in [person, team, pet, task, home] as [ObjectBase] {
            XCTAssertTrue(object.isInvalidated, "\(type(of: object)) survived deleteAll")
        }
        // The realm keeps its schema and takes new objects.
        try realm.write { realm.add(WritePerson(value: ["name": "P"])) }
        XCTAssertEqual(try realm.upsertLookup(WritePerson.self, primaryKey: "name", "P").age, 0)
        XCTAssertNotNil(realm.schema["WritePerson"])
    }
}

final class WriteCreateCopiesTests: XCTestCase {
    func testCreateCopiesNestedUnmanagedObjects() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "create-copies-\(UUID())", objectTypes: [WCCOwner.self, WCCPet.self]))
        let pet = WCCPet()
        pet.name = "Rex"
        let owner = WCCOwner()
        owner.pet = pet
        let created = try realm.write { realm.create(WCCOwner.self, value: owner) }
        XCTAssertNil(pet.realm, "create copies the unmanaged objects it is given")
        XCTAssertNil(owner.realm)
        XCTAssertEqual(created.pet?.name, "Rex")
        XCTAssertNotNil(created.pet?.realm)
        try realm.write { realm.add(owner) }
        XCTAssertNotNil(pet.realm, "add adopts the objects it is given")
        XCTAssertEqual(realm.objects(WCCPet.self).count, 2)
    }

    func testCreateRefusesACycleOfUnmanagedObjects() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "create-cycle-\(UUID())", objectTypes: [WCCOwner.self, WCCPet.self]))
        let a = WCCOwner()
        let pet = WCCPet()
        pet.owner = a
        a.pet = pet
        XCTAssertThrowsError(try realm.write { realm.create(WCCOwner.self, value: a) }) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidValue)
        }
        XCTAssertEqual(realm.objects(WCCOwner.self).count, 0)
    }
}

final class WCCOwner: Object {
    @Persisted var name = ""
    @Persisted var pet: WCCPet?
}

final class WCCPet: Object {
    @Persisted var name = ""
    @Persisted var owner: WCCOwner?
}
