import Foundation
import RealmSwift
import XCTest

protocol CreationTreeObject: EmbeddedObject {
    var value: Int { get set }
}

final class CreationTree1: EmbeddedObject, CreationTreeObject {
    @Persisted var value = 0
    @Persisted var bool = false
    @Persisted var child: CreationTree2?
    @Persisted var children: List<CreationTree2>
    @Persisted(originProperty: "object") var parent1: LinkingObjects<CreationParent>
    @Persisted(originProperty: "array") var parent2: LinkingObjects<CreationParent>
}

final class CreationTree2: EmbeddedObject, CreationTreeObject {
    @Persisted var value = 0
    @Persisted var child: CreationTree3?
    @Persisted var children: List<CreationTree3>
    @Persisted(originProperty: "child") var parent3: LinkingObjects<CreationTree1>
    @Persisted(originProperty: "children") var parent4: LinkingObjects<CreationTree1>
}

final class CreationTree3: EmbeddedObject, CreationTreeObject {
    @Persisted var value = 0
}

final class CreationParent: Object {
    @Persisted var object: CreationTree1?
    @Persisted var array: List<CreationTree1>
}

final class CreationPrimaryParent: Object {
    @Persisted(primaryKey: true) var pk: Int = 0
    @Persisted var object: CreationTree1?
    @Persisted var array: List<CreationTree1>
}

final class CreationCollections: Object {
    @Persisted var name = ""
    @Persisted var count = 0
    @Persisted var note: String?
    @Persisted var arrayCol: List<Int>
    @Persisted var setCol: MutableSet<String>
    @Persisted var mapAny: Map<String, AnyRealmValue>
}

