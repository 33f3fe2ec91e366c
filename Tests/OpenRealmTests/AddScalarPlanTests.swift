import Foundation
import XCTest
@testable import OpenRealm

// MARK: - Models

final class SPOwner: Object {
    @Persisted var name: String
    @Persisted var item: SPScalars?
}

/// Scalars only, with a `LinkingObjects` between them: `add` writes it through the
/// binding's scalar plan.
final class SPScalars: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var count: Int
    @Persisted(originProperty: "item") var owners: LinkingObjects<SPOwner>
    @Persisted(indexed: true) var label: String
    @Persisted var note: String?
    @Persisted var ratio: Double
    @Persisted var when: Date
    @Persisted var uuid: UUID
    @Persisted var flag: Bool
    @Persisted var small: Int8?
}

/// Every scalar type with a specialized encoder, plain and optional: all of it through
/// the scalar plan.
final class SPEveryScalar: Object {
    @Persisted var int: Int
    @Persisted var optInt: Int?
    @Persisted var int64: Int64
    @Persisted var optInt64: Int64?
    @Persisted var int32: Int32
    @Persisted var optInt32: Int32?
    @Persisted var int16: Int16
    @Persisted var optInt16: Int16?
    @Persisted var int8: Int8
    @Persisted var optInt8: Int8?
    @Persisted var bool: Bool
    @Persisted var optBool: Bool?
    @Persisted var double: Double
    @Persisted var optDouble: Double?
    @Persisted var float: Float
    @Persisted var optFloat: Float?
    @Persisted var string: String
    @Persisted var optString: String?
    @Persisted var data: Data
    @Persisted var optData: Data?
    @Persisted var date: Date
    @Persisted var optDate: Date?
    @Persisted var decimal: Decimal128
    @Persisted var optDecimal: Decimal128?
    @Persisted var objectId: ObjectId
    @Persisted var optObjectId: ObjectId?
    @Persisted var uuid: UUID
    @Persisted var optUUID: UUID?
}

enum SPLevel: Int, PersistableEnum { case low = 1, high = 2 }

/// Scalars, one of them an enum (no specialized encoder): `add` walks the properties.
final class SPWithEnum: Object {
    @Persisted var count: Int
    @Persisted var level: SPLevel
    @Persisted var label: String
}

// MARK: - Tests

