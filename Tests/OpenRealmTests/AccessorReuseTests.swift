import Foundation
import XCTest
@testable import OpenRealm

// MARK: - Models

/// Only `@Persisted` fields: iteration may re-point an accessor nobody holds.
final class ARPlain: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var note: String?
}

/// A stored property of its own: its accessors are never re-pointed, so a value set
/// on one element never shows on the next.
final class ARWithIgnored: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    var scratch = ""
}

/// Every scalar type `add` encodes with a specialized encoder, optional and not,
/// with and without declared defaults.
final class ARScalars: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var int8: Int8 = -8
    @Persisted var int16: Int16
    @Persisted var int32: Int32?
    @Persisted var int64: Int64 = 64
    @Persisted var flag: Bool?
    @Persisted var float: Float = 1.5
    @Persisted var double: Double?
    @Persisted var text: String = "default"
    @Persisted var optText: String?
    @Persisted var data: Data?
    @Persisted var date: Date
    @Persisted var decimal: Decimal128?
    @Persisted var uuid: UUID
    @Persisted var optUUID: UUID?
}

// MARK: - Tests

final class AccessorReuseTests: XCTestCase {
    var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration([ARPlain.self, ARWithIgnored.self, ARScalars.self]))
        try realm.write {
            for i in 0..<50 {
                realm.add(ARPlain(value: ["id": i, "name": "n\(i)", "note": i % 2 == 0 ? nil : "odd"]))
                realm.add(ARWithIgnored(value: ["id": i, "name": "n\(i)"]))
            }
        }
    }

    override func tearDown() {
        realm = nil
    }

    func testOnlyModelsWithoutStoredPropertiesOfTheirOwnRecycle() {
        XCTAssertTrue(ObjectTypeInfo.of(ARPlain.self).recyclesAccessors)
        XCTAssertFalse(ObjectTypeInfo.of(ARWithIgnored.self).recyclesAccessors)
    }

    func testIterationReadsEveryRowInOrder() {
        var ids: [Int] = []
        var notes = 0
        for item in realm.objects(ARPlain.self) {
            ids.append(item.id)
            XCTAssertEqual(item.name, "n\(item.id)")
            if item.note != nil { notes += 1 }
        }
        XCTAssertEqual(ids, Array(0..<50))
        XCTAssertEqual(notes, 25)
    }

    func testElementsKeptByTheCallerStayOnTheirRows() {
        var kept: [ARPlain] = []
        for item in realm.objects(ARPlain.self) where item.id % 7 == 0 {
            kept.append(item)
        }
        XCTAssertEqual(kept.map(\.id), [0, 7, 14, 21, 28, 35, 42, 49])
        XCTAssertEqual(Set(kept.map(ObjectIdentifier.init)).count, kept.count, "each kept element is its own accessor")
        XCTAssertEqual(kept.map(\.name), kept.map { "n\($0.id)" })
    }

    func testWeaklyHeldElementIsNotRepointed() {
        weak var held: ARPlain?
        var heldId = -1
        for item in realm.objects(ARPlain.self) {
            if item.id == 10 {
                held = item
                heldId = item.id
            }
            if let held, item.id > 10 {
                // The element is alive only while another iteration variable keeps it.
                XCTAssertEqual(held.id, heldId)
            }
        }
        if let held { XCTAssertEqual(held.id, 10) }
    }

    func testUnownedElementIsNotRepointed() {
        var iterator = realm.objects(ARPlain.self).makeIterator()
        let first = iterator.next()!
        unowned let watch = first
        _ = iterator.next()
        XCTAssertEqual(watch.id, 0)
        XCTAssertEqual(first.id, 0)
    }

    func testStoredPropertyOfTheModelDoesNotCarryOver() {
        for item in realm.objects(ARWithIgnored.self) {
            XCTAssertEqual(item.scratch, "", "row \(item.id) sees a value set on another row")
            item.scratch = "set on \(item.id)"
        }
    }

    func testIteratorCopiesAreIndependent() {
        var a = realm.objects(ARPlain.self).makeIterator()
        _ = a.next()
        var b = a
        XCTAssertEqual(a.next()?.id, 1)
        XCTAssertEqual(b.next()?.id, 1)
        XCTAssertEqual(a.next()?.id, 2)
    }

    func testAddEncodesEveryScalarTypeAndItsDefaults() throws {
        let given = ARScalars()
        given.int16 = -16
        given.int32 = 32
        given.flag = true
        given.double = 2.25
        given.optText = "text"
        given.data = Data([1, 2, 3])
        given.decimal = Decimal128(number: 12)
        let uuid = UUID()
        given.optUUID = uuid
        let defaults = ARScalars()
        try realm.write {
            realm.add(given)
            realm.add(defaults)
        }
        let a = try XCTUnwrap(realm.object(ofType: ARScalars.self, forPrimaryKey: given.id))
        XCTAssertEqual(a.int8, -8)
        XCTAssertEqual(a.int16, -16)
        XCTAssertEqual(a.int32, 32)
        XCTAssertEqual(a.int64, 64)
        XCTAssertEqual(a.flag, true)
        XCTAssertEqual(a.float, 1.5)
        XCTAssertEqual(a.double, 2.25)
        XCTAssertEqual(a.text, "default")
        XCTAssertEqual(a.optText, "text")
        XCTAssertEqual(a.data, Data([1, 2, 3]))
        XCTAssertEqual(a.decimal, Decimal128(number: 12))
        XCTAssertEqual(a.optUUID, uuid)

        // Generated defaults are stored as the object's own value, and read back the same.
        let b = try XCTUnwrap(realm.object(ofType: ARScalars.self, forPrimaryKey: defaults.id))
        XCTAssertNotEqual(b.id, a.id)
        XCTAssertEqual(b.uuid, defaults.uuid)
        XCTAssertNotEqual(b.uuid, a.uuid)
        XCTAssertNil(b.int32)
        XCTAssertNil(b.flag)
        XCTAssertNil(b.optText)
        XCTAssertNil(b.data)
        XCTAssertNil(b.decimal)
        XCTAssertEqual(b.int16, 0)
        XCTAssertEqual(b.date, defaults.date)
    }

    func testDuplicatePrimaryKeyNamesTheKey() {
        let id = ObjectId.generate()
        let first = ARScalars()
        first.id = id
        let second = ARScalars()
        second.id = id
        XCTAssertThrowsError(try realm.write {
            realm.add(first)
            realm.add(second)
        }) { error in
            XCTAssertTrue("\(error)".contains(id.stringValue), "\(error)")
        }
    }
}