/// Creating objects from values as the Realm Swift SDK's ObjectCreationTests and
/// ModernObjectCreationTests do.
final class ObjectCreationParityTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration(
            [CreationParent.self, CreationPrimaryParent.self, CreationTree1.self, CreationTree2.self,
             CreationTree3.self, CreationCollections.self]))
    }

    override func tearDown() {
        realm = nil
        super.tearDown()
    }

    /// Unmanaged embedded objects numbered in creation order, as the SDK's tests make them.
    private final class Factory {
        private var value = 0
        var objects: [EmbeddedObject] = []

        func create<T: CreationTreeObject>() -> T {
            let object = T()
            object.value = value
            value += 1
            objects.append(object)
            return object
        }
    }

    // MARK: Arrays of values

    func testAnArrayWithFewerValuesThanPropertiesSetsTheFirstOnes() throws {
        let unmanaged = CreationCollections(value: ["a", 2])
        XCTAssertEqual(unmanaged.name, "a")
        XCTAssertEqual(unmanaged.count, 2)
        XCTAssertNil(unmanaged.note)
        XCTAssertEqual(CreationCollections(value: [Any]()).name, "")

        let created = try realm.write { realm.create(CreationCollections.self, value: ["b"]) }
        XCTAssertEqual(created.name, "b")
        XCTAssertEqual(created.count, 0)
        XCTAssertEqual(created.arrayCol.count, 0)
    }

    func testAnArrayWithMoreValuesThanPropertiesIsRefused() throws {
        assertThrowsRealmError(.invalidValue, messageContains: ["Invalid array input: more values (7) than properties (6)"]) {
            try realm.write { _ = realm.create(CreationCollections.self, value: ["a", 1, nil, [], [], [:], "extra"] as [Any?]) }
        }
        assertStops(messageContains: "Invalid array input: more values (7) than properties (6)") {
            _ = CreationCollections(value: ["a", 1, nil, [], [], [:], "extra"] as [Any?])
        }
    }

    // MARK: Embedded objects from values

    func testCreateEmbeddedWithDictionary() throws {
        realm.beginWrite()
        let parent = realm.create(CreationParent.self, value: [
            "object": ["value": 5, "child": ["value": 6], "children": [[7], [8]]] as [String: Any],
            "array": [[9], [10]]
        ])
        XCTAssertEqual(parent.object!.value, 5)
        XCTAssertEqual(parent.object!.child!.value, 6)
        XCTAssertEqual(parent.object!.children.count, 2)
        XCTAssertEqual(parent.object!.children[0].value, 7)
        XCTAssertEqual(parent.object!.children[1].value, 8)
        XCTAssertEqual(parent.array.count, 2)
        XCTAssertEqual(parent.array[0].value, 9)
        XCTAssertEqual(parent.array[1].value, 10)

        XCTAssertTrue(parent.isSameObject(as: parent.object!.parent1.first!))
        XCTAssertTrue(parent.isSameObject(as: parent.array[0].parent2.first!))
        XCTAssertTrue(parent.isSameObject(as: parent.array[1].parent2.first!))
        XCTAssertTrue(parent.object!.isSameObject(as: parent.object!.child!.parent3.first!))
        XCTAssertTrue(parent.object!.isSameObject(as: parent.object!.children[0].parent4.first!))
        XCTAssertTrue(parent.object!.isSameObject(as: parent.object!.children[1].parent4.first!))
        realm.cancelWrite()
    }

    func testEmbeddedObjectsFromNestedDictionaries() throws {
        let values: [String: Any] = ["object": ["value": 1, "child": ["value": 2, "child": ["value": 3]]] as [String: Any]]
        let created = try realm.write { realm.create(CreationParent.self, value: values) }
        XCTAssertEqual(created.object?.value, 1)
        XCTAssertEqual(created.object?.child?.value, 2)
        XCTAssertEqual(created.object?.child?.child?.value, 3)

        let unmanaged = CreationParent(value: values)
        XCTAssertEqual(unmanaged.object?.child?.child?.value, 3)
        try realm.write { realm.add(unmanaged) }
        XCTAssertEqual(unmanaged.object?.child?.child?.value, 3)
        XCTAssertEqual(realm.objects(CreationParent.self).compactMap { $0.object?.child?.child?.value }, [3, 3])
    }

    func testInitEmbeddedWithDictionaryAndArrays() {
        let parent = CreationParent(value: ["object": [5, true, [6]], "array": [[9], [10, false, nil, [[11]]]]])
        XCTAssertEqual(parent.object?.value, 5)
        XCTAssertEqual(parent.object?.bool, true)
        XCTAssertEqual(parent.object?.child?.value, 6)
        XCTAssertEqual(parent.array.map(\.value), [9, 10])
        XCTAssertEqual(parent.array[1].children.first?.value, 11)
    }

    func testCreateEmbeddedFromManagedObjectInSameRealm() throws {
        realm.beginWrite()
        let parent = realm.create(CreationParent.self, value: [
            "object": ["value": 5, "child": ["value": 6], "children": [[7], [8]]] as [String: Any],
            "array": [[9], [10]]
        ])
        let copy = realm.create(CreationParent.self, value: parent)
        XCTAssertNotEqual(parent, copy)
        XCTAssertEqual(copy.object!.value, 5)
        XCTAssertEqual(copy.object!.child!.value, 6)
        XCTAssertEqual(copy.object!.children.map(\.value), [7, 8])
        XCTAssertEqual(copy.array.map(\.value), [9, 10])
        realm.cancelWrite()
    }

    // MARK: add with embedded objects

    func testAddEmbedded() throws {
        let objectFactory = Factory()
        let parent = CreationParent()
        parent.object = objectFactory.create()
        parent.object!.child = objectFactory.create()
        parent.object!.children.append(objectFactory.create())
        parent.object!.children.append(objectFactory.create())
        parent.array.append(objectFactory.create())
        parent.array.append(objectFactory.create())

        realm.beginWrite()
        realm.add(parent)
        for (i, object) in objectFactory.objects.enumerated() {
            XCTAssertEqual(object.realm, realm)
            XCTAssertEqual((object as! any CreationTreeObject).value, i)
        }
        XCTAssertEqual(parent.object!.value, 0)
        XCTAssertEqual(parent.object!.child!.value, 1)
        XCTAssertEqual(parent.object!.children.map(\.value), [2, 3])
        XCTAssertEqual(parent.array.map(\.value), [4, 5])
        realm.cancelWrite()
    }

    private func makeParents(_ objectFactory: Factory) -> (CreationPrimaryParent, CreationPrimaryParent) {
        let parent = CreationPrimaryParent()
        parent.object = objectFactory.create()
        parent.object!.child = objectFactory.create()
        parent.object!.children.append(objectFactory.create())
        parent.object!.children.append(objectFactory.create())
        parent.array.append(objectFactory.create())
        parent.array.append(objectFactory.create())

        let parent2 = CreationPrimaryParent()
        parent2.object = objectFactory.create()
        parent2.object!.child = objectFactory.create()
        parent2.object!.children.append(objectFactory.create())
        parent2.object!.children.append(objectFactory.create())
        parent2.array.append(objectFactory.create())
        parent2.array.append(objectFactory.create())
        return (parent, parent2)
    }

    private func assertParentHoldsTheSecondValues(_ parent: CreationPrimaryParent, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(parent.object!.value, 6, file: file, line: line)
        XCTAssertEqual(parent.object!.child!.value, 7, file: file, line: line)
        XCTAssertEqual(parent.object!.children.map(\.value), [8, 9], file: file, line: line)
        XCTAssertEqual(parent.array.map(\.value), [10, 11], file: file, line: line)
    }

    func testAddAndUpdateEmbedded() throws {
        let objectFactory = Factory()
        let (parent, parent2) = makeParents(objectFactory)
        realm.beginWrite()
        realm.add(parent)
        realm.add(parent2, update: .all)

        // update all deletes the old embedded objects and creates new ones
        for (i, object) in objectFactory.objects.enumerated() {
            XCTAssertEqual(object.realm, realm)
            if i < 6 {
                XCTAssertTrue(object.isInvalidated)
            } else {
                XCTAssertEqual((object as! any CreationTreeObject).value, i)
            }
        }
        XCTAssertTrue(parent.isSameObject(as: parent2))
        assertParentHoldsTheSecondValues(parent)
        realm.cancelWrite()
    }

    func testAddAndUpdateChangedEmbedded() throws {
        let objectFactory = Factory()
        let (parent, parent2) = makeParents(objectFactory)
        realm.beginWrite()
        realm.add(parent)
        realm.add(parent2, update: .modified)

        // update modified modifies the existing embedded objects
        for (i, object) in objectFactory.objects.enumerated() {
            XCTAssertEqual(object.realm, realm)
            XCTAssertFalse(object.isInvalidated)
            XCTAssertEqual((object as! any CreationTreeObject).value, i < 6 ? i + 6 : i)
        }
        XCTAssertTrue(parent.isSameObject(as: parent2))
        assertParentHoldsTheSecondValues(parent)
        try realm.commitWrite()
        XCTAssertEqual(realm.objects(CreationPrimaryParent.self).count, 1)
    }

    func testUpdateModifiedWithFewerAndMoreEmbeddedElements() throws {
        let first = CreationPrimaryParent(value: ["pk": 1, "array": [[1], [2], [3]]])
        try realm.write { realm.add(first) }
        let kept = first.array[0]
        try realm.write { realm.add(CreationPrimaryParent(value: ["pk": 1, "array": [[10]]]), update: .modified) }
        XCTAssertEqual(first.array.map(\.value), [10])
        XCTAssertFalse(kept.isInvalidated)
        XCTAssertEqual(kept.value, 10)
        try realm.write {
            realm.add(CreationPrimaryParent(value: ["pk": 1, "object": [4], "array": [[20], [21]]]), update: .modified)
        }
        XCTAssertEqual(first.array.map(\.value), [20, 21])
        XCTAssertEqual(first.object?.value, 4)
        try realm.write { realm.add(CreationPrimaryParent(value: ["pk": 1]), update: .modified) }
        XCTAssertNil(first.object)
        XCTAssertEqual(first.array.count, 0)
    }

    // MARK: Collections of an unmanaged object become managed

    func testAddingObjectReusesExistingCollectionObjects() throws {
        let obj = CreationCollections()
        let list = obj.arrayCol
        let set = obj.setCol
        let dictionary = obj.mapAny

        XCTAssertNil(list.realm)
        XCTAssertNil(set.realm)
        XCTAssertNil(dictionary.realm)
        XCTAssertTrue(list === obj.arrayCol)
        XCTAssertTrue(set === obj.setCol)
        XCTAssertTrue(dictionary === obj.mapAny)

        try realm.write {
            realm.add(obj)
        }

        XCTAssertNotNil(list.realm)
        XCTAssertNotNil(set.realm)
        XCTAssertNotNil(dictionary.realm)
        XCTAssertTrue(list === obj.arrayCol)
        XCTAssertTrue(set === obj.setCol)
        XCTAssertTrue(dictionary === obj.mapAny)
    }

    func testCollectionsTakenBeforeAddReadAndWriteTheRealm() throws {
        let obj = CreationCollections()
        let list = obj.arrayCol
        let set = obj.setCol
        let dictionary = obj.mapAny
        list.append(objectsIn: [1, 2])
        set.insert("a")
        dictionary["x"] = .int(1)
        try realm.write { realm.add(obj) }

        let stored = realm.objects(CreationCollections.self).first!
        try realm.write {
            list.append(3)
            set.insert("b")
            dictionary["y"] = .string("z")
        }
        XCTAssertEqual(Array(stored.arrayCol), [1, 2, 3])
        XCTAssertEqual(Set(stored.setCol), ["a", "b"])
        XCTAssertEqual(stored.mapAny["y"], .string("z"))
        try realm.write { stored.arrayCol.append(4) }
        XCTAssertEqual(Array(list), [1, 2, 3, 4])
    }

    func testManagedObjectsHandOutOneInstanceOfEachCollection() throws {
        try realm.write { realm.add(CreationCollections()) }
        let stored = realm.objects(CreationCollections.self).first!
        XCTAssertTrue(stored.arrayCol === stored.arrayCol)
        XCTAssertTrue(stored.setCol === stored.setCol)
        XCTAssertTrue(stored.mapAny === stored.mapAny)
    }

    func testAManagedObjectAndItsCollectionsAreReleased() throws {
        weak var weakObject: CreationCollections?
        weak var weakList: List<Int>?
        do {
            let obj = CreationCollections()
            _ = obj.arrayCol
            try realm.write { realm.add(obj) }
            let list = obj.arrayCol
            weakObject = obj
            weakList = list
        }
        XCTAssertNil(weakObject)
        XCTAssertNil(weakList)
    }
}
