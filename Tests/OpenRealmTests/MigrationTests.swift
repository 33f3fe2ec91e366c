import Foundation
import OpenRealm
import Synchronization
import XCTest

// Two versions of one stored class, "MigrationPerson": the Swift classes differ, the
// stored name is the same (`className()`), as when an app changes its model.

final class MigrationPersonV1: Object {
    override class func className() -> String { "MigrationPerson" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
    @Persisted var nickname: String
    @Persisted var pet: MigrationPet?
}

final class MigrationPersonV2: Object {
    override class func className() -> String { "MigrationPerson" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var fullName: String
    @Persisted var yearsOld: Int
    @Persisted var nickname: String?
    @Persisted var email = "none@example.com"
    @Persisted var pet: MigrationPet?
}

/// Version 3 changes the type of a property (`yearsOld` becomes a string).
final class MigrationPersonV3: Object {
    override class func className() -> String { "MigrationPerson" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var fullName: String
    @Persisted var yearsOld: String
    @Persisted var nickname: String?
    @Persisted var email = "none@example.com"
    @Persisted var pet: MigrationPet?
}

/// Version 1 with an index on `lastName`: an index change alone needs no migration.
final class MigrationPersonV1Indexed: Object {
    override class func className() -> String { "MigrationPerson" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String
    @Persisted(indexed: true) var lastName: String
    @Persisted var age: Int
    @Persisted var nickname: String
    @Persisted var pet: MigrationPet?
}

final class MigrationPet: Object {
    @Persisted(primaryKey: true) var name: String
}

/// A class the old models had and the new ones drop.
final class MigrationLegacy: Object {
    @Persisted var note: String
}

/// A class only the new models have.
final class MigrationFresh: Object {
    @Persisted(primaryKey: true) var id: Int
}

/// A counter a `@Sendable` migration block can update.
private final class MigrationCalls: Sendable {
    private let state = Mutex<[UInt64]>([])
    func record(_ version: UInt64) { state.withLock { $0.append(version) } }
    var versions: [UInt64] { state.withLock { $0 } }
}

final class MigrationTests: XCTestCase {
    private var v1: Realm.Configuration!

    override func setUpWithError() throws {
        v1 = try makeFileConfiguration([MigrationPersonV1.self, MigrationPet.self, MigrationLegacy.self])
    }

    /// Writes two people and a legacy object with the version-1 models, then closes the file.
    private func writeVersion1(schemaVersion: UInt64 = 0) throws {
        var config = v1!
        config.schemaVersion = schemaVersion
        let realm = try Realm(configuration: config)
        try realm.write {
            realm.add(MigrationPersonV1(value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36,
                                                "nickname": "Countess", "pet": ["name": "Byron"]]))
            realm.add(MigrationPersonV1(value: ["id": 2, "firstName": "Alan", "lastName": "Turing", "age": 41]))
            realm.add(MigrationLegacy(value: ["note": "old"]))
        }
    }

    private func config(_ types: [ObjectBase.Type], version: UInt64,
                        block: Realm.MigrationBlock? = nil) -> Realm.Configuration {
        var config = v1!
        config.objectTypes = types
        config.schemaVersion = version
        config.migrationBlock = block
        return config
    }

    // MARK: Mismatches

    func testASchemaMismatchWithoutAMigrationNamesEveryDifference() throws {
        try writeVersion1()
        let error = assertThrowsRealmError(.schemaMismatch) {
            _ = try Realm(configuration: self.config([MigrationPersonV2.self, MigrationPet.self], version: 0))
        }
        let message = error?.message ?? ""
        for fragment in ["MigrationPerson.fullName' has been added", "MigrationPerson.yearsOld' has been added",
                         "MigrationPerson.email' has been added", "MigrationPerson.firstName' has been removed",
                         "MigrationPerson.lastName' has been removed", "MigrationPerson.age' has been removed",
                         "MigrationPerson.nickname' has been made optional"] {
            XCTAssertTrue(message.contains(fragment), "\"\(message)\" lacks \"\(fragment)\"")
        }
        XCTAssertFalse(message.contains("MigrationPet"), "unchanged classes are not listed: \(message)")
        // The file is untouched and still opens with its own models.
        let realm = try Realm(configuration: v1)
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV1.self, primaryKey: "id", 1).firstName, "Ada")
    }

    func testATypeChangeIsNamedInTheMismatch() throws {
        try writeVersion1()
        _ = try Realm(configuration: config([MigrationPersonV2.self], version: 1))
        assertThrowsRealmError(.schemaMismatch, messageContains: ["MigrationPerson.yearsOld", "int", "string"]) {
            _ = try Realm(configuration: self.config([MigrationPersonV3.self], version: 1))
        }
    }

