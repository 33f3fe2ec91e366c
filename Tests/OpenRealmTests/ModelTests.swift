import Foundation
import OpenRealm
import XCTest

enum ModelPriority: Int, PersistableEnum {
    case low, medium, high
}

enum ModelColor: String, PersistableEnum {
    case red, green, blue
}

final class ModelGeo: EmbeddedObject {
    @Persisted var lat: Double
    @Persisted var lon: Double
}

final class ModelAddress: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String?
    @Persisted var geo: ModelGeo?
}

final class ModelOwner: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
}

final class ModelAllTypes: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID

    @Persisted var optBool: Bool?
    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUuid: UUID?

    @Persisted var owner: ModelOwner?
    @Persisted var address: ModelAddress?
    @Persisted var priority: ModelPriority
    @Persisted var color: ModelColor
    @Persisted var optPriority: ModelPriority?
    @Persisted var any: AnyRealmValue
    @Persisted var ints: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Double>
}

final class ModelDefaults: Object {
    @Persisted(primaryKey: true) var id = 5
    @Persisted var count = 7
    @Persisted var title = "untitled"
    @Persisted var note: String? = "set"
    @Persisted var color = ModelColor.blue
    @Persisted(indexed: true) var code = "idx"
}

/// A model class with a model subclass: the subclass stores the inherited properties too.
class ModelBaseRecord: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var inherited: String
}

final class ModelDerivedRecord: ModelBaseRecord {
    @Persisted var own: Int
}

final class ModelIndexed: Object {
    @Persisted(indexed: true) var name: String
    @Persisted(indexed: true) var when: Date?
    @Persisted var plain: Int
}

/// Values every all-types test sets and checks.
private enum ModelSample {
    static let id = ObjectId.generate()
    static let data = Data([0, 1, 2, 255])
    static let date = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let decimal = try! Decimal128(string: "1234.5678")
    static let objectId = try! ObjectId(string: "65a1b2c3d4e5f60718293a4b")
    static let uuid = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    static func fill(_ o: ModelAllTypes) {
        o._id = id
        o.bool = true
        o.int = Int.max
        o.int8 = Int8.min
        o.int16 = -12_345
        o.int32 = Int32.max
        o.int64 = Int64.min
        o.float = 3.5
        o.double = -2.25e300
        o.string = "héllo, wörld 🌍"
        o.data = data
        o.date = date
        o.decimal = decimal
        o.objectId = objectId
        o.uuid = uuid
        o.optBool = false
        o.optInt = 0
        o.optInt8 = 8
        o.optInt16 = 16
        o.optInt32 = 32
        o.optInt64 = 64
        o.optFloat = 0
        o.optDouble = 1.5
        o.optString = ""
        o.optData = Data()
        o.optDate = Date(timeIntervalSince1970: -1.5)
        o.optDecimal = Decimal128(integerLiteral: -7)
        o.optObjectId = objectId
        o.optUuid = uuid
        o.priority = .high
        o.color = .green
        o.optPriority = .medium
        o.any = .string("anything")
        o.ints.append(objectsIn: [3, 1, 2])
        o.tags.insert(objectsIn: ["b", "a", "b"])
        o.scores["math"] = 9.5
        o.scores["art"] = 7
    }

    static func check(_ o: ModelAllTypes, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(o._id, id, file: file, line: line)
        XCTAssertEqual(o.bool, true, file: file, line: line)
        XCTAssertEqual(o.int, Int.max, file: file, line: line)
        XCTAssertEqual(o.int8, Int8.min, file: file, line: line)
        XCTAssertEqual(o.int16, -12_345, file: file, line: line)
        XCTAssertEqual(o.int32, Int32.max, file: file, line: line)
        XCTAssertEqual(o.int64, Int64.min, file: file, line: line)
        XCTAssertEqual(o.float, 3.5, file: file, line: line)
        XCTAssertEqual(o.double, -2.25e300, file: file, line: line)
        XCTAssertEqual(o.string, "héllo, wörld 🌍", file: file, line: line)
        XCTAssertEqual(o.data, data, file: file, line: line)
        XCTAssertEqual(o.date, date, file: file, line: line)
        XCTAssertEqual(o.decimal, decimal, file: file, line: line)
        XCTAssertEqual(o.objectId, objectId, file: file, line: line)
        XCTAssertEqual(o.uuid, uuid, file: file, line: line)
        XCTAssertEqual(o.optBool, false, file: file, line: line)
        XCTAssertEqual(o.optInt, 0, file: file, line: line)
        XCTAssertEqual(o.optInt8, 8, file: file, line: line)
        XCTAssertEqual(o.optInt16, 16, file: file, line: line)
        XCTAssertEqual(o.optInt32, 32, file: file, line: line)
        XCTAssertEqual(o.optInt64, 64, file: file, line: line)
        XCTAssertEqual(o.optFloat, 0, file: file, line: line)
        XCTAssertEqual(o.optDouble, 1.5, file: file, line: line)
        XCTAssertEqual(o.optString, "", file: file, line: line)
        XCTAssertEqual(o.optData, Data(), file: file, line: line)
        XCTAssertEqual(o.optDate, Date(timeIntervalSince1970: -1.5), file: file, line: line)
        XCTAssertEqual(o.optDecimal, Decimal128(integerLiteral: -7), file: file, line: line)
        XCTAssertEqual(o.optObjectId, objectId, file: file, line: line)
        XCTAssertEqual(o.optUuid, uuid, file: file, line: line)
        XCTAssertEqual(o.priority, .high, file: file, line: line)
        XCTAssertEqual(o.color, .green, file: file, line: line)
        XCTAssertEqual(o.optPriority, .medium, file: file, line: line)
        XCTAssertEqual(o.any, .string("anything"), file: file, line: line)
        XCTAssertEqual(Array(o.ints), [3, 1, 2], file: file, line: line)
        XCTAssertEqual(Set(o.tags), ["a", "b"], file: file, line: line)
        XCTAssertEqual(o.tags.count, 2, file: file, line: line)
        XCTAssertEqual(o.scores["math"], 9.5, file: file, line: line)
        XCTAssertEqual(o.scores["art"], 7, file: file, line: line)
        XCTAssertEqual(o.scores.count, 2, file: file, line: line)
    }
}

