import Foundation
import OpenRealm
import XCTest

enum DurableStatus: String, PersistableEnum {
    case open, done
}

final class DurableNote: EmbeddedObject {
    @Persisted var text: String
    @Persisted var tags: List<String>
}

final class DurableRecord: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var optString: String?
    @Persisted var optInt: Int?
    @Persisted var status: DurableStatus
    @Persisted var any: AnyRealmValue
    @Persisted var note: DurableNote?
    @Persisted var link: DurableRecord?
    @Persisted var list: List<DurableRecord>
    @Persisted var notes: List<DurableNote>
    @Persisted var numbers: List<Int>
    @Persisted var set: MutableSet<String>
    @Persisted var map: Map<String, Date>
    @Persisted(originProperty: "list") var listedBy: LinkingObjects<DurableRecord>
}

final class DurabilityTests: XCTestCase {
    private var config: Realm.Configuration!
    private let id = ObjectId.generate()
    private let childId = ObjectId.generate()
    private let date = Date(timeIntervalSince1970: 1_234_567_890.5)
    private let uuid = UUID()

    override func setUpWithError() throws {
        config = try makeFileConfiguration([DurableRecord.self, DurableNote.self])
    }

    /// Opens the realm, runs `body`, and releases every reference before returning.
    private func withRealm(_ body: (Realm) throws -> Void) throws {
        let realm = try Realm(configuration: config)
        try body(realm)
    }

    private func record(_ realm: Realm, _ id: ObjectId) throws -> DurableRecord {
        try realm.upsertLookup(DurableRecord.self, primaryKey: "_id", id)
    }

    private func writeEverything() throws {
        try withRealm { realm in
            let child = DurableRecord(value: ["_id": childId, "string": "child"])
            let record = DurableRecord()
            record._id = id
            record.bool = true
            record.int = -9_876_543_210
            record.int8 = -8
            record.float = 0.125
            record.double = .pi
            record.string = "Durable ✓"
            record.data = Data((0..<300).map { UInt8($0 % 256) })
            record.date = date
            record.decimal = try Decimal128(string: "3.14159265358979323846")
            record.objectId = childId
            record.uuid = uuid
            record.optString = nil
            record.optInt = 5
            record.status = .done
            record.any = .decimal128(Decimal128(integerLiteral: 12))
            record.note = DurableNote(value: ["text": "embedded", "tags": ["x", "y"]])
            record.link = child
            record.list.append(objectsIn: [child, child])
            record.notes.append(DurableNote(value: ["text": "in a list"]))
            record.numbers.append(objectsIn: [5, 4, 3])
            record.set.insert(objectsIn: ["a", "b"])
            record.map["when"] = date
            try realm.write { realm.add(record) }
        }
    }

    private func checkEverything(_ realm: Realm, file: StaticString = #filePath, line: UInt = #line) throws {
        let record = try self.record(realm, id)
        XCTAssertEqual(record.bool, true, file: file, line: line)
        XCTAssertEqual(record.int, -9_876_543_210, file: file, line: line)
        XCTAssertEqual(record.int8, -8, file: file, line: line)
        XCTAssertEqual(record.float, 0.125, file: file, line: line)
        XCTAssertEqual(record.double, .pi, file: file, line: line)
        XCTAssertEqual(record.string, "Durable ✓", file: file, line: line)
        XCTAssertEqual(record.data, Data((0..<300).map { UInt8($0 % 256) }), file: file, line: line)
        XCTAssertEqual(record.date, date, file: file, line: line)
        XCTAssertEqual(record.decimal, try Decimal128(string: "3.14159265358979323846"), file: file, line: line)
        XCTAssertEqual(record.objectId, childId, file: file, line: line)
        XCTAssertEqual(record.uuid, uuid, file: file, line: line)
        XCTAssertNil(record.optString, file: file, line: line)
        XCTAssertEqual(record.optInt, 5, file: file, line: line)
        XCTAssertEqual(record.status, .done, file: file, line: line)
        XCTAssertEqual(record.any, .decimal128(Decimal128(integerLiteral: 12)), file: file, line: line)
        XCTAssertEqual(record.note?.text, "embedded", file: file, line: line)
        XCTAssertEqual(record.note.map { Array($0.tags) }, ["x", "y"], file: file, line: line)
        XCTAssertEqual(record.link?._id, childId, file: file, line: line)
        XCTAssertEqual(record.link?.string, "child", file: file, line: line)
        XCTAssertEqual(record.list.map(\._id), [childId, childId], file: file, line: line)
        XCTAssertEqual(record.notes.map(\.text), ["in a list"], file: file, line: line)
        XCTAssertEqual(Array(record.numbers), [5, 4, 3], file: file, line: line)
        XCTAssertEqual(Set(record.set), ["a", "b"], file: file, line: line)
        XCTAssertEqual(record.map["when"], date, file: file, line: line)
        XCTAssertEqual(record.link?.listedBy.first?._id, id, "backlinks are rebuilt from the stored links", file: file, line: line)
    }

