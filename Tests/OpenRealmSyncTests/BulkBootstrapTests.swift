import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// A model with a property of every synced type, optional and required, collections of
/// each kind, a link and an embedded object: what a bootstrap's `createObject`
/// instructions carry (``ObjectCreator``) and what follows them.
class BulkItem: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var flag: Bool
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var optionalInt: Int?
    @Persisted var optionalString: String?
    @Persisted var optionalDate: Date?
    @Persisted var optionalUUID: UUID?
    @Persisted var mixed: AnyRealmValue
    @Persisted var link: BulkItem?
    @Persisted var strings: List<String>
    @Persisted var numbers: MutableSet<Int>
    @Persisted var scores: Map<String, Double>
    @Persisted var note: BulkNote?
    @Persisted var notes: List<BulkNote>
}

class BulkNote: EmbeddedObject {
    @Persisted var text: String
    @Persisted var count: Int
}

final class BulkBootstrapTests: SyncTestCase {
    nonisolated(nonsending) func openSubscribed(_ user: User) async throws -> Realm {
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<BulkItem>(name: "all_items"))
        })
        config.objectTypes = [BulkItem.self, BulkNote.self]
        return try await Realm(configuration: config, downloadBeforeOpen: .always)
    }

    static func fill(_ item: BulkItem, _ i: Int) {
        item.flag = i % 2 == 0
        item.int = i * 1_000_003 - 7
        item.int8 = Int8(truncatingIfNeeded: i)
        item.int16 = Int16(truncatingIfNeeded: i * 31)
        item.int32 = Int32(truncatingIfNeeded: i * 65_537)
        item.float = Float(i) / 3
        item.double = Double(i) * 1.25e-3
        item.string = i % 7 == 0 ? "" : "item \(i) — ü"
        item.data = Data((0..<(i % 5)).map { UInt8(truncatingIfNeeded: $0 * i) })
        item.date = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 0.5)
        item.decimal = Decimal128(value: i) / Decimal128(value: 8)
        item.objectId = try! ObjectId(string: String(format: "%024x", i + 1))
        item.uuid = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", i))!
        item.optionalInt = i % 3 == 0 ? nil : -i
        item.optionalString = i % 4 == 0 ? nil : "optional \(i)"
        item.optionalDate = i % 5 == 0 ? nil : Date(timeIntervalSince1970: Double(i))
        item.optionalUUID = i % 6 == 0 ? nil : UUID(uuidString: String(format: "00000000-0000-4000-9000-%012x", i))!
        switch i % 4 {
        case 0: item.mixed = .int(i)
        case 1: item.mixed = .string("mixed \(i)")
        case 2: item.mixed = .double(Double(i) / 2)
        default: item.mixed = .none
        }
        item.strings.append(objectsIn: (0..<(i % 4)).map { "s\(i).\($0)" })
        item.numbers.insert(objectsIn: (0..<(i % 3)).map { $0 * i })
        for k in 0..<(i % 3) { item.scores["k\(k)"] = Double(k * i) }
        if i % 2 == 1 { item.note = BulkNote(value: ["text": "note \(i)", "count": i]) }
        for k in 0..<(i % 3) { item.notes.append(BulkNote(value: ["text": "n\(i).\(k)", "count": k])) }
    }

    /// Every property of `a` and `b`, compared.
    static func assertSame(_ a: BulkItem, _ b: BulkItem, file: StaticString = #filePath, line: UInt = #line) {
        let i = a._id
        XCTAssertEqual(a.flag, b.flag, "flag of \(i)", file: file, line: line)
        XCTAssertEqual(a.int, b.int, "int of \(i)", file: file, line: line)
        XCTAssertEqual(a.int8, b.int8, "int8 of \(i)", file: file, line: line)
        XCTAssertEqual(a.int16, b.int16, "int16 of \(i)", file: file, line: line)
        XCTAssertEqual(a.int32, b.int32, "int32 of \(i)", file: file, line: line)
        XCTAssertEqual(a.float, b.float, "float of \(i)", file: file, line: line)
        XCTAssertEqual(a.double, b.double, "double of \(i)", file: file, line: line)
        XCTAssertEqual(a.string, b.string, "string of \(i)", file: file, line: line)
        XCTAssertEqual(a.data, b.data, "data of \(i)", file: file, line: line)
        XCTAssertEqual(a.date, b.date, "date of \(i)", file: file, line: line)
        XCTAssertEqual(a.decimal, b.decimal, "decimal of \(i)", file: file, line: line)
        XCTAssertEqual(a.objectId, b.objectId, "objectId of \(i)", file: file, line: line)
        XCTAssertEqual(a.uuid, b.uuid, "uuid of \(i)", file: file, line: line)
        XCTAssertEqual(a.optionalInt, b.optionalInt, "optionalInt of \(i)", file: file, line: line)
        XCTAssertEqual(a.optionalString, b.optionalString, "optionalString of \(i)", file: file, line: line)
        XCTAssertEqual(a.optionalDate, b.optionalDate, "optionalDate of \(i)", file: file, line: line)
        XCTAssertEqual(a.optionalUUID, b.optionalUUID, "optionalUUID of \(i)", file: file, line: line)
        XCTAssertEqual(a.mixed, b.mixed, "mixed of \(i)", file: file, line: line)
        XCTAssertEqual(a.link?._id, b.link?._id, "link of \(i)", file: file, line: line)
        XCTAssertEqual(Array(a.strings), Array(b.strings), "strings of \(i)", file: file, line: line)
        XCTAssertEqual(Set(a.numbers), Set(b.numbers), "numbers of \(i)", file: file, line: line)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: a.scores.map { ($0.key, $0.value) }),
                       Dictionary(uniqueKeysWithValues: b.scores.map { ($0.key, $0.value) }), "scores of \(i)", file: file, line: line)
        XCTAssertEqual(a.note?.text, b.note?.text, "note of \(i)", file: file, line: line)
        XCTAssertEqual(a.note?.count, b.note?.count, "note of \(i)", file: file, line: line)
        XCTAssertEqual(a.notes.map { "\($0.text)/\($0.count)" }, b.notes.map { "\($0.text)/\($0.count)" }, "notes of \(i)", file: file, line: line)
    }

    /// Many objects of every property type reach a new client in one bootstrap (the
    /// bulk `createObject` path), equal to the writer's; objects the new client already
    /// held (its own writes) are merged, not duplicated.
    @MainActor
    func testBootstrapOfEveryPropertyTypeEqualsTheWritersObjects() async throws {
        let count = 1_500
        let writer = try await openSubscribed(try await newUser("writer"))
        try writer.write {
            var previous: BulkItem?
            for i in 0..<count {
                let item = BulkItem()
                item._id = i
                Self.fill(item, i)
                writer.add(item)
                // Links to objects created before and after (an earlier one's link is set later).
                if i % 10 == 3 { item.link = previous }
                previous = item
            }
            writer.object(ofType: BulkItem.self, forPrimaryKey: 0)!.link = writer.object(ofType: BulkItem.self, forPrimaryKey: count - 1)
        }
        try await writer.syncSession!.wait(for: .upload)

        let reader = try await openSubscribed(try await newUser("reader"))
        reader.refresh()
        XCTAssertEqual(reader.objects(BulkItem.self).count, count)
        for a in writer.objects(BulkItem.self) {
            guard let b = reader.object(ofType: BulkItem.self, forPrimaryKey: a._id) else {
                XCTFail("object \(a._id) missing after the bootstrap")
                continue
            }
            Self.assertSame(a, b)
        }

        // A change after the bootstrap still reaches the reader through ordinary downloads.
        try writer.write {
            let item = writer.object(ofType: BulkItem.self, forPrimaryKey: 5)!
            item.string = "changed"
            item.strings.append("more")
            let fresh = BulkItem()
            fresh._id = count
            Self.fill(fresh, count)
            writer.add(fresh)
        }
        try await writer.syncSession!.wait(for: .upload)
        try await waitUntil("the reader to receive the change") {
            reader.refresh()
            return reader.object(ofType: BulkItem.self, forPrimaryKey: count) != nil
                && reader.object(ofType: BulkItem.self, forPrimaryKey: 5)?.string == "changed"
        }
        Self.assertSame(writer.object(ofType: BulkItem.self, forPrimaryKey: 5)!, reader.object(ofType: BulkItem.self, forPrimaryKey: 5)!)
        Self.assertSame(writer.object(ofType: BulkItem.self, forPrimaryKey: count)!,
                        reader.object(ofType: BulkItem.self, forPrimaryKey: count)!)
    }
}