final class ModelTests: XCTestCase {
    private var types: [ObjectBase.Type] {
        [ModelAllTypes.self, ModelOwner.self, ModelAddress.self, ModelGeo.self, ModelDefaults.self, ModelIndexed.self]
    }

    private func openRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration(types))
    }

    /// A new realm holding one default `ModelAllTypes`, and that object.
    private func openRealmWithObject() throws -> (Realm, ModelAllTypes) {
        let realm = try openRealm()
        let o = ModelAllTypes()
        try realm.write { realm.add(o) }
        return (realm, o)
    }

    // MARK: Unmanaged objects

    func testUnmanagedDefaultsAreTheTypesZeroValues() {
        let o = ModelAllTypes()
        XCTAssertNil(o.realm)
        XCTAssertFalse(o.isInvalidated)
        XCTAssertFalse(o.isFrozen)
        XCTAssertEqual(o.bool, false)
        XCTAssertEqual(o.int, 0)
        XCTAssertEqual(o.int8, 0)
        XCTAssertEqual(o.int16, 0)
        XCTAssertEqual(o.int32, 0)
        XCTAssertEqual(o.int64, 0)
        XCTAssertEqual(o.float, 0)
        XCTAssertEqual(o.double, 0)
        XCTAssertEqual(o.string, "")
        XCTAssertEqual(o.data, Data())
        XCTAssertEqual(o.decimal, Decimal128(integerLiteral: 0))
        XCTAssertNil(o.optBool)
        XCTAssertNil(o.optInt)
        XCTAssertNil(o.optString)
        XCTAssertNil(o.optData)
        XCTAssertNil(o.optDate)
        XCTAssertNil(o.optDecimal)
        XCTAssertNil(o.optObjectId)
        XCTAssertNil(o.optUuid)
        XCTAssertNil(o.owner)
        XCTAssertNil(o.address)
        XCTAssertEqual(o.priority, .low, "an enum defaults to its first case")
        XCTAssertEqual(o.color, .red)
        XCTAssertNil(o.optPriority)
        XCTAssertEqual(o.any, .none)
        XCTAssertTrue(o.ints.isEmpty)
        XCTAssertTrue(o.tags.isEmpty)
        XCTAssertTrue(o.scores.isEmpty)
        XCTAssertNil(o.ints.realm)
    }

    func testGeneratedDefaultsDifferPerInstanceAndStayStable() {
        let a = ModelAllTypes()
        let b = ModelAllTypes()
        XCTAssertNotEqual(a._id, b._id, "each object gets a new ObjectId")
        XCTAssertNotEqual(a.uuid, b.uuid, "each object gets a new UUID")
        XCTAssertEqual(a._id, a._id, "a generated default is generated once")
        XCTAssertEqual(a.uuid, a.uuid)
        let date = a.date
        XCTAssertEqual(a.date, date)
        XCTAssertLessThan(abs(date.timeIntervalSinceNow), 60)
    }

    func testDeclaredDefaults() throws {
        let o = ModelDefaults()
        XCTAssertEqual(o.id, 5)
        XCTAssertEqual(o.count, 7)
        XCTAssertEqual(o.title, "untitled")
        XCTAssertEqual(o.note, "set")
        XCTAssertEqual(o.color, .blue)
        XCTAssertEqual(o.code, "idx")

        let realm = try openRealm()
        try realm.write { realm.add(o) }
        XCTAssertEqual(o.count, 7, "defaults are stored when the object is added")
        XCTAssertEqual(o.title, "untitled")
        XCTAssertEqual(o.note, "set")
        XCTAssertEqual(o.color, .blue)
        XCTAssertEqual(o.code, "idx")

        let created = try realm.write { realm.create(ModelDefaults.self, value: ["id": 6, "count": 1]) }
        XCTAssertEqual(created.id, 6)
        XCTAssertEqual(created.count, 1)
        XCTAssertEqual(created.title, "untitled", "create fills properties not given with the declared defaults")
        XCTAssertEqual(created.note, "set")
        XCTAssertEqual(created.color, .blue)
    }

    func testUnmanagedPropertiesHoldWhatIsSet() {
        let o = ModelAllTypes()
        ModelSample.fill(o)
        ModelSample.check(o)
        o.optString = nil
        o.optInt = nil
        XCTAssertNil(o.optString)
        XCTAssertNil(o.optInt)
    }

    // MARK: Managed values

    func testEveryPropertyTypeRoundTripsThroughTheRealm() throws {
        let realm = try openRealm()
        let o = ModelAllTypes()
        ModelSample.fill(o)
        o.owner = ModelOwner(value: ["name": "Ann", "age": 30])
        o.address = ModelAddress(value: ["street": "Main St", "city": "Oslo"])
        try realm.write { realm.add(o) }

        XCTAssertEqual(o.realm, realm)
        XCTAssertFalse(o.isInvalidated)
        ModelSample.check(o)
        XCTAssertEqual(o.owner?.name, "Ann")
        XCTAssertEqual(o.owner?.age, 30)
        XCTAssertEqual(o.owner?.realm, realm, "a linked unmanaged object is added with its parent")
        XCTAssertEqual(o.address?.street, "Main St")
        XCTAssertEqual(o.address?.city, "Oslo")
        XCTAssertNil(o.address?.geo)
        XCTAssertEqual(o.address?.realm, realm)
        XCTAssertEqual(o.ints.realm, realm)
        XCTAssertEqual(o.tags.realm, realm)
        XCTAssertEqual(o.scores.realm, realm)

        // A second read through a fresh accessor (the lookup) sees the same values.
        let again = try realm.upsertLookup(ModelAllTypes.self, primaryKey: "_id", ModelSample.id)
        ModelSample.check(again)
        XCTAssertEqual(again, o)
    }

    func testManagedPropertiesCanBeChangedAndCleared() throws {
        let realm = try openRealm()
        let o = ModelAllTypes()
        ModelSample.fill(o)
        try realm.write { realm.add(o) }

        try realm.write {
            o.bool = false
            o.int = -1
            o.int8 = 127
            o.int16 = Int16.min
            o.int32 = Int32.min
            o.int64 = Int64.max
            o.float = -Float.infinity
            o.double = Double.greatestFiniteMagnitude
            o.string = "a\u{0}b"
            o.data = Data(repeating: 7, count: 100_000)
            o.date = Date(timeIntervalSince1970: 0)
            o.decimal = Decimal128.max
            o.objectId = ObjectId()
            o.uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            o.optBool = nil
            o.optInt = nil
            o.optInt8 = nil
            o.optInt16 = nil
            o.optInt32 = nil
            o.optInt64 = nil
            o.optFloat = nil
            o.optDouble = nil
            o.optString = nil
            o.optData = nil
            o.optDate = nil
            o.optDecimal = nil
            o.optObjectId = nil
            o.optUuid = nil
            o.priority = .low
            o.color = .blue
            o.optPriority = nil
            o.any = .none
        }
        XCTAssertEqual(o.bool, false)
        XCTAssertEqual(o.int, -1)
        XCTAssertEqual(o.int8, 127)
        XCTAssertEqual(o.int16, Int16.min)
        XCTAssertEqual(o.int32, Int32.min)
        XCTAssertEqual(o.int64, Int64.max)
        XCTAssertEqual(o.float, -Float.infinity)
        XCTAssertEqual(o.double, Double.greatestFiniteMagnitude)
        XCTAssertEqual(o.string, "a\u{0}b")
        XCTAssertEqual(o.data, Data(repeating: 7, count: 100_000))
        XCTAssertEqual(o.date, Date(timeIntervalSince1970: 0))
        XCTAssertEqual(o.decimal, Decimal128.max)
        XCTAssertEqual(o.objectId, ObjectId())
        XCTAssertEqual(o.uuid.uuidString, "00000000-0000-0000-0000-000000000000")
        XCTAssertNil(o.optBool)
        XCTAssertNil(o.optInt)
        XCTAssertNil(o.optInt8)
        XCTAssertNil(o.optInt16)
        XCTAssertNil(o.optInt32)
        XCTAssertNil(o.optInt64)
        XCTAssertNil(o.optFloat)
        XCTAssertNil(o.optDouble)
        XCTAssertNil(o.optString)
        XCTAssertNil(o.optData)
        XCTAssertNil(o.optDate)
        XCTAssertNil(o.optDecimal)
        XCTAssertNil(o.optObjectId)
        XCTAssertNil(o.optUuid)
        XCTAssertEqual(o.priority, .low)
        XCTAssertEqual(o.color, .blue)
        XCTAssertNil(o.optPriority)
        XCTAssertEqual(o.any, .none)
    }

    func testDatesKeepSubSecondPrecision() throws {
        let realm = try openRealm()
        let o = ModelAllTypes()
        let dates = [Date(timeIntervalSince1970: 1.000_001), Date(timeIntervalSince1970: -1_000.75),
                     Date(timeIntervalSince1970: 4_102_444_800.5)]
        try realm.write { realm.add(o) }
        for date in dates {
            try realm.write { o.date = date }
            XCTAssertEqual(o.date.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        }
    }

    func testLinksCanBeSetReplacedAndCleared() throws {
        let realm = try openRealm()
        let o = ModelAllTypes()
        let ann = ModelOwner(value: ["name": "Ann"])
        try realm.write {
            realm.add(o)
            realm.add(ann)
        }
        try realm.write { o.owner = ann }
        XCTAssertEqual(o.owner, ann)
        XCTAssertTrue(o.owner!.isSameObject(as: ann))

        try realm.write { o.owner = ModelOwner(value: ["name": "Bob", "age": 4]) }
        XCTAssertEqual(o.owner?.name, "Bob")
        XCTAssertEqual(o.owner?.realm, realm, "an unmanaged object assigned to a link is added")

        try realm.write { o.owner = nil }
        XCTAssertNil(o.owner)
        XCTAssertFalse(ann.isInvalidated, "clearing a link does not delete the target")
    }

    // MARK: Enums

    func testEnumsAreStoredThroughTheirRawValues() throws {
        let realm = try openRealm()
        let o = ModelAllTypes()
        o.priority = .medium
        o.color = .blue
        try realm.write { realm.add(o) }
        XCTAssertEqual(o.priority, .medium)
        XCTAssertEqual(o.color, .blue)
        XCTAssertEqual(o["priority"] as? ModelPriority, .medium)

        try realm.write { o.optPriority = .high }
        XCTAssertEqual(o.optPriority, .high)

        let schema = o.objectSchema
        XCTAssertEqual(schema["priority"]?.type, .int)
        XCTAssertEqual(schema["color"]?.type, .string)
        XCTAssertEqual(schema["optPriority"]?.isOptional, true)

        let fromRaw = ModelAllTypes(value: ["priority": 2, "color": "red"])
        XCTAssertEqual(fromRaw.priority, .high, "an enum property accepts its raw value")
        XCTAssertEqual(fromRaw.color, .red)

        try realm.write { o["color"] = "green" }
        XCTAssertEqual(o.color, .green)
    }

    func testAnEnumRawValueNoCaseMatchesFailsTheWrite() throws {
        let (realm, o) = try openRealmWithObject()
        assertThrowsRealmError(.invalidValue, messageContains: ["purple", "ModelColor"]) {
            try realm.write { o["color"] = "purple" }
        }
        XCTAssertEqual(o.color, .red)
    }

    // MARK: AnyRealmValue

    func testAnyRealmValueHoldsEveryKind() throws {
        let (realm, o) = try openRealmWithObject()
        let owner = ModelOwner(value: ["name": "Linked"])
        let values: [AnyRealmValue] = [
            .none, .int(-42), .bool(true), .float(1.25), .double(-0.5), .string("text"),
            .data(Data([9, 8])), .date(Date(timeIntervalSince1970: 86_400)),
            .objectId(ModelSample.objectId), .decimal128(ModelSample.decimal), .uuid(ModelSample.uuid),
        ]
        for value in values {
            try realm.write { o.any = value }
            XCTAssertEqual(o.any, value)
        }
        try realm.write { o.any = .object(owner) }
        XCTAssertEqual(owner.realm, realm, "an unmanaged object stored in an AnyRealmValue is added")
        XCTAssertEqual(o.any.object(ModelOwner.self)?.name, "Linked")
        XCTAssertNil(o.any.object(ModelAllTypes.self))
        XCTAssertEqual(o.any.dynamicObject, owner)
        XCTAssertNil(o.any.intValue)

        try realm.write { o.any = .int(7) }
        XCTAssertEqual(o.any.intValue, 7)
        XCTAssertNil(o.any.stringValue)
    }

    func testAnyRealmValueAccessors() {
        XCTAssertEqual(AnyRealmValue.string("s").stringValue, "s")
        XCTAssertEqual(AnyRealmValue.bool(true).boolValue, true)
        XCTAssertEqual(AnyRealmValue.double(2).doubleValue, 2)
        XCTAssertEqual(AnyRealmValue.float(2).floatValue, 2)
        XCTAssertEqual(AnyRealmValue.data(Data([1])).dataValue, Data([1]))
        XCTAssertEqual(AnyRealmValue.uuid(ModelSample.uuid).uuidValue, ModelSample.uuid)
        XCTAssertEqual(AnyRealmValue.objectId(ModelSample.objectId).objectIdValue, ModelSample.objectId)
        XCTAssertEqual(AnyRealmValue.decimal128(ModelSample.decimal).decimal128Value, ModelSample.decimal)
        XCTAssertNil(AnyRealmValue.none.stringValue)
        XCTAssertEqual(AnyRealmValue.fromAny(5), .int(5))
        XCTAssertEqual(AnyRealmValue.fromAny("x"), .string("x"))
        XCTAssertEqual(AnyRealmValue.fromAny(nil), .none)
    }

    func testAnyRealmValueFromAnUntypedValue() throws {
        let o = ModelAllTypes(value: ["any": 12])
        XCTAssertEqual(o.any, .int(12))
        let realm = try openRealm()
        try realm.write { realm.add(o) }
        try realm.write { o["any"] = "now a string" }
        XCTAssertEqual(o.any, .string("now a string"))
        try realm.write { o["any"] = nil }
        XCTAssertEqual(o.any, .none)
    }

    // MARK: Object(value:)

    func testInitFromDictionary() {
        let o = ModelAllTypes(value: [
            "_id": ModelSample.id, "bool": true, "int": 5, "int8": 8, "int16": 16, "int32": 32, "int64": Int64(64),
            "float": Float(1.5), "double": 2.5, "string": "s", "data": ModelSample.data, "date": ModelSample.date,
            "decimal": ModelSample.decimal, "objectId": ModelSample.objectId, "uuid": ModelSample.uuid,
            "optInt": NSNull(), "optString": "opt", "ints": [1, 2, 3], "tags": ["x", "y", "x"],
            "scores": ["a": 1.0], "owner": ["name": "Nested", "age": 3], "address": ["street": "S", "city": "C"],
        ])
        XCTAssertNil(o.realm)
        XCTAssertEqual(o._id, ModelSample.id)
        XCTAssertTrue(o.bool)
        XCTAssertEqual(o.int, 5)
        XCTAssertEqual(o.int8, 8)
        XCTAssertEqual(o.int16, 16)
        XCTAssertEqual(o.int32, 32)
        XCTAssertEqual(o.int64, 64)
        XCTAssertEqual(o.float, 1.5)
        XCTAssertEqual(o.double, 2.5)
        XCTAssertEqual(o.string, "s")
        XCTAssertEqual(o.data, ModelSample.data)
        XCTAssertEqual(o.date, ModelSample.date)
        XCTAssertEqual(o.decimal, ModelSample.decimal)
        XCTAssertEqual(o.objectId, ModelSample.objectId)
        XCTAssertEqual(o.uuid, ModelSample.uuid)
        XCTAssertNil(o.optInt)
        XCTAssertEqual(o.optString, "opt")
        XCTAssertEqual(Array(o.ints), [1, 2, 3])
        XCTAssertEqual(Set(o.tags), ["x", "y"])
        XCTAssertEqual(o.tags.count, 2)
        XCTAssertEqual(o.scores["a"], 1.0)
        XCTAssertEqual(o.owner?.name, "Nested")
        XCTAssertEqual(o.owner?.age, 3)
        XCTAssertNil(o.owner?.realm)
        XCTAssertEqual(o.address?.street, "S")
        XCTAssertEqual(o.address?.city, "C")
        XCTAssertEqual(o.priority, .low, "properties not given keep their defaults")
    }

    func testInitFromDictionaryConvertsNumbersThatFit() {
        let o = ModelAllTypes(value: ["int8": 100, "double": 3, "float": 2, "optInt64": 9, "decimal": 12])
        XCTAssertEqual(o.int8, 100)
        XCTAssertEqual(o.double, 3)
        XCTAssertEqual(o.float, 2)
        XCTAssertEqual(o.optInt64, 9)
        XCTAssertEqual(o.decimal, Decimal128(integerLiteral: 12))
    }

    func testInitFromArrayInPropertyOrder() {
        let owner = ModelOwner(value: ["Zed", 41])
        XCTAssertEqual(owner.name, "Zed")
        XCTAssertEqual(owner.age, 41)

        let geo = ModelGeo(value: [59.9, 10.7])
        XCTAssertEqual(geo.lat, 59.9)
        XCTAssertEqual(geo.lon, 10.7)

        let address = ModelAddress(value: ["Street", NSNull(), [1.0, 2.0]])
        XCTAssertEqual(address.street, "Street")
        XCTAssertNil(address.city)
        XCTAssertEqual(address.geo?.lat, 1.0, "a nested array creates the embedded object")
        XCTAssertEqual(address.geo?.lon, 2.0)
    }

    func testInitFromAnotherObjectCopiesItsValues() throws {
        let source = ModelAllTypes()
        ModelSample.fill(source)
        source.owner = ModelOwner(value: ["name": "Src"])
        let copy = ModelAllTypes(value: source)
        ModelSample.check(copy)
        XCTAssertEqual(copy.owner?.name, "Src")
        XCTAssertFalse(copy === source)

        let realm = try openRealm()
        try realm.write { realm.add(source) }
        let fromManaged = ModelAllTypes(value: source)
        XCTAssertNil(fromManaged.realm, "a copy of a managed object is unmanaged")
        ModelSample.check(fromManaged)
        XCTAssertEqual(fromManaged.owner?.name, "Src")
        try realm.write { fromManaged.int = 1 }
        XCTAssertEqual(source.int, Int.max, "changing the copy leaves the original alone")
    }

    func testInitFromNestedDictionariesAndArrays() throws {
        let o = ModelAllTypes(value: [
            "address": ["street": "Outer", "geo": ["lat": 1.5, "lon": -1.5]],
            "owner": ["Arr", 7],
        ])
        XCTAssertEqual(o.address?.geo?.lat, 1.5)
        XCTAssertEqual(o.address?.geo?.lon, -1.5)
        XCTAssertEqual(o.owner?.name, "Arr")
        XCTAssertEqual(o.owner?.age, 7)

        let realm = try openRealm()
        try realm.write { realm.add(o) }
        XCTAssertEqual(o.address?.geo?.lat, 1.5)
        XCTAssertEqual(o.owner?.name, "Arr")
        XCTAssertEqual(o.owner?.realm, realm)

        let created = try realm.write {
            realm.create(ModelAllTypes.self, value: [
                "address": ["street": "Created", "geo": [5.0, 6.0]],
                "owner": ["name": "Created owner"],
            ])
        }
        XCTAssertEqual(created.address?.street, "Created", "create builds embedded objects from dictionaries")
        XCTAssertEqual(created.address?.geo?.lon, 6.0)
        XCTAssertEqual(created.owner?.name, "Created owner")
        XCTAssertEqual(created.owner?.realm, realm)
    }

    func testCreateWithInvalidValuesFailsTheWriteNamingTheProblem() throws {
        let realm = try openRealm()
        assertThrowsRealmError(.invalidValue, messageContains: ["nope"]) {
            try realm.write { _ = realm.create(ModelOwner.self, value: ["name": "A", "nope": 1]) }
        }
        assertThrowsRealmError(.invalidValue, messageContains: ["ModelOwner.age"]) {
            try realm.write { _ = realm.create(ModelOwner.self, value: ["name": "A", "age": "not a number"]) }
        }
        assertThrowsRealmError(.invalidValue, messageContains: ["int8"]) {
            try realm.write { _ = realm.create(ModelAllTypes.self, value: ["int8": 1_000]) }
        }
        // As in the Realm Swift SDK, only more values than properties are refused.
        assertThrowsRealmError(.invalidValue, messageContains: ["more values (3) than properties (2)", "ModelOwner"]) {
            try realm.write { _ = realm.create(ModelOwner.self, value: ["one", 2, "three"]) }
        }
        assertThrowsRealmError(.invalidValue) {
            try realm.write { _ = realm.create(ModelOwner.self, value: 42) }
        }
    }

    // MARK: Embedded objects

    func testEmbeddedObjectsLiveInsideTheirParent() throws {
        let realm = try openRealm()
        let o = ModelAllTypes()
        let address = ModelAddress()
        address.street = "First"
        address.geo = ModelGeo(value: ["lat": 1.0, "lon": 2.0])
        o.address = address
        try realm.write { realm.add(o) }
        XCTAssertEqual(address.realm, realm, "the unmanaged embedded object becomes the managed child")
        XCTAssertEqual(o.address?.street, "First")
        XCTAssertEqual(o.address?.geo?.lon, 2.0)

        try realm.write { o.address?.street = "Changed" }
        XCTAssertEqual(o.address?.street, "Changed")
        XCTAssertEqual(address.street, "Changed")

        let old = o.address!
        try realm.write { o.address = ModelAddress(value: ["street": "Second"]) }
        XCTAssertEqual(o.address?.street, "Second")
        XCTAssertNil(o.address?.geo)
        XCTAssertTrue(old.isInvalidated, "replacing an embedded object deletes the old one")

        let current = o.address!
        try realm.write { o.address = nil }
        XCTAssertNil(o.address)
        XCTAssertTrue(current.isInvalidated, "clearing an embedded property deletes the child")

        let child = ModelAddress(value: ["street": "Third"])
        try realm.write { o.address = child }
        try realm.write { realm.delete(o) }
        XCTAssertTrue(child.isInvalidated, "deleting the parent deletes its embedded objects")
    }

    func testAssigningAManagedEmbeddedObjectCopiesIt() throws {
        let realm = try openRealm()
        let a = ModelAllTypes(value: ["address": ["street": "Shared", "geo": [3.0, 4.0]]])
        let b = ModelAllTypes()
        try realm.write { realm.add([a, b]) }
        try realm.write { b.address = a.address }
        XCTAssertEqual(b.address?.street, "Shared")
        XCTAssertEqual(b.address?.geo?.lat, 3.0)
        try realm.write { b.address?.street = "Only b" }
        XCTAssertEqual(a.address?.street, "Shared", "the copy is a separate child")
        XCTAssertEqual(b.address?.street, "Only b")
    }

    func testNestedEmbeddedObjectsCanBeSetOnAManagedChild() throws {
        let realm = try openRealm()
        let o = ModelAllTypes(value: ["address": ["street": "S"]])
        try realm.write { realm.add(o) }
        try realm.write { o.address?.geo = ModelGeo(value: [3.0, 4.0]) }
        XCTAssertEqual(o.address?.geo?.lat, 3.0)
        XCTAssertEqual(o.address?.geo?.lon, 4.0)
    }

    func testAssigningAnEmbeddedObjectToItsOwnPropertyKeepsIt() throws {
        let realm = try openRealm()
        let o = ModelAllTypes(value: ["address": ["street": "Self", "city": "C", "geo": [1.0, 2.0]]])
        try realm.write { realm.add(o) }
        try realm.write { o.address = o.address }
        XCTAssertEqual(o.address?.street, "Self")
        XCTAssertEqual(o.address?.city, "C")
        XCTAssertEqual(o.address?.geo?.lon, 2.0)

        // The same through an update of the whole object.
        let copy = ModelAllTypes(value: o)
        try realm.write { realm.add(copy, update: .all) }
        XCTAssertEqual(o.address?.street, "Self")
        XCTAssertEqual(o.address?.geo?.lat, 1.0)
    }

    // MARK: Schema

    func testObjectSchemaDescribesEveryProperty() {
        let schema = ModelAllTypes().objectSchema
        XCTAssertEqual(schema.className, "ModelAllTypes")
        XCTAssertFalse(schema.isEmbedded)
        XCTAssertEqual(schema.primaryKeyProperty?.name, "_id")
        XCTAssertEqual(schema.properties.count, 38)
        let expected: [(String, PropertyType, Bool)] = [
            ("bool", .bool, false), ("int", .int, false), ("int8", .int, false), ("int16", .int, false),
            ("int32", .int, false), ("int64", .int, false), ("float", .float, false), ("double", .double, false),
            ("string", .string, false), ("data", .data, false), ("date", .date, false),
            ("decimal", .decimal128, false), ("objectId", .objectId, false), ("uuid", .UUID, false),
            ("optBool", .bool, true), ("optInt", .int, true), ("optString", .string, true),
            ("optData", .data, true), ("optDate", .date, true), ("optDecimal", .decimal128, true),
            ("optObjectId", .objectId, true), ("optUuid", .UUID, true), ("any", .any, true),
        ]
        for (name, type, optional) in expected {
            guard let property = schema[name] else { XCTFail("no property \(name)"); continue }
            XCTAssertEqual(property.type, type, name)
            XCTAssertEqual(property.isOptional, optional, name)
            XCTAssertFalse(property.isArray || property.isSet || property.isMap, name)
        }
        XCTAssertEqual(schema["_id"]?.isPrimary, true)
        XCTAssertEqual(schema["_id"]?.isIndexed, true)
        XCTAssertEqual(schema["owner"]?.type, .object)
        XCTAssertEqual(schema["owner"]?.objectClassName, "ModelOwner")
        XCTAssertEqual(schema["owner"]?.isOptional, true)
        XCTAssertEqual(schema["address"]?.objectClassName, "ModelAddress")
        XCTAssertEqual(schema["ints"]?.isArray, true)
        XCTAssertEqual(schema["ints"]?.type, .int)
        XCTAssertEqual(schema["tags"]?.isSet, true)
        XCTAssertEqual(schema["tags"]?.type, .string)
        XCTAssertEqual(schema["scores"]?.isMap, true)
        XCTAssertEqual(schema["scores"]?.type, .double)
        XCTAssertNil(schema["missing"])

        XCTAssertTrue(ModelAddress().objectSchema.isEmbedded)
        XCTAssertNil(ModelAddress().objectSchema.primaryKeyProperty)
        let indexed = ModelIndexed().objectSchema
        XCTAssertEqual(indexed["name"]?.isIndexed, true)
        XCTAssertEqual(indexed["when"]?.isIndexed, true)
        XCTAssertEqual(indexed["plain"]?.isIndexed, false)
        XCTAssertEqual(ModelDefaults().objectSchema["code"]?.isIndexed, true)
        XCTAssertEqual(ModelDefaults().objectSchema.primaryKeyProperty?.name, "id")
        XCTAssertEqual(ModelOwner.className(), "ModelOwner")
    }

    func testTheRealmSchemaListsTheConfiguredClasses() throws {
        let realm = try openRealm()
        let names = Set(realm.schema.objectSchema.map(\.className))
        XCTAssertEqual(names, ["ModelAllTypes", "ModelOwner", "ModelAddress", "ModelGeo", "ModelDefaults", "ModelIndexed"])
        XCTAssertEqual(realm.schema["ModelAddress"]?.isEmbedded, true)
        XCTAssertEqual(realm.schema["ModelAllTypes"]?["owner"]?.objectClassName, "ModelOwner")
        XCTAssertEqual(realm.schema["ModelAllTypes"]?.primaryKeyProperty?.name, "_id")
        XCTAssertEqual(realm.schema["ModelIndexed"]?["name"]?.isIndexed, true)
        XCTAssertEqual(realm.schema["ModelIndexed"]?["plain"]?.isIndexed, false)
    }

    func testObjectTypesBringTheClassesTheyLinkTo() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([ModelAllTypes.self]))
        let names = Set(realm.schema.objectSchema.map(\.className))
        XCTAssertEqual(names, ["ModelAllTypes", "ModelOwner", "ModelAddress", "ModelGeo"])
    }

    func testSubclassesOfModelClassesInheritTheirProperties() throws {
        XCTAssertEqual(ModelDerivedRecord().objectSchema.properties.map(\.name), ["id", "inherited", "own"])
        XCTAssertEqual(ModelDerivedRecord().objectSchema.primaryKeyProperty?.name, "id")
        let realm = try Realm(configuration: makeInMemoryConfiguration([ModelDerivedRecord.self, ModelBaseRecord.self]))
        let derived = ModelDerivedRecord(value: ["id": 1, "inherited": "from the base", "own": 2])
        let base = ModelBaseRecord(value: ["id": 1, "inherited": "a separate class"])
        try realm.write {
            realm.add(derived)
            realm.add(base)
        }
        XCTAssertEqual(derived.inherited, "from the base")
        XCTAssertEqual(derived.own, 2)
        XCTAssertEqual(base.inherited, "a separate class")
        XCTAssertEqual(realm.schema["ModelDerivedRecord"]?.properties.count, 3)
        XCTAssertEqual(realm.schema["ModelBaseRecord"]?.properties.count, 2)
    }

    // MARK: isInvalidated, equality, subscripts

    func testIsInvalidatedAfterDelete() throws {
        let realm = try openRealm()
        let owner = ModelOwner(value: ["name": "Gone"])
        XCTAssertFalse(owner.isInvalidated)
        try realm.write { realm.add(owner) }
        XCTAssertFalse(owner.isInvalidated)
        try realm.write { realm.delete(owner) }
        XCTAssertTrue(owner.isInvalidated)
        XCTAssertEqual(owner.realm, realm)
    }

    func testManagedObjectsAreEqualWhenTheyAreTheSameRow() throws {
        let realm = try openRealm()
        let owner = ModelOwner(value: ["name": "Same"])
        let a = ModelAllTypes()
        let b = ModelAllTypes()
        a.owner = owner
        b.owner = owner
        try realm.write { realm.add([a, b]) }
        let viaA = a.owner!
        let viaB = b.owner!
        XCTAssertFalse(viaA === viaB)
        XCTAssertEqual(viaA, viaB)
        XCTAssertEqual(viaA.hashValue, viaB.hashValue)
        XCTAssertTrue(viaA.isSameObject(as: owner))
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(Set([viaA, viaB, owner]).count, 1)

        XCTAssertNotEqual(ModelOwner(value: ["name": "x"]), ModelOwner(value: ["name": "x"]),
                          "unmanaged objects are equal only to themselves")
    }

    func testSubscriptingByPropertyName() throws {
        let o = ModelAllTypes()
        o["int"] = 12
        o["string"] = "by name"
        o["optDouble"] = 2.5
        o["owner"] = ModelOwner(value: ["name": "Sub"])
        XCTAssertEqual(o.int, 12)
        XCTAssertEqual(o["int"] as? Int, 12)
        XCTAssertEqual(o["string"] as? String, "by name")
        XCTAssertEqual(o["optDouble"] as? Double, 2.5)
        XCTAssertNil(o["optInt"])
        XCTAssertEqual((o["owner"] as? ModelOwner)?.name, "Sub")

        let realm = try openRealm()
        try realm.write { realm.add(o) }
        XCTAssertEqual(o["int"] as? Int, 12)
        XCTAssertEqual(o["string"] as? String, "by name")
        XCTAssertEqual((o["owner"] as? ModelOwner)?.name, "Sub")
        XCTAssertEqual((o["ints"] as? List<Int>)?.count, 0)
        try realm.write {
            o["int"] = 13
            o["optInt"] = 4
            o["optString"] = nil
            o["date"] = ModelSample.date
            o["owner"] = nil
        }
        XCTAssertEqual(o.int, 13)
        XCTAssertEqual(o.optInt, 4)
        XCTAssertNil(o.optString)
        XCTAssertEqual(o.date, ModelSample.date)
        XCTAssertNil(o.owner)
    }

    func testAWrongTypeByNameFailsTheWriteAndRollsItBack() throws {
        let (realm, o) = try openRealmWithObject()
        assertThrowsRealmError(.invalidValue, messageContains: ["not a number"]) {
            try realm.write {
                o.string = "changed in the failed write"
                o["int"] = "not a number"
            }
        }
        XCTAssertEqual(o.string, "", "the whole write is rolled back")
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    func testDescriptionNamesTheClassAndValues() throws {
        let o = ModelOwner(value: ["name": "Described", "age": 9])
        XCTAssertTrue(o.description.contains("ModelOwner"))
        XCTAssertTrue(o.description.contains("Described"))
        let realm = try openRealm()
        try realm.write { realm.add(o) }
        XCTAssertTrue(o.description.contains("age = 9"))
        try realm.write { realm.delete(o) }
        XCTAssertTrue(o.description.contains("invalid"))
    }

    // MARK: Asymmetric objects

    func testAsymmetricObjectsCanBeCreated() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([ModelReading.self]))
        XCTAssertEqual(realm.schema["ModelReading"]?.isAsymmetric, true)
        try realm.write {
            realm.create(ModelReading.self, value: ["_id": ObjectId.generate(), "value": 21.5])
        }
        assertThrowsRealmError(.invalidValue) {
            try realm.write { realm.create(ModelReading.self, value: ["value": "warm"]) }
        }
    }
}

final class ModelReading: AsymmetricObject {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var value: Double
}

final class ModelStoredNameTests: XCTestCase {
    func testRealmObjectNameRenamesTheStoredClass() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "stored-name-\(UUID())", objectTypes: [ModelRenamedTask.self]))
        try realm.write { realm.add(ModelRenamedTask(value: ["title": "x"])) }
        XCTAssertNotNil(realm.schema["Task_v2"])
        XCTAssertNil(realm.schema["ModelRenamedTask"])
        XCTAssertEqual(realm.objects(ModelRenamedTask.self).filter("title == 'x'").count, 1)
    }
}

final class ModelRenamedTask: Object {
    override class func _realmObjectName() -> String? { "Task_v2" }
    @Persisted var title = ""
}