    func testDataSurvivesCloseAndReopen() throws {
        try writeEverything()
        try withRealm { realm in try checkEverything(realm) }
        // And again, after a second close.
        try withRealm { realm in try checkEverything(realm) }
    }

    func testTheFileAloneHoldsTheData() throws {
        try writeEverything()
        // Every instance is released: a copy of the file (without its lock file) is a
        // complete realm.
        let copyURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("copy.realm")
        try FileManager.default.copyItem(at: config.fileURL!, to: copyURL)
        config.fileURL = copyURL
        try withRealm { realm in try checkEverything(realm) }
    }

    func testChangesAndDeletesSurvive() throws {
        try writeEverything()
        try withRealm { realm in
            let record = try record(realm, id)
            try realm.write {
                record.string = "changed"
                record.numbers.removeAll()
                record.set.remove("a")
                record.map["later"] = Date(timeIntervalSince1970: 0)
                record.note = nil
                realm.delete(record.link!)
            }
        }
        try withRealm { realm in
            let record = try record(realm, id)
            XCTAssertEqual(record.string, "changed")
            XCTAssertTrue(record.numbers.isEmpty)
            XCTAssertEqual(Array(record.set), ["b"])
            XCTAssertEqual(record.map.keys, ["later", "when"])
            XCTAssertNil(record.note)
            XCTAssertNil(record.link, "the deleted object stays deleted")
            XCTAssertTrue(record.list.isEmpty)
            XCTAssertEqual(try self.record(realm, childId).string, "", "the lookup found no child and made a new one")
        }
    }

    func testCancelledAndFailedWritesLeaveNothingInTheFile() throws {
        try writeEverything()
        try withRealm { realm in
            let record = try record(realm, id)
            realm.beginWrite()
            record.string = "cancelled"
            realm.add(DurableRecord(value: ["string": "cancelled object"]))
            realm.cancelWrite()

            XCTAssertThrowsError(try realm.write {
                record.int = 0
                realm.add(DurableRecord(value: ["_id": childId]))
            })
        }
        try withRealm { realm in try checkEverything(realm) }
    }

    func testManyCommitsAndManyObjectsSurvive() throws {
        let ids = (0..<1_000).map { _ in ObjectId.generate() }
        try withRealm { realm in
            for batch in stride(from: 0, to: ids.count, by: 100) {
                try realm.write {
                    for i in batch..<batch + 100 {
                        realm.add(DurableRecord(value: ["_id": ids[i], "int": i, "string": "object \(i)"]))
                    }
                }
            }
        }
        try withRealm { realm in
            for i in [0, 1, 99, 100, 555, 999] {
                let record = try record(realm, ids[i])
                XCTAssertEqual(record.int, i)
                XCTAssertEqual(record.string, "object \(i)")
            }
        }
    }

    func testAnObjectKeepsItsRealmOpenUntilReleased() throws {
        var record: DurableRecord? = DurableRecord(value: ["_id": id, "string": "held"])
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(record!) }
        }
        assertThrowsRealmError(.fileAccess) { try Realm.deleteFiles(for: self.config) }
        XCTAssertEqual(record?.string, "held")
        record = nil
        XCTAssertTrue(try Realm.deleteFiles(for: config), "the realm closed with its last object")
    }
}

final class DurabilityModeTests: XCTestCase {
    func testSkipMetaSyncCommitsSurviveReopen() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("fast.realm"), objectTypes: [DurableModeItem.self])
        config.durability = .skipMetaSync
        do {
            let realm = try Realm(configuration: config)
            for i in 0..<20 { try realm.write { realm.add(DurableModeItem(value: ["n": i])) } }
        }
        let reopened = try Realm(configuration: config)
        XCTAssertEqual(reopened.objects(DurableModeItem.self).count, 20)
        XCTAssertEqual(reopened.objects(DurableModeItem.self).sum(ofProperty: "n") as Int, 190)
    }
}

final class DurableModeItem: Object {
    @Persisted var n = 0
}