final class AddScalarPlanTests: XCTestCase {
    func testEveryValueLandsInItsOwnColumn() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([SPScalars.self, SPOwner.self]))
        let when = Date(timeIntervalSince1970: 1_700_000_000.25)
        var added: [SPScalars] = []
        try realm.write {
            for i in 0..<50 {
                let item = SPScalars()
                item.count = i
                item.label = "label \(i % 5)"
                item.note = i.isMultiple(of: 3) ? nil : "note \(i)"
                item.ratio = Double(i) / 4
                item.when = when.addingTimeInterval(Double(i))
                item.flag = i.isMultiple(of: 2)
                item.small = i.isMultiple(of: 7) ? nil : Int8(i)
                // id and uuid keep their generated defaults: what the instance shows
                // before the add must be what the row holds after it
                let (id, uuid) = (item.id, item.uuid)
                realm.add(item)
                XCTAssertEqual(item.id, id)
                XCTAssertEqual(item.uuid, uuid)
                added.append(item)
            }
            realm.add(SPOwner(value: ["name": "owner", "item": added[4]]))
        }
        for (i, item) in added.enumerated() {
            let found = try XCTUnwrap(realm.object(ofType: SPScalars.self, forPrimaryKey: item.id))
            XCTAssertEqual(found.count, i)
            XCTAssertEqual(found.label, "label \(i % 5)")
            XCTAssertEqual(found.note, i.isMultiple(of: 3) ? nil : "note \(i)")
            XCTAssertEqual(found.ratio, Double(i) / 4)
            XCTAssertEqual(found.when, when.addingTimeInterval(Double(i)))
            XCTAssertEqual(found.uuid, item.uuid)
            XCTAssertEqual(found.flag, i.isMultiple(of: 2))
            XCTAssertEqual(found.small, i.isMultiple(of: 7) ? nil : Int8(i))
            XCTAssertEqual(found.owners.count, i == 4 ? 1 : 0)
        }
        // queries read the same columns (the indexed one through its index)
        XCTAssertEqual(realm.objects(SPScalars.self).where { $0.label == "label 2" }.count, 10)
        XCTAssertEqual(realm.objects(SPScalars.self).where { $0.note == nil }.count, 17)
        XCTAssertEqual(realm.objects(SPScalars.self).where { $0.ratio >= 10 }.count, 10)
        XCTAssertEqual(realm.objects(SPScalars.self).where { $0.small == nil }.count, 8)
    }

    func testADuplicateKeyThroughThePlanFailsTheWrite() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([SPScalars.self, SPOwner.self]))
        let id = ObjectId.generate()
        try realm.write { realm.add(SPScalars(value: ["id": id, "label": "first"])) }
        assertThrowsRealmError(.primaryKeyExists, messageContains: ["SPScalars", id.stringValue]) {
            try realm.write { realm.add(SPScalars(value: ["id": id, "label": "second"])) }
        }
        XCTAssertEqual(realm.objects(SPScalars.self).count, 1)
        XCTAssertEqual(realm.object(ofType: SPScalars.self, forPrimaryKey: id)?.label, "first")
        // update policies find the existing object and take the other path
        try realm.write { realm.add(SPScalars(value: ["id": id, "label": "updated", "count": 3]), update: .modified) }
        XCTAssertEqual(realm.object(ofType: SPScalars.self, forPrimaryKey: id)?.label, "updated")
        XCTAssertEqual(realm.object(ofType: SPScalars.self, forPrimaryKey: id)?.count, 3)
    }

    func testAClassWithAnEnumIsWrittenPropertyByProperty() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([SPWithEnum.self]))
        try realm.write {
            for i in 0..<6 { realm.add(SPWithEnum(value: ["count": i, "level": i < 2 ? SPLevel.low : .high, "label": "l\(i)"])) }
        }
        let rows = realm.objects(SPWithEnum.self).sorted(byKeyPath: "count")
        XCTAssertEqual(rows.map(\.level), [.low, .low, .high, .high, .high, .high])
        XCTAssertEqual(rows.map(\.label), (0..<6).map { "l\($0)" })
        XCTAssertEqual(realm.objects(SPWithEnum.self).where { $0.level == .high }.count, 4)
    }

    /// Each type's encoder reads its own field with its own type: distinct values of
    /// every type, set and nil, come back as they went in (an encoder reading a field
    /// as another type reads the wrong bytes).
    func testEveryScalarTypeThroughItsEncoder() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([SPEveryScalar.self]))
        let base = Date(timeIntervalSince1970: 1_700_000_000.5)
        let ids = (0..<4).map { _ in ObjectId.generate() }
        let uuids = (0..<4).map { _ in UUID() }
        try realm.write {
            for i in 0..<4 {
                let o = SPEveryScalar()
                let set = i % 2 == 1
                o.int = -1_000_000_007 * (i + 1)
                o.int64 = Int64.max - Int64(i)
                o.int32 = Int32.min + Int32(i)
                o.int16 = Int16(-300 - i)
                o.int8 = Int8(-100 + i)
                o.bool = set
                o.double = 1.5 + Double(i)
                o.float = 2.25 + Float(i)
                o.string = "string \(i) with more than fifteen bytes"
                o.data = Data([UInt8(i), 0xFE, 0x00, 0x7F])
                o.date = base.addingTimeInterval(Double(i))
                o.decimal = Decimal128(number: NSNumber(value: 12.5 + Double(i)))
                o.objectId = ids[i]
                o.uuid = uuids[i]
                if set {
                    o.optInt = 7 * i
                    o.optInt64 = -Int64(i)
                    o.optInt32 = Int32(i) << 20
                    o.optInt16 = Int16(i) * 1000
                    o.optInt8 = Int8(i) * 30
                    o.optBool = false
                    o.optDouble = -0.5 * Double(i)
                    o.optFloat = 0.125 * Float(i)
                    o.optString = "opt \(i)"
                    o.optData = Data(repeating: UInt8(i), count: 40)
                    o.optDate = base.addingTimeInterval(-Double(i))
                    o.optDecimal = Decimal128(number: NSNumber(value: i))
                    o.optObjectId = ids[3 - i]
                    o.optUUID = uuids[3 - i]
                }
                realm.add(o)
            }
        }
        let rows = Array(realm.objects(SPEveryScalar.self).sorted(byKeyPath: "int", ascending: false))
        XCTAssertEqual(rows.count, 4)
        for (i, o) in rows.enumerated() {
            let set = i % 2 == 1
            XCTAssertEqual(o.int, -1_000_000_007 * (i + 1))
            XCTAssertEqual(o.int64, Int64.max - Int64(i))
            XCTAssertEqual(o.int32, Int32.min + Int32(i))
            XCTAssertEqual(o.int16, Int16(-300 - i))
            XCTAssertEqual(o.int8, Int8(-100 + i))
            XCTAssertEqual(o.bool, set)
            XCTAssertEqual(o.double, 1.5 + Double(i))
            XCTAssertEqual(o.float, 2.25 + Float(i))
            XCTAssertEqual(o.string, "string \(i) with more than fifteen bytes")
            XCTAssertEqual(o.data, Data([UInt8(i), 0xFE, 0x00, 0x7F]))
            XCTAssertEqual(o.date, base.addingTimeInterval(Double(i)))
            XCTAssertEqual(o.decimal, Decimal128(number: NSNumber(value: 12.5 + Double(i))))
            XCTAssertEqual(o.objectId, ids[i])
            XCTAssertEqual(o.uuid, uuids[i])
            XCTAssertEqual(o.optInt, set ? 7 * i : nil)
            XCTAssertEqual(o.optInt64, set ? -Int64(i) : nil)
            XCTAssertEqual(o.optInt32, set ? Int32(i) << 20 : nil)
            XCTAssertEqual(o.optInt16, set ? Int16(i) * 1000 : nil)
            XCTAssertEqual(o.optInt8, set ? Int8(i) * 30 : nil)
            XCTAssertEqual(o.optBool, set ? false : nil)
            XCTAssertEqual(o.optDouble, set ? -0.5 * Double(i) : nil)
            XCTAssertEqual(o.optFloat, set ? 0.125 * Float(i) : nil)
            XCTAssertEqual(o.optString, set ? "opt \(i)" : nil)
            XCTAssertEqual(o.optData, set ? Data(repeating: UInt8(i), count: 40) : nil)
            XCTAssertEqual(o.optDate, set ? base.addingTimeInterval(-Double(i)) : nil)
            XCTAssertEqual(o.optDecimal, set ? Decimal128(number: NSNumber(value: i)) : nil)
            XCTAssertEqual(o.optObjectId, set ? ids[3 - i] : nil)
            XCTAssertEqual(o.optUUID, set ? uuids[3 - i] : nil)
        }
    }
}
