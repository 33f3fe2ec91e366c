import Foundation
import RealmSwift
import XCTest

final class CycleNode: Object {
    @Persisted var obj: CycleNode?
    @Persisted var array: List<CycleNode>
}

final class CycleRecursive: Object {
    @Persisted var objects: List<CycleRecursive>
    @Persisted var objectSet: MutableSet<CycleRecursive>
}

final class CycleFlag: Object {
    @Persisted var boolCol = false
    @Persisted(originProperty: "objectCol") var backlinks: LinkingObjects<CycleAllTypes>
}

enum CycleIntEnum: Int, PersistableEnum {
    case value1 = 1, value2 = 3
}

final class CycleAllTypes: Object {
    @Persisted var boolCol = false
    @Persisted var intCol = 123
    @Persisted var int8Col: Int8 = 123
    @Persisted var intEnumCol = CycleIntEnum.value1
    @Persisted var floatCol: Float = 1.23
    @Persisted var doubleCol = 12.3
    @Persisted var stringCol = "a"
    @Persisted var binaryCol = "a".data(using: .utf8)!
    @Persisted var dateCol = Date(timeIntervalSince1970: 1)
    @Persisted var objectIdCol = ObjectId("1234567890ab1234567890ab")
    @Persisted var objectCol: CycleFlag? = CycleFlag()
    @Persisted var uuidCol = UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!
    @Persisted var anyCol: AnyRealmValue
    @Persisted var arrayCol: List<CycleFlag>
    @Persisted var setCol: MutableSet<CycleFlag>
    @Persisted var mapCol: Map<String, CycleFlag?>
}

