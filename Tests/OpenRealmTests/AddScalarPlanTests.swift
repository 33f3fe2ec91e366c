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
}
