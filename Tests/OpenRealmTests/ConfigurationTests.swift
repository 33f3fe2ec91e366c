import Foundation
import OpenRealm
import Synchronization
import XCTest

final class ConfigTask: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var taskName: String
}

/// A class no configuration names: only used through a realm opened without `objectTypes`.
final class ConfigUnlisted: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted var value: Int
}

/// Invalid declarations: the schema cannot hold them.
final class ConfigRequiredLink: Object {
    @Persisted var task: ConfigTask
}

final class ConfigTwoPrimaryKeys: Object {
    @Persisted(primaryKey: true) var first: Int
    @Persisted(primaryKey: true) var second: String
}

final class ConfigLinkingWithoutOrigin: Object {
    @Persisted var tasks: LinkingObjects<ConfigTask>
}

final class ConfigLinkingToNothing: Object {
    @Persisted(originProperty: "nope") var tasks: LinkingObjects<ConfigTask>
}

final class ConfigLinkingToAString: Object {
    @Persisted(originProperty: "taskName") var tasks: LinkingObjects<ConfigTask>
}

final class ConfigKeyedEmbedded: EmbeddedObject {
    @Persisted(primaryKey: true) var id: Int
}

final class ConfigOwnerOfKeyedEmbedded: Object {
    @Persisted var child: ConfigKeyedEmbedded?
}

/// Stored under the same name as `ConfigTask`.
final class ConfigTaskImpostor: Object {
    override class func className() -> String { "ConfigTask" }
    @Persisted var other: Double
}

final class ConfigurationTests: XCTestCase {
    private let types: [ObjectBase.Type] = [ConfigTask.self]

    // MARK: The configuration value

    func testFileURLAndInMemoryIdentifierClearEachOther() {
        var config = Realm.Configuration(inMemoryIdentifier: "memory", objectTypes: types)
        XCTAssertEqual(config.inMemoryIdentifier, "memory")
        XCTAssertNil(config.fileURL)

        let url = URL(fileURLWithPath: "/tmp/some.realm")
        config.fileURL = url
        XCTAssertEqual(config.fileURL, url)
        XCTAssertNil(config.inMemoryIdentifier, "setting fileURL clears inMemoryIdentifier")

        config.inMemoryIdentifier = "again"
        XCTAssertEqual(config.inMemoryIdentifier, "again")
        XCTAssertNil(config.fileURL, "setting inMemoryIdentifier clears fileURL")

        config.inMemoryIdentifier = nil
        XCTAssertNil(config.inMemoryIdentifier)
    }