/// Cycles of objects, as the Realm Swift SDK's tests make them (ObjectCreationTests
/// `testAddObjectCycle`, ObjectTests `testDescription`): adding one adds every object
/// once and keeps none alive, and describing one stops at the SDK's depth.
final class CyclicGraphTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        try Realm(configuration: makeInMemoryConfiguration([CycleNode.self, CycleRecursive.self, CycleFlag.self,
                                                            CycleAllTypes.self]))
    }

    private func assertMatches(_ text: String, _ pattern: String, file: StaticString = #filePath, line: UInt = #line) {
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        XCTAssertNotNil(regex.firstMatch(in: text, range: range), "\"\(text)\" does not match \"\(pattern)\"",
                        file: file, line: line)
    }

    func testAddObjectCycle() throws {
        let realm = try makeRealm()
        weak var weakObj1: CycleNode?, weakObj2: CycleNode?
        do { // (the SDK's test has an autoreleasepool here)
            let obj1 = CycleNode()
            let obj2 = CycleNode(value: [obj1, [obj1]])
            obj1.obj = obj2
            obj1.array.append(obj2)
            weakObj1 = obj1
            weakObj2 = obj2

            try realm.write { realm.add(obj1) }

            XCTAssertEqual(obj1.realm, realm)
            XCTAssertEqual(obj2.realm, realm)
            XCTAssertTrue(obj1.obj!.isSameObject(as: obj2))
            XCTAssertTrue(obj2.obj!.isSameObject(as: obj1))
            XCTAssertTrue(obj1.array[0].isSameObject(as: obj2))
            XCTAssertTrue(obj2.array[0].isSameObject(as: obj1))
        }
        XCTAssertNil(weakObj1)
        XCTAssertNil(weakObj2)
        XCTAssertEqual(realm.objects(CycleNode.self).count, 2)
    }

    func testAnObjectInItsOwnCollectionsIsAddedOnce() throws {
        let realm = try makeRealm()
        let object = CycleRecursive()
        object.objects.append(object)
        object.objectSet.insert(object)
        try realm.write { realm.add(object) }
        XCTAssertEqual(realm.objects(CycleRecursive.self).count, 1)
        XCTAssertTrue(object.objects[0].isSameObject(as: object))
        XCTAssertTrue(object.objectSet.contains(object))
    }

    func testDescriptionOfACycleStopsAtTheMaximumDepth() throws {
        let recursiveObject = CycleRecursive()
        recursiveObject.objects.append(recursiveObject)
        recursiveObject.objectSet.insert(recursiveObject)
        let expected = "CycleRecursive \\{\n\tobjects = List<CycleRecursive> <0x[0-9a-f]+> \\(\n\t\t\\[0\\] CycleRecursive \\{\n\t\t\tobjects = List<CycleRecursive> <0x[0-9a-f]+> \\(\n\t\t\t\t\\[0\\] CycleRecursive \\{\n\t\t\t\t\tobjects = <Maximum depth exceeded>;\n\t\t\t\t\tobjectSet = <Maximum depth exceeded>;\n\t\t\t\t\\}\n\t\t\t\\);\n\t\t\tobjectSet = MutableSet<CycleRecursive> <0x[0-9a-f]+> \\(\n\t\t\t\t\\[0\\] CycleRecursive \\{\n\t\t\t\t\tobjects = <Maximum depth exceeded>;\n\t\t\t\t\tobjectSet = <Maximum depth exceeded>;\n\t\t\t\t\\}\n\t\t\t\\);\n\t\t\\}\n\t\\);\n\tobjectSet = MutableSet<CycleRecursive> <0x[0-9a-f]+> \\(\n\t\t\\[0\\] CycleRecursive \\{\n\t\t\tobjects = List<CycleRecursive> <0x[0-9a-f]+> \\(\n\t\t\t\t\\[0\\] CycleRecursive \\{\n\t\t\t\t\tobjects = <Maximum depth exceeded>;\n\t\t\t\t\tobjectSet = <Maximum depth exceeded>;\n\t\t\t\t\\}\n\t\t\t\\);\n\t\t\tobjectSet = MutableSet<CycleRecursive> <0x[0-9a-f]+> \\(\n\t\t\t\t\\[0\\] CycleRecursive \\{\n\t\t\t\t\tobjects = <Maximum depth exceeded>;\n\t\t\t\t\tobjectSet = <Maximum depth exceeded>;\n\t\t\t\t\\}\n\t\t\t\\);\n\t\t\\}\n\t\\);\n\\}"
        assertMatches(recursiveObject.description, "^" + expected + "$")

        // Managed, the same text.
        let realm = try makeRealm()
        try realm.write { realm.add(recursiveObject) }
        assertMatches(recursiveObject.description, "^" + expected + "$")
    }

    func testDescriptionOfACycleOfLinks() throws {
        let realm = try makeRealm()
        let obj1 = CycleNode()
        let obj2 = CycleNode(value: [obj1, [obj1]])
        obj1.obj = obj2
        try realm.write { realm.add(obj1) }
        let text = obj1.description
        XCTAssertTrue(text.hasPrefix("CycleNode {\n\tobj = CycleNode {\n\t\tobj = CycleNode {\n"), text)
        XCTAssertTrue(text.contains("<Maximum depth exceeded>"), text)
        XCTAssertTrue(realm.objects(CycleNode.self).description.hasPrefix("Results<CycleNode> <0x"))
    }

    func testDescription() throws {
        let object = CycleAllTypes()
        let expected = "^CycleAllTypes \\{\n\tboolCol = 0;\n\tintCol = 123;\n\tint8Col = 123;\n\tintEnumCol = 1;\n\tfloatCol = 1\\.23;\n\tdoubleCol = 12\\.3;\n\tstringCol = a;\n\tbinaryCol = <.*61.*>;\n\tdateCol = 1970-01-01 00:00:01 \\+0000;\n\tobjectIdCol = 1234567890ab1234567890ab;\n\tobjectCol = CycleFlag \\{\n\t\tboolCol = 0;\n\t\\};\n\tuuidCol = 137DECC8-B300-4954-A233-F89909F4FD89;\n\tanyCol = \\(null\\);\n\tarrayCol = List<CycleFlag> <0x[0-9a-f]+> \\(\n\t\n\t\\);\n\tsetCol = MutableSet<CycleFlag> <0x[0-9a-f]+> \\(\n\t\n\t\\);\n\tmapCol = Map<string, CycleFlag> <0x[0-9a-f]+> \\(\n\t\n\t\\);\n\\}$"
        assertMatches(object.description, expected)
        let realm = try makeRealm()
        try realm.write { realm.add(object) }
        assertMatches(object.description, expected)
        assertMatches(object.objectCol!.backlinks.description,
                      "^LinkingObjects<CycleAllTypes> <0x[0-9a-f]+> \\(\n\t\\[0\\] CycleAllTypes \\{\n\t\tboolCol = 0;")
        XCTAssertEqual(CycleAllTypes().objectCol!.backlinks.description.hasSuffix(" (\n\n)"), true)
    }

    func testDescriptionsOfValueCollections() throws {
        let object = CycleAllTypes()
        object.arrayCol.append(CycleFlag(value: [true]))
        object.mapCol["k"] = CycleFlag()
        object.mapCol["nothing"] = nil as CycleFlag?
        assertMatches(object.arrayCol.description,
                      "^List<CycleFlag> <0x[0-9a-f]+> \\(\n\t\\[0\\] CycleFlag \\{\n\t\tboolCol = 1;\n\t\\}\n\\)$")
        assertMatches(object.mapCol.description,
                      "^Map<string, CycleFlag> <0x[0-9a-f]+> \\(\n\\[k\\]: CycleFlag \\{\n\t\tboolCol = 0;\n\t\\},\n\\[nothing\\]: \\(null\\)\n\\)$")
        let ints = List<Int>()
        ints.append(objectsIn: 0..<150)
        let text = ints.description
        XCTAssertTrue(text.hasPrefix("List<int> <0x"), text)
        XCTAssertTrue(text.contains("\t[99] 99\n\t... 50 objects skipped.\n)"), text)
        XCTAssertFalse(text.contains("[100]"))
    }
}