    func testALowerSchemaVersionThrows() throws {
        try writeVersion1(schemaVersion: 3)
        assertThrowsRealmError(.schemaMismatch, messageContains: ["2", "3"]) {
            var config = self.v1!
            config.schemaVersion = 2
            _ = try Realm(configuration: config)
        }
        var same = v1!
        same.schemaVersion = 3
        XCTAssertNoThrow(try Realm(configuration: same))
    }

    func testAddingAClassOrAnIndexNeedsNoMigration() throws {
        try writeVersion1()
        do {
            let realm = try Realm(configuration: config(
                [MigrationPersonV1.self, MigrationPet.self, MigrationLegacy.self, MigrationFresh.self], version: 0))
            XCTAssertNotNil(realm.schema["MigrationFresh"])
            try realm.write { realm.add(MigrationFresh(value: ["id": 1])) }
        }
        do {
            let realm = try Realm(configuration: config([MigrationPersonV1Indexed.self, MigrationPet.self], version: 0))
            XCTAssertEqual(realm.schema["MigrationPerson"]?["lastName"]?.isIndexed, true)
            XCTAssertEqual(try realm.upsertLookup(MigrationPersonV1Indexed.self, primaryKey: "id", 2).lastName, "Turing")
        }
        let realm = try Realm(configuration: v1)
        XCTAssertEqual(realm.schema["MigrationPerson"]?["lastName"]?.isIndexed, false, "and removing it neither")
    }

    // MARK: Migrations

    func testMigrationBlockMovesDataToTheNewSchema() throws {
        try writeVersion1()
        let calls = MigrationCalls()
        let config = config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, oldSchemaVersion in
            calls.record(oldSchemaVersion)
            XCTAssertNotNil(migration.oldSchema["MigrationPerson"]?["firstName"])
            XCTAssertNil(migration.oldSchema["MigrationPerson"]?["fullName"])
            XCTAssertNotNil(migration.newSchema["MigrationPerson"]?["fullName"])
            migration.renameProperty(onType: "MigrationPerson", from: "age", to: "yearsOld")
            var seen = 0
            migration.enumerateObjects(ofType: "MigrationPerson") { oldObject, newObject in
                seen += 1
                let first = oldObject!["firstName"] as! String
                let last = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(first) \(last)"
            }
            XCTAssertEqual(seen, 2)
        }
        let realm = try Realm(configuration: config)
        XCTAssertEqual(calls.versions, [0], "the block runs once, with the file's old version")