    func testEverySettingIsSettable() {
        var config = Realm.Configuration()
        XCTAssertEqual(config.fileURL?.lastPathComponent, "default.realm")
        XCTAssertNil(config.inMemoryIdentifier)
        XCTAssertFalse(config.readOnly)
        XCTAssertEqual(config.schemaVersion, 0)
        XCTAssertNil(config.migrationBlock)
        XCTAssertFalse(config.deleteRealmIfMigrationNeeded)
        XCTAssertNil(config.shouldCompactOnLaunch)
        XCTAssertNil(config.objectTypes)
        XCTAssertNil(config.seedFilePath)
        XCTAssertNil(config.encryptionKey)

        config.readOnly = true
        config.schemaVersion = 9
        config.migrationBlock = { _, _ in }
        config.deleteRealmIfMigrationNeeded = true
        config.shouldCompactOnLaunch = { _, _ in false }
        config.objectTypes = types
        config.seedFilePath = URL(fileURLWithPath: "/tmp/seed.realm")
        XCTAssertTrue(config.readOnly)
        XCTAssertEqual(config.schemaVersion, 9)
        XCTAssertNotNil(config.migrationBlock)
        XCTAssertTrue(config.deleteRealmIfMigrationNeeded)
        XCTAssertNotNil(config.shouldCompactOnLaunch)
        XCTAssertEqual(config.objectTypes?.count, 1)
        XCTAssertEqual(config.seedFilePath?.lastPathComponent, "seed.realm")

        let full = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/x.realm"), readOnly: true, schemaVersion: 3,
                                       deleteRealmIfMigrationNeeded: true, objectTypes: types)
        XCTAssertEqual(full.fileURL?.path, "/tmp/x.realm")
        XCTAssertEqual(full.schemaVersion, 3)
        XCTAssertTrue(full.readOnly)
        XCTAssertTrue(full.description.contains("schemaVersion: 3"))
    }

    func testTheDefaultConfigurationIsWhatRealmInitOpens() throws {
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        let config = makeInMemoryConfiguration(types)
        Realm.Configuration.defaultConfiguration = config
        XCTAssertEqual(Realm.Configuration.defaultConfiguration.inMemoryIdentifier, config.inMemoryIdentifier)

        let realm = try Realm()
        XCTAssertEqual(realm.configuration.inMemoryIdentifier, config.inMemoryIdentifier)
        try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": "default"])) }
        let other = try Realm(configuration: config)
        XCTAssertEqual(try other.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "default")
    }

    func testEncryptionIsRefused() {
        var config = makeInMemoryConfiguration(types)
        config.encryptionKey = Data(repeating: 1, count: 64)
        assertThrowsRealmError(.fail, messageContains: ["encryptionKey"]) { _ = try Realm(configuration: config) }
    }

    // MARK: In-memory realms

    func testAnEmptyInMemoryIdentifierThrows() {
        assertThrowsRealmError(.invalidArgument, messageContains: ["identifier"]) {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "", objectTypes: self.types))
        }
    }

    func testInMemoryRealmsWithOneIdentifierShareTheirData() throws {
        let config = makeInMemoryConfiguration(types)
        let first = try Realm(configuration: config)
        let second = try Realm(configuration: config)
        try first.write { first.add(ConfigTask(value: ["_id": 1, "taskName": "shared"])) }
        let seen = try second.upsertLookup(ConfigTask.self, primaryKey: "_id", 1)
        XCTAssertEqual(seen.taskName, "shared")
        XCTAssertTrue(Realm.fileExists(for: config), "an open in-memory realm exists")
    }

    func testInMemoryRealmsWithDifferentIdentifiersAreIsolated() throws {
        let a = try Realm(configuration: makeInMemoryConfiguration(types))
        let b = try Realm(configuration: makeInMemoryConfiguration(types))
        try a.write { a.add(ConfigTask(value: ["_id": 1, "taskName": "only in a"])) }
        XCTAssertEqual(try b.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "")
        XCTAssertEqual(try a.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "only in a")
    }

    func testInMemoryDataIsGoneWhenTheLastInstanceCloses() throws {
        let config = makeInMemoryConfiguration(types)
        var task: ConfigTask? = ConfigTask(value: ["_id": 1, "taskName": "ephemeral"])
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(task!) }
        }
        XCTAssertTrue(Realm.fileExists(for: config), "an object still holds the realm open")
        XCTAssertEqual(task?.taskName, "ephemeral")
        do {
            let again = try Realm(configuration: config)
            XCTAssertEqual(try again.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "ephemeral")
        }
        task = nil
        XCTAssertFalse(Realm.fileExists(for: config), "releasing the last instance discards the realm")
        let reopened = try Realm(configuration: config)
        XCTAssertEqual(try reopened.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "",
                       "a new realm with the same identifier starts empty")
    }

    func testInMemoryRealmsCreateNoFileInTheWorkingDirectory() throws {
        let directory = try makeTemporaryDirectory()
        let fm = FileManager.default
        let previous = fm.currentDirectoryPath
        XCTAssertTrue(fm.changeCurrentDirectoryPath(directory.path))
        defer { _ = fm.changeCurrentDirectoryPath(previous) }

        let config = makeInMemoryConfiguration(types)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": String(repeating: "x", count: 10_000)])) }
            XCTAssertEqual(try fm.contentsOfDirectory(atPath: directory.path), [], "nothing was written to the working directory")
        }
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: directory.path), [])
        XCTAssertFalse(Realm.fileExists(for: config))
    }

    // MARK: Files

    func testFileExistsAndDeleteFiles() throws {
        let config = try makeFileConfiguration(types)
        XCTAssertFalse(Realm.fileExists(for: config))
        XCTAssertFalse(try Realm.deleteFiles(for: config), "nothing to delete yet")
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": "on disk"])) }
            XCTAssertTrue(Realm.fileExists(for: config))
            assertThrowsRealmError(.fileAccess, messageContains: [config.fileURL!.path]) {
                try Realm.deleteFiles(for: config)
            }
            XCTAssertTrue(Realm.fileExists(for: config))
        }
        XCTAssertTrue(Realm.fileExists(for: config), "closing leaves the file")
        XCTAssertTrue(try Realm.deleteFiles(for: config))
        XCTAssertFalse(Realm.fileExists(for: config))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: config.fileURL!.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, [], "the realm's lock file is deleted too")

        let realm = try Realm(configuration: config)
        XCTAssertEqual(try realm.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "", "a new file is empty")
    }

    func testTwoInstancesOfOneFileShareTheirData() throws {
        let config = try makeFileConfiguration(types)
        let first = try Realm(configuration: config)
        let second = try Realm(configuration: config)
        try first.write { first.add(ConfigTask(value: ["_id": 7, "taskName": "seen"])) }
        XCTAssertEqual(try second.upsertLookup(ConfigTask.self, primaryKey: "_id", 7).taskName, "seen")
    }

    func testReadOnlyOpens() throws {
        let config = try makeFileConfiguration(types)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": "frozen in time"])) }
        }
        var readOnly = config
        readOnly.readOnly = true
        let realm = try Realm(configuration: readOnly)
        XCTAssertNotNil(realm.schema["ConfigTask"])
        assertThrowsRealmError(.readOnly, messageContains: [config.fileURL!.path]) { try realm.write {} }
        assertThrowsRealmError(.readOnly) {
            try realm.write { realm.add(ConfigTask(value: ["_id": 2])) }
        }
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    func testReadOnlyOpenOfAMissingFileThrowsFileNotFound() throws {
        var config = try makeFileConfiguration(types)
        config.readOnly = true
        assertThrowsRealmError(.fileNotFound, messageContains: [config.fileURL!.path]) {
            _ = try Realm(configuration: config)
        }
        XCTAssertFalse(Realm.fileExists(for: config), "a read-only open creates nothing")
    }

    func testReadOnlyOpenThatNeedsAMigrationThrows() throws {
        let config = try makeFileConfiguration(types)
        do { _ = try Realm(configuration: config) }
        var readOnly = config
        readOnly.readOnly = true
        readOnly.schemaVersion = 1
        assertThrowsRealmError(.schemaMismatch) { _ = try Realm(configuration: readOnly) }
    }

    func testAMissingFolderThrows() throws {
        let directory = try makeTemporaryDirectory()
        let config = Realm.Configuration(fileURL: directory.appendingPathComponent("missing/folder/x.realm"), objectTypes: types)
        do {
            _ = try Realm(configuration: config)
            XCTFail("opening a file in a missing folder succeeded")
        } catch let error as Realm.Error {
            XCTAssertTrue([.fileNotFound, .fileAccess].contains(error.code), "\(error)")
            XCTAssertTrue(error.message.contains("x.realm"), error.message)
        }
    }

    func testAFolderAsTheFileThrows() throws {
        let directory = try makeTemporaryDirectory()
        let config = Realm.Configuration(fileURL: directory, objectTypes: types)
        do {
            _ = try Realm(configuration: config)
            XCTFail("opening a folder as a realm succeeded")
        } catch let error as Realm.Error {
            XCTAssertTrue([.fileAccess, .invalidDatabase].contains(error.code), "\(error)")
            XCTAssertTrue(error.message.contains(directory.lastPathComponent), error.message)
        }
    }

    func testAFolderWithoutWritePermissionThrows() throws {
        if getuid() == 0 { throw XCTSkip("root ignores file permissions") }
        let directory = try makeTemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path) }
        assertThrowsRealmError(.filePermissionDenied) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: directory.appendingPathComponent("x.realm"),
                                                             objectTypes: self.types))
        }
    }

    // MARK: Foreign and damaged files

    private func assertInvalidDatabase(_ bytes: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        let config = try makeFileConfiguration(types)
        try bytes.write(to: config.fileURL!)
        assertThrowsRealmError(.invalidDatabase, messageContains: [config.fileURL!.lastPathComponent], file: file, line: line) {
            _ = try Realm(configuration: config)
        }
        XCTAssertEqual(try Data(contentsOf: config.fileURL!), bytes, "the file is left as it was", file: file, line: line)
    }

    func testAForeignFileThrowsInvalidDatabase() throws {
        try assertInvalidDatabase(Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0, count: 8_192))
        try assertInvalidDatabase(Data("This is a text file, not a realm.\n".utf8))
        try assertInvalidDatabase(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0xAB, count: 20_000))
    }

    func testGarbageThrowsInvalidDatabase() throws {
        var generator = SystemRandomNumberGenerator()
        for size in [1, 100, 4_096, 65_536] {
            try assertInvalidDatabase(Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
    }

    func testAnEmptyFileOpensAsANewRealm() throws {
        let config = try makeFileConfiguration(types)
        XCTAssertTrue(FileManager.default.createFile(atPath: config.fileURL!.path, contents: Data()))
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": "in a once empty file"])) }
        XCTAssertEqual(try realm.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "in a once empty file")
    }

    func testATruncatedRealmThrowsInvalidDatabase() throws {
        let source = try makeFileConfiguration(types)
        do {
            let realm = try Realm(configuration: source)
            try realm.write {
                for i in 0..<500 {
                    realm.add(ConfigTask(value: ["_id": i, "taskName": String(repeating: "t", count: 200)]))
                }
            }
        }
        let whole = try Data(contentsOf: source.fileURL!)
        XCTAssertGreaterThan(whole.count, 16_384)
        for length in [10, 4_000, whole.count / 2] {
            try assertInvalidDatabase(whole.prefix(length))
        }
    }

    // MARK: Seeds and compaction

    func testASeedFileIsCopiedWhenTheFileIsMissing() throws {
        let seed = try makeFileConfiguration(types, name: "seed.realm")
        do {
            let realm = try Realm(configuration: seed)
            try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": "from the seed"])) }
        }
        var config = try makeFileConfiguration(types)
        config.seedFilePath = seed.fileURL
        do {
            let realm = try Realm(configuration: config)
            XCTAssertEqual(try realm.upsertLookup(ConfigTask.self, primaryKey: "_id", 1).taskName, "from the seed")
            try realm.write { realm.add(ConfigTask(value: ["_id": 2, "taskName": "own"])) }
        }
        let realm = try Realm(configuration: config)
        XCTAssertEqual(try realm.upsertLookup(ConfigTask.self, primaryKey: "_id", 2).taskName, "own",
                       "an existing file is not replaced by the seed")

        var missingSeed = try makeFileConfiguration(types)
        missingSeed.seedFilePath = seed.fileURL!.deletingLastPathComponent().appendingPathComponent("none.realm")
        assertThrowsRealmError(.fileNotFound, messageContains: ["none.realm"]) { _ = try Realm(configuration: missingSeed) }
    }

    func testShouldCompactOnLaunch() throws {
        var config = try makeFileConfiguration(types)
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for i in 0..<300 { realm.add(ConfigTask(value: ["_id": i, "taskName": String(repeating: "c", count: 1_000)])) }
            }
            try realm.write {
                for i in 0..<300 where i != 5 {
                    realm.delete(realm.upsertLookupInWrite(i))
                }
            }
        }
        let sizes = Mutex<[(Int, Int)]>([])
        config.shouldCompactOnLaunch = { total, used in
            sizes.withLock { $0.append((total, used)) }
            return true
        }
        let before = try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as! Int
        do {
            let realm = try Realm(configuration: config)
            XCTAssertEqual(try realm.upsertLookup(ConfigTask.self, primaryKey: "_id", 5).taskName.count, 1_000)
        }
        let calls = sizes.withLock { $0 }
        XCTAssertEqual(calls.count, 1)
        if let (total, used) = calls.first {
            XCTAssertEqual(total, before)
            XCTAssertLessThanOrEqual(used, total)
        }
        let after = try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as! Int
        XCTAssertLessThan(after, before, "the compacted file is smaller")
    }

    // MARK: The schema a configuration opens with

    func testInvalidDeclarationsAreRefusedNamingTheProblem() {
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigRequiredLink", "task", "optional"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigRequiredLink.self]))
        }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["first", "second", "primary key"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigTwoPrimaryKeys.self]))
        }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigKeyedEmbedded", "primary key"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigOwnerOfKeyedEmbedded.self]))
        }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigLinkingWithoutOrigin", "tasks", "originProperty"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigLinkingWithoutOrigin.self]))
        }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigLinkingToNothing", "ConfigTask.nope", "does not exist"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigLinkingToNothing.self]))
        }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigTask.taskName", "does not link"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigLinkingToAString.self]))
        }
    }

    func testTwoClassesStoredUnderOneNameAreRefused() {
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigTaskImpostor", "'ConfigTask'"]) {
            _ = try Realm(configuration: self.makeInMemoryConfiguration([ConfigTask.self, ConfigTaskImpostor.self]))
        }
    }

    func testAClassOutsideObjectTypesCannotBeAdded() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration(types))
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigOutsider", "objectTypes"]) {
            try realm.write { realm.add(ConfigOutsider()) }
        }
        XCTAssertNil(realm.schema["ConfigOutsider"])
        let task = ConfigTask(value: ["_id": 1])
        try realm.write { realm.add(task) }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigOutsider"]) {
            try realm.write { task["taskName"] = "x"; realm.add(ConfigOutsider()) }
        }
        XCTAssertEqual(task.taskName, "")
    }

    func testWithoutObjectTypesTheSchemaIsEveryClassUsedSoFar() throws {
        _ = ConfigKnown().objectSchema
        _ = ConfigRequiredLink().objectSchema
        _ = ConfigTask().objectSchema
        _ = ConfigTaskImpostor().objectSchema
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID())"))
        XCTAssertNotNil(realm.schema["ConfigKnown"], "a class used before the open is in the schema")
        XCTAssertNil(realm.schema["ConfigRequiredLink"], "an invalid class does not stop the open")
        XCTAssertNil(realm.schema["ConfigTask"], "nor does a stored name two classes share")
        XCTAssertNil(realm.schema["ConfigUnlisted"])

        // A class used for the first time is added on its first write.
        try realm.write { realm.add(ConfigUnlisted(value: ["key": "k", "value": 3])) }
        XCTAssertNotNil(realm.schema["ConfigUnlisted"])
        XCTAssertEqual(try realm.upsertLookup(ConfigUnlisted.self, primaryKey: "key", "k").value, 3)

        // One of the classes sharing a name can be used; the other then mismatches.
        try realm.write { realm.add(ConfigTask(value: ["_id": 1, "taskName": "first come"])) }
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigTask", "other"]) {
            try realm.write { realm.add(ConfigTaskImpostor()) }
        }

        // Using an invalid class fails the write with its problem.
        assertThrowsRealmError(.schemaMismatch, messageContains: ["ConfigRequiredLink", "optional"]) {
            try realm.write { realm.add(ConfigRequiredLink()) }
        }
    }
}

final class ConfigOutsider: Object {
    @Persisted var name: String
}

final class ConfigKnown: Object {
    @Persisted var name: String
}

private extension Realm {
    /// The task with `id`, inside a write (the lookup is itself an upsert).
    func upsertLookupInWrite(_ id: Int) -> ConfigTask {
        create(ConfigTask.self, value: ["_id": id], update: .modified)
    }
}
