import Foundation
import OpenRealm
import XCTest

// Models as an SDK user writes them: `Codable` synthesized by Swift.
final class CodableAddress: EmbeddedObject, Codable {
    @Persisted var city: String
}

final class CodableOwner: Object, Codable {
    @Persisted(primaryKey: true) var name: String
}

final class CodablePet: Object, Codable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted var vaccinated: Bool
    @Persisted var born: Date
    @Persisted var chip: UUID
    @Persisted var price: Decimal128
    @Persisted var photo: Data
    @Persisted var nickname: String?
    @Persisted var rank: Int?
    @Persisted var tags: List<String>
    @Persisted var scores: List<Int?>
    @Persisted var toys: MutableSet<String>
    @Persisted var notes: Map<String, Int>
    @Persisted var address: CodableAddress?
    @Persisted var owner: CodableOwner?
    @Persisted var previousOwners: List<CodableOwner>
}

final class CodableTests: XCTestCase {
    static let json = """
        {
          "_id" : "1234567890abcdef12345678",
          "address" : {
            "city" : "Oslo"
          },
          "age" : 3,
          "born" : 2.5,
          "chip" : "00000000-0000-0000-0000-000000000001",
          "name" : "Rex",
          "nickname" : "R",
          "notes" : {
            "a" : 1
          },
          "owner" : {
            "name" : "Ann"
          },
          "photo" : "ZGVm",
          "previousOwners" : [
            {
              "name" : "Bob"
            }
          ],
          "price" : "2.5",
          "rank" : 7,
          "scores" : [
            1,
            null
          ],
          "tags" : [
            "good",
            "loud"
          ],
          "toys" : [
            "ball"
          ],
          "vaccinated" : true,
          "weight" : 12.5
        }
        """

    func testAModelDecodesAndEncodesBackToTheSameJSON() throws {
        let pet = try JSONDecoder().decode(CodablePet.self, from: Data(Self.json.utf8))
        XCTAssertEqual(pet._id, try ObjectId(string: "1234567890abcdef12345678"))
        XCTAssertEqual(pet.name, "Rex")
        XCTAssertEqual(pet.age, 3)
        XCTAssertEqual(pet.weight, 12.5)
        XCTAssertTrue(pet.vaccinated)
        XCTAssertEqual(pet.born, Date(timeIntervalSinceReferenceDate: 2.5))
        XCTAssertEqual(pet.chip, UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
        XCTAssertEqual(pet.price, Decimal128(floatLiteral: 2.5))
        XCTAssertEqual(pet.photo, Data("def".utf8))
        XCTAssertEqual(pet.nickname, "R")
        XCTAssertEqual(pet.rank, 7)
        XCTAssertEqual(Array(pet.tags), ["good", "loud"])
        XCTAssertEqual(Array(pet.scores), [1, nil])
        XCTAssertEqual(Array(pet.toys), ["ball"])
        XCTAssertEqual(pet.notes["a"], 1)
        XCTAssertEqual(pet.address?.city, "Oslo")
        XCTAssertEqual(pet.owner?.name, "Ann")
        XCTAssertEqual(pet.previousOwners.map(\.name), ["Bob"])

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        XCTAssertEqual(String(decoding: try encoder.encode(pet), as: UTF8.self), Self.json)
    }

    /// A missing key of an optional property decodes as nil; of a non-optional one, it
    /// is an error naming the key.
    func testMissingKeys() throws {
        let owner = try JSONDecoder().decode(CodableOwner.self, from: Data(#"{"name": "Ann"}"#.utf8))
        XCTAssertEqual(owner.name, "Ann")
        var minimal = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(Self.json.utf8)) as? [String: Any])
        minimal["nickname"] = nil
        minimal["rank"] = nil
        minimal["address"] = nil
        minimal["owner"] = nil
        let pet = try JSONDecoder().decode(CodablePet.self, from: try JSONSerialization.data(withJSONObject: minimal))
        XCTAssertNil(pet.nickname)
        XCTAssertNil(pet.rank)
        XCTAssertNil(pet.address)
        XCTAssertNil(pet.owner)
        minimal["name"] = nil
        XCTAssertThrowsError(try JSONDecoder().decode(CodablePet.self, from: try JSONSerialization.data(withJSONObject: minimal))) {
            guard case DecodingError.keyNotFound(let key, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(key.stringValue, "name")
        }
    }

    /// A decoded object is an unmanaged object like any other: it can be added; once
    /// managed, the synthesized encoding refuses it, as the SDK's does.
    func testDecodedObjectsAreAddedAndManagedOnesDoNotEncode() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "codable-\(UUID())",
                                                                 objectTypes: [CodablePet.self, CodableOwner.self, CodableAddress.self]))
        let pet = try JSONDecoder().decode(CodablePet.self, from: Data(Self.json.utf8))
        try realm.write { realm.add(pet) }
        let stored = try XCTUnwrap(realm.object(ofType: CodablePet.self, forPrimaryKey: pet._id))
        XCTAssertEqual(stored.address?.city, "Oslo")
        XCTAssertEqual(stored.notes["a"], 1)
        XCTAssertEqual(realm.objects(CodableOwner.self).count, 2)
        XCTAssertThrowsError(try JSONEncoder().encode(stored)) { error in
            guard case EncodingError.invalidValue = error else { return XCTFail("\(error)") }
        }
        // Collections encode their elements as they read: values, managed or not; managed
        // objects refuse as above.
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(stored.tags), as: UTF8.self), #"["good","loud"]"#)
        XCTAssertThrowsError(try JSONEncoder().encode(realm.objects(CodableOwner.self)))
        let unmanaged = List<CodableOwner>()
        unmanaged.append(objectsIn: [CodableOwner(value: ["name": "Cy"])])
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(unmanaged), as: UTF8.self), #"[{"name":"Cy"}]"#)
    }

    /// A property never set encodes its type's default, as it reads.
    func testAnUnsetPropertyEncodesItsDefault() throws {
        let owner = CodableOwner()
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(owner), as: UTF8.self), #"{"name":""}"#)
    }
}
