import Foundation
import XCTest
import OpenRealm

// MARK: - Models

final class CTUser: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
}

final class CTNote: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
    @Persisted var body: Data
    @Persisted var score: Double?
    @Persisted var created: Date
    @Persisted var tags: List<String>
    @Persisted var author: CTUser?
}

// MARK: - Tests

final class CopyTests: XCTestCase {
    static let types: [ObjectBase.Type] = [CTUser.self, CTNote.self]
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    func configuration(_ name: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent(name), objectTypes: Self.types)
    }

    func fill(_ realm: Realm, notes: Int, bodySize: Int = 16) throws {
        try realm.write {
            let ann = realm.create(CTUser.self, value: ["name": "Ann", "age": 40], update: .modified)
            let bo = realm.create(CTUser.self, value: ["name": "Bo", "age": 7], update: .modified)
            for i in 0..<notes {
                let note = CTNote()
                note.id = i
                note.title = "note \(i)"
                note.body = Data((0..<bodySize).map { UInt8(truncatingIfNeeded: $0 &+ i) })
                note.score = i.isMultiple(of: 3) ? nil : Double(i) / 8
                note.created = Date(timeIntervalSince1970: TimeInterval(1_650_000_000 + i))
                note.tags.append(objectsIn: (0..<(i % 4)).map { "t\($0)" })
                note.author = i.isMultiple(of: 2) ? ann : (i % 5 == 0 ? nil : bo)
                realm.add(note)
            }
        }
    }

    /// Every note and user of `a` has an identical twin in `b`, and nothing more.
    func assertSameData(_ a: Realm, _ b: Realm, file: StaticString = #filePath, line: UInt = #line) {
        let notesA = a.objects(CTNote.self).sorted(byKeyPath: "id"), notesB = b.objects(CTNote.self).sorted(byKeyPath: "id")
        XCTAssertEqual(notesA.count, notesB.count, file: file, line: line)
        for (x, y) in zip(notesA, notesB) {
            XCTAssertEqual(x.id, y.id, file: file, line: line)
            XCTAssertEqual(x.title, y.title, file: file, line: line)
            XCTAssertEqual(x.body, y.body, file: file, line: line)
            XCTAssertEqual(x.score, y.score, file: file, line: line)
            XCTAssertEqual(x.created, y.created, file: file, line: line)
            XCTAssertEqual(Array(x.tags), Array(y.tags), file: file, line: line)
            XCTAssertEqual(x.author?.name, y.author?.name, file: file, line: line)
        }
        let usersA = a.objects(CTUser.self).sorted(byKeyPath: "name"), usersB = b.objects(CTUser.self).sorted(byKeyPath: "name")
        XCTAssertEqual(usersA.map(\.name), usersB.map(\.name), file: file, line: line)
        XCTAssertEqual(usersA.map(\.age), usersB.map(\.age), file: file, line: line)
    }

    func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    }

    // MARK: writeCopy(toFile:)

    func testWriteCopyToFileCarriesTheDataAndOpensWithTheTargetConfiguration() throws {
        let source = try Realm(configuration: configuration("source.realm"))
        try fill(source, notes: 50)
        let destination = configuration("copy.realm")
        XCTAssertFalse(Realm.fileExists(for: destination))
        try source.writeCopy(toFile: destination.fileURL!)
        XCTAssertTrue(Realm.fileExists(for: destination))
        let copy = try Realm(configuration: destination)
        assertSameData(source, copy)
        // The links point at the copy's own objects.
        XCTAssertEqual(copy.objects(CTNote.self).where { $0.author.name == "Ann" }.count, 25)
        XCTAssertEqual(copy.objects(CTNote.self).first?.author?.realm, copy)
        // Queries, sorting and primary keys work on the copy.
        XCTAssertEqual(copy.object(ofType: CTNote.self, forPrimaryKey: 7)?.title, "note 7")
        XCTAssertEqual(copy.objects(CTNote.self).filter("tags.@count == 3").count, 12)
        // The two files evolve independently.
        try copy.write { copy.create(CTNote.self, value: ["id": 1000, "title": "copy only"]) }
        try source.write { source.delete(source.objects(CTNote.self).where { $0.id < 10 }) }
        XCTAssertEqual(copy.objects(CTNote.self).count, 51)
        XCTAssertEqual(source.objects(CTNote.self).count, 40)
        XCTAssertNil(source.object(ofType: CTNote.self, forPrimaryKey: 1000))
    }

    func testTheCopyReopensAfterEveryInstanceClosed() throws {
        let destination = configuration("copy.realm")
        do {
            let source = try Realm(configuration: configuration("source.realm"))
            try fill(source, notes: 8)
            try source.writeCopy(configuration: destination)
        }
        do {
            let copy = try Realm(configuration: destination)
            XCTAssertEqual(copy.objects(CTNote.self).count, 8)
            try copy.write { copy.create(CTUser.self, value: ["name": "Cy", "age": 3]) }
        }
        let reopened = try Realm(configuration: destination)
        XCTAssertEqual(reopened.objects(CTNote.self).count, 8)
        XCTAssertEqual(reopened.objects(CTUser.self).count, 3)
        XCTAssertEqual(reopened.schema.objectSchema.map(\.className).sorted(), ["CTNote", "CTUser"])
    }

    func testWriteCopyIsCompacted() throws {
        let url = directory.appendingPathComponent("big.realm")
        let source = try Realm(configuration: configuration("big.realm"))
        try fill(source, notes: 2000, bodySize: 1024)
        try source.write { source.delete(source.objects(CTNote.self).where { $0.id >= 100 }) }
        let copyURL = directory.appendingPathComponent("small.realm")
        try source.writeCopy(toFile: copyURL)
        let original = try fileSize(url), copied = try fileSize(copyURL)
        XCTAssertGreaterThan(original, 2_000_000, "the source file holds 2 MB of bodies before the delete")
        XCTAssertLessThan(copied, original / 4, "the copy (\(copied) bytes) is compacted, the source has \(original)")
        let copy = try Realm(configuration: configuration("small.realm"))
        XCTAssertEqual(copy.objects(CTNote.self).count, 100)
        assertSameData(source, copy)
    }

    func testWriteCopyToAnExistingFileThrowsFileExists() throws {
        let source = try Realm(configuration: configuration("source.realm"))
        try fill(source, notes: 3)
        // Any existing file, a realm or not.
        let existing = directory.appendingPathComponent("taken.realm")
        try Data("not a realm".utf8).write(to: existing)
        let error = qtRealmError { try source.writeCopy(toFile: existing) }
        XCTAssertEqual(error?.code, .fileExists)
        XCTAssertTrue(error?.message.contains(existing.path) ?? false, error?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: existing), Data("not a realm".utf8), "the existing file is left alone")
        // A second copy to the same place.
        let target = directory.appendingPathComponent("copy.realm")
        try source.writeCopy(toFile: target)
        XCTAssertEqual(qtRealmError { try source.writeCopy(toFile: target) }?.code, .fileExists)
        // The source realm itself.
        XCTAssertEqual(qtRealmError { try source.writeCopy(toFile: source.configuration.fileURL!) }?.code, .fileExists)
        // Through writeCopy(configuration:).
        XCTAssertEqual(qtRealmError { try source.writeCopy(configuration: self.configuration("taken.realm")) }?.code, .fileExists)
    }

    func testWriteCopyFailures() throws {
        let source = try Realm(configuration: configuration("source.realm"))
        try fill(source, notes: 3)
        // A directory that does not exist.
        let nowhere = directory.appendingPathComponent("missing/dir/copy.realm")
        let error = qtRealmError { try source.writeCopy(toFile: nowhere) }
        XCTAssertNotNil(error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: nowhere.path))
        // Inside a write transaction.
        source.beginWrite()
        XCTAssertEqual(qtRealmError { try source.writeCopy(toFile: self.directory.appendingPathComponent("in-write.realm")) }?.code,
                       .wrongTransactionState)
        source.cancelWrite()
        // An in-memory destination.
        XCTAssertEqual(qtRealmError { try source.writeCopy(configuration: Realm.Configuration(inMemoryIdentifier: "qt-copy-dest")) }?.code,
                       .invalidArgument)
        // The source is untouched by the failures.
        XCTAssertEqual(source.objects(CTNote.self).count, 3)
    }

    func testWriteCopyHoldsOnlyCommittedData() throws {
        let source = try Realm(configuration: configuration("source.realm"))
        try fill(source, notes: 5)
        let target = directory.appendingPathComponent("copy.realm")
        try source.writeCopy(toFile: target)
        try source.write { source.create(CTNote.self, value: ["id": 99]) }
        let copy = try Realm(configuration: configuration("copy.realm"))
        XCTAssertEqual(copy.objects(CTNote.self).count, 5)
        XCTAssertNil(copy.object(ofType: CTNote.self, forPrimaryKey: 99))
    }

    // MARK: writeCopy(configuration:)

    func testWriteCopyConfigurationFromAnInMemoryRealmToAFile() throws {
        let memory = try qtInMemoryRealm(Self.types, "qt-copy-memory")
        try fill(memory, notes: 20)
        let destination = configuration("from-memory.realm")
        try memory.writeCopy(configuration: destination)
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination.fileURL!.path))
        let copy = try Realm(configuration: destination)
        assertSameData(memory, copy)
        // The in-memory realm keeps working, apart from the file.
        try memory.write { memory.deleteAll() }
        XCTAssertEqual(memory.objects(CTNote.self).count, 0)
        XCTAssertEqual(copy.objects(CTNote.self).count, 20)
    }

    func testWriteCopyConfigurationBetweenFiles() throws {
        let source = try Realm(configuration: configuration("a.realm"))
        try fill(source, notes: 10)
        var destination = configuration("b.realm")
        destination.schemaVersion = 0
        try source.writeCopy(configuration: destination)
        let copy = try Realm(configuration: destination)
        assertSameData(source, copy)
        // A copy of a copy.
        try copy.writeCopy(configuration: configuration("c.realm"))
        assertSameData(source, try Realm(configuration: configuration("c.realm")))
    }

    func testWriteCopyOfAnEmptyRealm() throws {
        let source = try Realm(configuration: configuration("empty.realm"))
        try source.writeCopy(toFile: directory.appendingPathComponent("empty-copy.realm"))
        let copy = try Realm(configuration: configuration("empty-copy.realm"))
        XCTAssertEqual(copy.objects(CTNote.self).count, 0)
        try copy.write { copy.create(CTUser.self, value: ["name": "Z"]) }
        XCTAssertEqual(copy.objects(CTUser.self).count, 1)
    }

    func testWriteCopyOfAFrozenRealm() throws {
        let source = try Realm(configuration: configuration("source.realm"))
        try fill(source, notes: 4)
        let frozen = source.freeze()
        // At the latest version: the copy holds what the frozen realm shows.
        try frozen.writeCopy(toFile: directory.appendingPathComponent("frozen-copy.realm"))
        let copy = try Realm(configuration: configuration("frozen-copy.realm"))
        assertSameData(frozen, copy)
        // Once the file moved on, a copy would not hold the frozen version: refused, not wrong.
        try source.write { source.create(CTNote.self, value: ["id": 50]) }
        let later = directory.appendingPathComponent("frozen-later.realm")
        let error = qtRealmError { try frozen.writeCopy(toFile: later) }
        XCTAssertTrue(error?.message.contains("frozen") ?? false, error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: later.path))
    }

    func testEncryptedCopiesAreRefused() throws {
        let source = try Realm(configuration: configuration("source.realm"))
        let error = qtRealmError { try source.writeCopy(toFile: self.directory.appendingPathComponent("enc.realm"),
                                                        encryptionKey: Data(count: 64)) }
        XCTAssertNotNil(error)
        XCTAssertTrue(error?.message.lowercased().contains("encrypt") ?? false, error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("enc.realm").path))
    }
}
