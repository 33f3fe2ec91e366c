import Foundation
import RealmSwift
import XCTest

/// What a point is stored as: a custom type may need more than one value.
final class CPPointObject: EmbeddedObject {
    @Persisted var x = 0.0
    @Persisted var y = 0.0
}

/// A point stored as an embedded object.
struct CPPoint: CustomPersistable {
    typealias PersistedType = CPPointObject
    var x: Double
    var y: Double
    init(x: Double, y: Double) { self.x = x; self.y = y }
    init(persistedValue: CPPointObject) { self.init(x: persistedValue.x, y: persistedValue.y) }
    var persistableValue: CPPointObject { CPPointObject(value: [x, y]) }
}

final class CPShape: Object {
    @Persisted var name = ""
    @Persisted var origin: CPPoint
    @Persisted var center: CPPoint?
    @Persisted var outline: List<CPPoint>
    @Persisted var marks: Map<String, CPPoint>
    @Persisted var optionalMarks: Map<String, CPPoint?>
}

final class CPDrawing: Object {
    @Persisted var title = ""
    @Persisted var shapes: List<CPShape>
}

final class CustomPersistableEmbeddedTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration([CPShape.self, CPPointObject.self, CPDrawing.self]))
    }

    override func tearDown() {
        realm = nil
    }

    func testStoredAsAnEmbeddedObject() {
        let schema = realm.schema["CPShape"]!
        XCTAssertEqual(schema["origin"]?.type, .object)
        XCTAssertEqual(schema["origin"]?.objectClassName, "CPPointObject")
        // Stored nullable even though the property is not optional, as the SDK stores it.
        XCTAssertEqual(schema["origin"]?.isOptional, true)
        XCTAssertEqual(schema["outline"]?.isArray, true)
        XCTAssertEqual(schema["outline"]?.objectClassName, "CPPointObject")
    }

    func testPropertiesAndCollectionsRoundTrip() throws {
        let shape = CPShape()
        XCTAssertEqual(shape.origin, CPPoint(x: 0, y: 0))
        shape.origin = CPPoint(x: 1, y: 2)
        shape.outline.append(objectsIn: [CPPoint(x: 1, y: 1), CPPoint(x: 2, y: 2)])
        shape.marks["a"] = CPPoint(x: 3, y: 3)
        shape.optionalMarks["none"] = .some(nil)
        try realm.write { realm.add(shape) }

        XCTAssertEqual(shape.origin, CPPoint(x: 1, y: 2))
        XCTAssertNil(shape.center)
        XCTAssertEqual(Array(shape.outline), [CPPoint(x: 1, y: 1), CPPoint(x: 2, y: 2)])
        XCTAssertEqual(shape.marks["a"], CPPoint(x: 3, y: 3))
        XCTAssertEqual(shape.optionalMarks["none"], .some(nil))

        try realm.write {
            shape.origin = CPPoint(x: 5, y: 6)
            shape.center = CPPoint(x: 7, y: 8)
            shape.outline[0] = CPPoint(x: 9, y: 9)
            shape.outline.append(CPPoint(x: 10, y: 10))
            shape.marks["b"] = CPPoint(x: 4, y: 4)
        }
        let read = try XCTUnwrap(realm.objects(CPShape.self).first)
        XCTAssertEqual(read.origin, CPPoint(x: 5, y: 6))
        XCTAssertEqual(read.center, CPPoint(x: 7, y: 8))
        XCTAssertEqual(read.outline.map(\.x), [9, 2, 10])
        XCTAssertEqual(read.marks["b"]?.y, 4)
        XCTAssertEqual(read.outline.index(of: CPPoint(x: 2, y: 2)), 1)

        try realm.write { read.center = nil }
        XCTAssertNil(read.center)
    }

    func testCreationFromValuesAndNil() throws {
        // nil for a non-optional property stored as an embedded object is its default.
        let unmanaged = CPShape(value: ["origin": NSNull(), "marks": ["m": NSNull()]] as [String: Any])
        XCTAssertEqual(unmanaged.origin, CPPoint(x: 0, y: 0))
        XCTAssertEqual(unmanaged.marks["m"], CPPoint(x: 0, y: 0))

        try realm.write {
            let created = realm.create(CPShape.self, value: ["origin": ["x": 1.5, "y": 2.5], "center": CPPoint(x: 3, y: 4),
                                                             "outline": [CPPointObject(value: [1, 2]), ["x": 3.0, "y": 4.0]]] as [String: Any])
            XCTAssertEqual(created.origin, CPPoint(x: 1.5, y: 2.5))
            XCTAssertEqual(created.center, CPPoint(x: 3, y: 4))
            XCTAssertEqual(Array(created.outline), [CPPoint(x: 1, y: 2), CPPoint(x: 3, y: 4)])
            let copy = realm.create(CPShape.self, value: created)
            XCTAssertEqual(copy.outline.last, CPPoint(x: 3, y: 4))
        }
    }

    func testQueriesCompareMemberByMember() throws {
        try realm.write {
            realm.create(CPShape.self, value: ["name": "a", "origin": CPPoint(x: 1, y: 2), "center": CPPoint(x: 0, y: 0)] as [String: Any])
            realm.create(CPShape.self, value: ["name": "b", "origin": CPPoint(x: 1, y: 3)] as [String: Any])
            realm.create(CPShape.self, value: ["name": "c", "origin": CPPoint(x: 2, y: 2)] as [String: Any])
        }
        let shapes = realm.objects(CPShape.self)
        XCTAssertEqual(shapes.where { $0.origin == CPPoint(x: 1, y: 2) }.map(\.name), ["a"])
        XCTAssertEqual(Set(shapes.where { $0.origin != CPPoint(x: 1, y: 2) }.map(\.name)), ["b", "c"])
        XCTAssertEqual(shapes.where { $0.center == CPPoint(x: 0, y: 0) }.map(\.name), ["a"])
        XCTAssertEqual(shapes.where { $0.center == nil }.count, 2)
        XCTAssertEqual(shapes.where { $0.origin.persistableValue.x > 1.5 }.map(\.name), ["c"])
        XCTAssertEqual(shapes.filter("origin.y == 2").count, 2)
        XCTAssertEqual(shapes.sorted(byKeyPath: "origin.y", ascending: false).first?.name, "b")

        // Through a list: any element's point equal, any element's point different.
        try realm.write {
            realm.create(CPDrawing.self, value: ["title": "ab", "shapes": [shapes.filter("name == 'a'").first!, shapes.filter("name == 'b'").first!]] as [String: Any])
            realm.create(CPDrawing.self, value: ["title": "a", "shapes": [shapes.filter("name == 'a'").first!]] as [String: Any])
            realm.create(CPDrawing.self, value: ["title": "empty"])
        }
        let drawings = realm.objects(CPDrawing.self)
        XCTAssertEqual(Set(drawings.where { $0.shapes.origin == CPPoint(x: 1, y: 2) }.map(\.title)), ["ab", "a"])
        XCTAssertEqual(drawings.where { $0.shapes.origin != CPPoint(x: 1, y: 2) }.map(\.title), ["ab"])
    }
}