        let ada = try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 1)
        XCTAssertEqual(ada.fullName, "Ada Lovelace")
        XCTAssertEqual(ada.yearsOld, 36, "a renamed property keeps its values")
        XCTAssertEqual(ada.nickname, "Countess", "a property made optional keeps its values")
        XCTAssertEqual(ada.email, "", "an added property reads its type's zero value, as in Realm")
        XCTAssertEqual(ada.pet?.name, "Byron", "links survive the migration")
        let alan = try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 2)
        XCTAssertEqual(alan.fullName, "Alan Turing")
        XCTAssertEqual(alan.yearsOld, 41)
        XCTAssertEqual(alan.nickname, "")

        let schema = realm.schema["MigrationPerson"]
        XCTAssertNil(schema?["firstName"], "removed properties are gone from the file")
        XCTAssertNil(schema?["age"])
        XCTAssertEqual(schema?["nickname"]?.isOptional, true)
    }

    func testTheNewSchemaVersionIsStored() throws {
        try writeVersion1()
        let calls = MigrationCalls()
        let block: Realm.MigrationBlock = { _, old in calls.record(old) }
        do { _ = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 4, block: block)) }
        do { _ = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 4, block: block)) }
        XCTAssertEqual(calls.versions, [0], "a second open at the same version does not migrate again")
        do { _ = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 5, block: block)) }
        XCTAssertEqual(calls.versions, [0, 4])
        assertThrowsRealmError(.schemaMismatch) {
            _ = try Realm(configuration: self.config([MigrationPersonV2.self, MigrationPet.self], version: 4))
        }
    }

    func testANewFileDoesNotRunTheMigrationBlock() throws {
        let calls = MigrationCalls()
        let realm = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 7) { _, old in
            calls.record(old)
        })
        XCTAssertTrue(calls.versions.isEmpty)
        try realm.write { realm.add(MigrationPersonV2(value: ["id": 1])) }
    }

    func testAVersionBumpWithoutABlockAppliesTheNewSchema() throws {
        try writeVersion1()
        let realm = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 1))
        let ada = try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 1)
        XCTAssertEqual(ada.fullName, "", "an added property without a value reads its type's default")
        XCTAssertEqual(ada.yearsOld, 0)
        XCTAssertEqual(ada.nickname, "Countess")
        XCTAssertEqual(ada.pet?.name, "Byron")
    }

    func testChangingAPropertyTypeWithTheOldValues() throws {
        try writeVersion1()
        do { _ = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MigrationPerson", from: "age", to: "yearsOld")
        }) }
        let realm = try Realm(configuration: config([MigrationPersonV3.self, MigrationPet.self], version: 2) { migration, _ in
            migration.enumerateObjects(ofType: "MigrationPerson") { oldObject, newObject in
                let years = oldObject!["yearsOld"] as! Int
                newObject!["yearsOld"] = "\(years) years"
            }
        })
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV3.self, primaryKey: "id", 1).yearsOld, "36 years")
        XCTAssertEqual(realm.schema["MigrationPerson"]?["yearsOld"]?.type, .string)
    }

    func testCreateAndDeleteObjectsInAMigration() throws {
        try writeVersion1()
        let realm = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigrationPerson") { oldObject, newObject in
                if oldObject!["id"] as? Int == 2 { migration.delete(newObject!) }
            }
            migration.create("MigrationPerson", value: ["id": 3, "fullName": "Grace Hopper", "yearsOld": 85])
            migration.create("MigrationPet", value: ["name": "Created"])
        })
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 3).fullName, "Grace Hopper")
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 3).yearsOld, 85)
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 2).fullName, "",
                       "the deleted person is gone (the lookup made a new, empty one)")
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 1).nickname, "Countess")
    }

    func testDeleteDataRemovesAClassTheModelsDropped() throws {
        try writeVersion1()
        let deleted = Mutex<Bool?>(nil)
        let realm = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, _ in
            deleted.withLock { $0 = migration.deleteData(forType: "MigrationLegacy") }
            XCTAssertFalse(migration.deleteData(forType: "NeverExisted"))
        })
        XCTAssertEqual(deleted.withLock { $0 }, true)
        XCTAssertNil(realm.schema["MigrationLegacy"])
        XCTAssertNotNil(realm.schema["MigrationPerson"])
    }

    func testPrimaryKeysCanChangeInAMigration() throws {
        try writeVersion1()
        let realm = try Realm(configuration: config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigrationPerson") { oldObject, newObject in
                newObject!["id"] = (oldObject!["id"] as! Int) + 100
            }
        })
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 101).nickname, "Countess")
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 102).yearsOld, 0)
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 1).nickname, nil,
                       "no object has the old key any more")
        XCTAssertEqual(realm.schema["MigrationPerson"]?.primaryKeyProperty?.name, "id")
        assertThrowsRealmError(.primaryKeyExists) {
            try realm.write { realm.add(MigrationPersonV2(value: ["id": 101])) }
        }
    }

    func testAFailedMigrationLeavesTheFileAsItWas() throws {
        try writeVersion1()
        assertThrowsRealmError(.schemaMismatch, messageContains: ["MigrationPerson.id", "duplicate"]) {
            _ = try Realm(configuration: self.config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, _ in
                migration.enumerateObjects(ofType: "MigrationPerson") { _, newObject in
                    newObject!["id"] = 9
                }
            })
        }
        let realm = try Realm(configuration: v1)
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV1.self, primaryKey: "id", 2).lastName, "Turing",
                       "the old schema and data are intact")
    }

    func testRenamingAMissingPropertyFailsTheOpen() throws {
        try writeVersion1()
        assertThrowsRealmError(.schemaMismatch, messageContains: ["MigrationPerson.doesNotExist"]) {
            _ = try Realm(configuration: self.config([MigrationPersonV2.self, MigrationPet.self], version: 1) { migration, _ in
                migration.renameProperty(onType: "MigrationPerson", from: "doesNotExist", to: "yearsOld")
            })
        }
    }

    // MARK: deleteRealmIfMigrationNeeded

    func testDeleteRealmIfMigrationNeeded() throws {
        try writeVersion1()
        var config = config([MigrationPersonV2.self, MigrationPet.self], version: 0)
        config.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: config)
        XCTAssertNil(realm.schema["MigrationPerson"]?["firstName"])
        XCTAssertNotNil(realm.schema["MigrationPerson"]?["fullName"])
        let ada = try realm.upsertLookup(MigrationPersonV2.self, primaryKey: "id", 1)
        XCTAssertEqual(ada.fullName, "", "the old data was deleted with the file")
        XCTAssertNil(ada.pet)
    }

    func testDeleteRealmIfMigrationNeededKeepsAMatchingFile() throws {
        try writeVersion1()
        var config = v1!
        config.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: config)
        XCTAssertEqual(try realm.upsertLookup(MigrationPersonV1.self, primaryKey: "id", 1).firstName, "Ada")
    }

    func testDeleteRealmIfMigrationNeededRefusesWhileTheFileIsOpen() throws {
        try writeVersion1()
        let holder = try Realm(configuration: v1)
        var config = config([MigrationPersonV2.self, MigrationPet.self], version: 0)
        config.deleteRealmIfMigrationNeeded = true
        assertThrowsRealmError(.schemaMismatch, messageContains: ["open"]) {
            _ = try Realm(configuration: config)
        }
        XCTAssertEqual(try holder.upsertLookup(MigrationPersonV1.self, primaryKey: "id", 1).firstName, "Ada")
    }
}
