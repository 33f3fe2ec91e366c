import Foundation
import RealmSwift
import XCTest

// Models as the Realm Swift SDK's projection tests declare them (prefixed, as the other
// test files' models are, so that the test target's classes do not collide).

final class PJAddress: EmbeddedObject {
    @Persisted var city: String = ""
    @Persisted var country = ""
}

final class PJExtraInfo: Object {
    @Persisted var phone: PJPhoneInfo?
    @Persisted var email: String?
}

final class PJPhoneInfo: Object {
    @Persisted var mobile: PJMobile?
}

final class PJMobile: EmbeddedObject {
    @Persisted var number: String = ""
}

final class PJPerson: Object {
    @Persisted var firstName: String
    @Persisted var lastName = ""
    @Persisted var birthday: Date
    @Persisted var address: PJAddress?
    @Persisted var extras: PJExtraInfo?
    @Persisted var friends: List<PJPerson>
    @Persisted var reviews: List<String>
    @Persisted var money: Decimal128
}

final class PJPersonProjection: Projection<PJPerson> {
    @Projected(\PJPerson.firstName) var firstName
    @Projected(\PJPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\PJPerson.birthday.timeIntervalSince1970) var birthdayAsEpochtime
    @Projected(\PJPerson.address?.city) var homeCity
    @Projected(\PJPerson.extras?.email) var email
    @Projected(\PJPerson.extras?.phone?.mobile?.number) var mobile
    @Projected(\PJPerson.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
}

final class PJSimpleObject: Object {
    @Persisted var int: Int
    @Persisted var bool: Bool
}

extension PJSimpleObject {
    var stringify: String { "\(int) - \(bool)" }
}

final class PJSimpleProjection: Projection<PJSimpleObject> {
    @Projected(\PJSimpleObject.int) var int
}

final class PJMultipleProjectionsFromOneProperty: Projection<PJSimpleObject> {
    @Projected(\PJSimpleObject.int) var int1
    @Projected(\PJSimpleObject.int) var int2
    @Projected(\PJSimpleObject.int) var int3
}

final class PJAdvancedObject: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    @Persisted var commonArray: List<Int>
    @Persisted var objectsArray: List<PJSimpleObject>
    @Persisted var commonSet: MutableSet<Int>
    @Persisted var objectsSet: MutableSet<PJSimpleObject>
}

final class PJAdvancedProjection: Projection<PJAdvancedObject> {
    @Projected(\PJAdvancedObject.commonArray.count) var arrayLen
    @Projected(\PJAdvancedObject.commonArray) var renamedArray
    @Projected(\PJAdvancedObject.objectsArray.projectTo.stringify) var projectedArray: ProjectedCollection<String>
    @Projected(\PJAdvancedObject.commonSet.first) var firstElement
    @Projected(\PJAdvancedObject.objectsSet.projectTo.bool) var projectedSet: ProjectedCollection<Bool>
}

enum PJIntEnum: Int, PersistableEnum {
    case value1 = 1
    case value2 = 3
}

/// A model with a property of each kind a projection can show.
final class PJAllTypes: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    @Persisted var boolCol = false
    @Persisted var intCol = 0
    @Persisted var int8Col: Int8 = 0
    @Persisted var doubleCol = 0.0
    @Persisted var stringCol = ""
    @Persisted var binaryCol = Data()
    @Persisted var dateCol = Date(timeIntervalSince1970: 0)
    @Persisted var decimalCol = Decimal128()
    @Persisted var uuidCol = UUID()
    @Persisted var anyCol = AnyRealmValue.none
    @Persisted var intEnumCol = PJIntEnum.value1
    @Persisted var optStringCol: String?
    @Persisted var objectCol: PJAllTypes?
    @Persisted var arrayInt: List<Int>
    @Persisted var setString: MutableSet<String>
    @Persisted var mapOptInt: Map<String, Int?>
    @Persisted(originProperty: "objectCol") var linkingObjects: LinkingObjects<PJAllTypes>
    var ignored = 0
}

final class PJAllTypesProjection: Projection<PJAllTypes> {
    @Projected(\PJAllTypes.pk) var pk
    @Projected(\PJAllTypes.boolCol) var boolCol
    @Projected(\PJAllTypes.intCol) var intCol
    @Projected(\PJAllTypes.int8Col) var int8Col
    @Projected(\PJAllTypes.doubleCol) var doubleCol
    @Projected(\PJAllTypes.stringCol) var stringCol
    @Projected(\PJAllTypes.binaryCol) var binaryCol
    @Projected(\PJAllTypes.dateCol) var dateCol
    @Projected(\PJAllTypes.decimalCol) var decimalCol
    @Projected(\PJAllTypes.uuidCol) var uuidCol
    @Projected(\PJAllTypes.anyCol) var anyCol
    @Projected(\PJAllTypes.intEnumCol) var intEnumCol
    @Projected(\PJAllTypes.optStringCol) var optStringCol
    @Projected(\PJAllTypes.objectCol) var objectCol
    @Projected(\PJAllTypes.arrayInt) var arrayInt
    @Projected(\PJAllTypes.setString) var setString
    @Projected(\PJAllTypes.mapOptInt) var mapOptInt
    @Projected(\PJAllTypes.linkingObjects) var linkingObjects
}

/// A projection of a property that is not stored: the SDK stops when it is first used.
final class PJFailedProjection: Projection<PJAllTypes> {
    @Projected(\PJAllTypes.ignored) var ignored
}

/// Collects projection notifications.
final class PJChangeLog<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _changes: [[PropertyChange]] = []
    private var _projections: [T] = []
    private var _deleted = 0

    var changes: [[PropertyChange]] { lock.withLock { _changes } }
    var projections: [T] { lock.withLock { _projections } }
    var deleted: Int { lock.withLock { _deleted } }

    func record(_ change: ObjectChange<T>) {
        lock.withLock {
            switch change {
            case .change(let projection, let properties):
                _changes.append(properties)
                _projections.append(projection)
            case .deleted: _deleted += 1
            case .error(let error): XCTFail("\(error)")
            }
        }
    }
}

final class ProjectionTests: XCTestCase {
    private var configuration: Realm.Configuration!

    override func setUp() {
        super.setUp()
        configuration = makeInMemoryConfiguration([PJPerson.self, PJAddress.self, PJExtraInfo.self, PJPhoneInfo.self, PJMobile.self,
                                                   PJSimpleObject.self, PJAdvancedObject.self, PJAllTypes.self])
    }

    /// The test's realm on the current thread (every thread's realm is the same file).
    private func realmWithTestPath() -> Realm { try! Realm(configuration: configuration) }

    private func populatedRealm() -> Realm {
        let realm = realmWithTestPath()
        try! realm.write {
            let js = realm.create(PJPerson.self, value: ["firstName": "John",
                                                         "lastName": "Snow",
                                                         "birthday": Date(timeIntervalSince1970: 10),
                                                         "address": ["city": "Winterfell", "country": "Kingdom in the North"],
                                                         "extras": ["phone": ["mobile": ["number": "555-555-555"]], "email": "john@doe.com"],
                                                         "money": Decimal128("2.22")])
            let dt = realm.create(PJPerson.self, value: ["firstName": "Daenerys",
                                                         "lastName": "Targaryen",
                                                         "birthday": Date(timeIntervalSince1970: 0),
                                                         "address": ["King's Landing", "Westeros"],
                                                         "money": Decimal128("2.22")])
            js.friends.append(dt)
            dt.friends.append(js)

            realm.create(PJAllTypes.self, value: ["boolCol": true, "intCol": 10, "int8Col": 11 as Int8, "doubleCol": 16.0,
                                                  "stringCol": "a", "binaryCol": Data("b".utf8),
                                                  "dateCol": Date(timeIntervalSince1970: 17), "decimalCol": 18 as Decimal128,
                                                  "uuidCol": UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fd")!,
                                                  "anyCol": AnyRealmValue.int(20), "intEnumCol": PJIntEnum.value2,
                                                  "optStringCol": "c", "arrayInt": [1, 1, 2, 3], "setString": ["a", "b", "c"],
                                                  "mapOptInt": ["1": 1, "2": nil] as [String: Int?]])
            realm.create(PJAdvancedObject.self, value: ["pk": ObjectId.generate(),
                                                        "commonArray": [1, 2, 3],
                                                        "objectsArray": [[1, true] as [Any], [2, false]],
                                                        "commonSet": [1, 2, 3],
                                                        "objectsSet": [[1, true] as [Any], [2, false]]])
        }
        return realm
    }

    private func simpleProjection() -> PJSimpleProjection {
        let realm = realmWithTestPath()
        var object: PJSimpleObject!
        try! realm.write {
            object = realm.create(PJSimpleObject.self)
        }
        return PJSimpleProjection(projecting: object)
    }

    /// Runs `body` on a new thread and waits for it without running this thread's run
    /// loop (as the SDK's tests do), so that this thread's realm does not refresh meanwhile.
    private func dispatchSyncNewThread(_ body: @escaping @Sendable () -> Void) {
        let finished = DispatchSemaphore(value: 0)
        Thread { body(); finished.signal() }.start()
        finished.wait()
    }

    // MARK: Reading

    func testProjectionManualInit() {
        let realm = populatedRealm()
        let johnSnow = realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!
        let pp = PJPersonProjection(projecting: johnSnow)
        XCTAssertEqual(pp.homeCity, "Winterfell")
        XCTAssertEqual(pp.birthdayAsEpochtime, Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        XCTAssertEqual(pp.firstFriendsName.first!, "Daenerys")
        XCTAssertTrue(pp.rootObject === johnSnow)
    }

    func testProjectionFromResult() {
        let realm = populatedRealm()
        let johnSnow: PJPersonProjection = realm.objects(PJPersonProjection.self).first!
        XCTAssertEqual(johnSnow.homeCity, "Winterfell")
        XCTAssertEqual(johnSnow.birthdayAsEpochtime, Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        XCTAssertEqual(johnSnow.firstFriendsName.first!, "Daenerys")
        XCTAssertEqual(johnSnow.lastNameCaps, "SNOW")
        XCTAssertEqual(johnSnow.email, "john@doe.com")
        XCTAssertEqual(johnSnow.mobile, "555-555-555")
    }

    func testProjectionFromResultFiltered() {
        let realm = populatedRealm()
        let johnSnow: PJPersonProjection = realm.objects(PJPersonProjection.self).filter("lastName == 'Snow'").first!
        XCTAssertEqual(johnSnow.homeCity, "Winterfell")
        XCTAssertEqual(johnSnow.birthdayAsEpochtime, Date(timeIntervalSince1970: 10).timeIntervalSince1970)
        XCTAssertEqual(johnSnow.firstFriendsName.first!, "Daenerys")

        let dany = realm.objects(PJPersonProjection.self).filter("address.city == %@", "King's Landing")
        XCTAssertEqual(dany.count, 1)
        XCTAssertEqual(dany[0].firstName, "Daenerys")
    }

    func testProjectionFromResultSorted() {
        let realm = populatedRealm()
        let dany: PJPersonProjection = realm.objects(PJPersonProjection.self).sorted(byKeyPath: "firstName").first!
        XCTAssertEqual(dany.homeCity, "King's Landing")
        XCTAssertEqual(dany.birthdayAsEpochtime, Date(timeIntervalSince1970: 0).timeIntervalSince1970)
        XCTAssertEqual(dany.firstFriendsName.first!, "John")
    }

    func testProjectionFromResultSortedBirthday() {
        let realm = populatedRealm()
        let dany: PJPersonProjection = realm.objects(PJPersonProjection.self).sorted(byKeyPath: "birthday").first!
        XCTAssertEqual(dany.homeCity, "King's Landing")
        XCTAssertEqual(dany.birthdayAsEpochtime, Date(timeIntervalSince1970: 0).timeIntervalSince1970)
        XCTAssertEqual(dany.firstFriendsName.first!, "John")
    }

    func testProjectionEnumeration() {
        let realm = populatedRealm()
        XCTAssertEqual(realm.objects(PJPersonProjection.self).count, 2)
        var names: [String] = []
        for projection in realm.objects(PJPersonProjection.self) {
            names.append(projection.firstName)
        }
        XCTAssertEqual(names, ["John", "Daenerys"])
        XCTAssertEqual(realm.objects(PJPersonProjection.self).map(\.homeCity), ["Winterfell", "King's Landing"])
    }

    func testProjectionEquality() {
        let realm = populatedRealm()
        let johnObject = realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!
        let johnDefaultInit = PJPersonProjection(projecting: johnObject)
        let johnMapped = realm.objects(PJPersonProjection.self).filter("lastName == 'Snow'").first!
        let notJohn = realm.objects(PJPersonProjection.self).filter("lastName != 'Snow'").first!

        XCTAssertEqual(johnMapped, johnDefaultInit)
        XCTAssertNotEqual(johnMapped, notJohn)
        XCTAssertEqual(Set([johnMapped, johnDefaultInit, notJohn]).count, 2)
        XCTAssertEqual(realm.objects(PJPersonProjection.self).index(of: johnDefaultInit), 0)
        XCTAssertEqual(realm.objects(PJPersonProjection.self).index(of: notJohn), 1)
    }

    func testDescription() throws {
        let actual = populatedRealm().objects(PJPersonProjection.self).filter("lastName == 'Snow'").first!.description
        let expected = "^PJPersonProjection<PJPerson> <0x[0-9a-f]+> \\{\n\t\tfirstName\\(\\\\.firstName\\) = John;\n\tlastNameCaps\\(\\\\.lastName\\) = SNOW;\n\tbirthdayAsEpochtime\\(\\\\.birthday\\) = 10.0;\n\thomeCity\\(\\\\.address.city\\) = Optional\\(\"Winterfell\"\\);\n\temail\\(\\\\.extras.email\\) = Optional\\(\"john@doe.com\"\\);\n\tmobile\\(\\\\.extras.phone.mobile.number\\) = Optional\\(\"555-555-555\"\\);\n\tfirstFriendsName\\(\\\\.friends\\) = ProjectedCollection<String> \\{\n\t\\[0\\] Daenerys\n\\};\n\\}$"
        let regex = try NSRegularExpression(pattern: expected)
        XCTAssertNotNil(regex.firstMatch(in: actual, range: NSRange(actual.startIndex..., in: actual)), actual)

        // Results of projections are described as the SDK does: by their root class, each
        // element as its projection.
        let results = populatedRealm().objects(PJSimpleProjection.self).description
        XCTAssertTrue(results.hasPrefix("Results<PJSimpleObject> <0x"), results)
        XCTAssertTrue(results.contains("\t[0] PJSimpleProjection<PJSimpleObject> <0x"), results)
        XCTAssertTrue(results.contains("\t\tint(\\.int) = 1;"), results)
    }

    func testProjectionsRealmShouldNotBeNil() {
        XCTAssertNotNil(populatedRealm().objects(PJPersonProjection.self).first!.realm)
    }

    func testProjectionForAllRealmTypes() {
        let realm = populatedRealm()
        let allTypes = realm.objects(PJAllTypesProjection.self).first!
        XCTAssertEqual(allTypes.boolCol, true)
        XCTAssertEqual(allTypes.intCol, 10)
        XCTAssertEqual(allTypes.int8Col, 11)
        XCTAssertEqual(allTypes.doubleCol, 16)
        XCTAssertEqual(allTypes.stringCol, "a")
        XCTAssertEqual(allTypes.binaryCol, Data("b".utf8))
        XCTAssertEqual(allTypes.dateCol, Date(timeIntervalSince1970: 17))
        XCTAssertEqual(allTypes.decimalCol, 18 as Decimal128)
        XCTAssertEqual(allTypes.uuidCol, UUID(uuidString: "6b28ec45-b29a-4b0a-bd6a-343c7f6d90fd")!)
        XCTAssertEqual(allTypes.anyCol, .int(20))
        XCTAssertEqual(allTypes.intEnumCol, .value2)
        XCTAssertEqual(allTypes.optStringCol, "c")
        XCTAssertNil(allTypes.objectCol)
        XCTAssertEqual(Array(allTypes.arrayInt), [1, 1, 2, 3])
        XCTAssertEqual(Set(allTypes.setString), ["a", "b", "c"])
        XCTAssertEqual(allTypes.mapOptInt["1"], 1)
        XCTAssertEqual(allTypes.mapOptInt.count, 2)
        XCTAssertEqual(allTypes.linkingObjects.count, 0)

        // Writes through the projection's properties write the root object.
        try! realm.write {
            allTypes.intCol = 42
            allTypes.optStringCol = nil
            allTypes.objectCol = allTypes.rootObject
            allTypes.arrayInt.append(5)
            allTypes.mapOptInt["3"] = 3
        }
        let root = realm.objects(PJAllTypes.self).first!
        XCTAssertEqual(root.intCol, 42)
        XCTAssertNil(root.optStringCol)
        XCTAssertEqual(Array(root.arrayInt), [1, 1, 2, 3, 5])
        XCTAssertEqual(root.mapOptInt["3"], 3)
        XCTAssertEqual(allTypes.linkingObjects.count, 1, "the link to itself shows in its linking objects")
        XCTAssertEqual(allTypes.objectCol?.intCol, 42)
    }

    func testAdvancedProjection() {
        let realm = populatedRealm()
        let proj = realm.objects(PJAdvancedProjection.self).first!

        XCTAssertEqual(proj.arrayLen, 3)
        XCTAssertTrue(proj.projectedArray.elementsEqual(["1 - true", "2 - false"]), "'\(proj.projectedArray)' should be equal to '[\"1 - true\", \"2 - false\"]'")
        XCTAssertTrue(proj.renamedArray.elementsEqual([1, 2, 3]))
        XCTAssertEqual(proj.firstElement, 1)
        XCTAssertEqual(Set(proj.projectedSet), [true, false])
        XCTAssertEqual(proj.projectedSet.count, 2)
    }

    func testFailedProjection() {
        let realm = populatedRealm()
        XCTAssertGreaterThan(realm.objects(PJFailedProjection.self).count, 0)
        assertStops(messageContains: "@Projected property 'ignored' must be a part of Realm object") {
            _ = realm.objects(PJFailedProjection.self).first
        }
    }

    // MARK: Live results and writes

    func testResultsOfProjectionsAreLive() {
        let realm = populatedRealm()
        let snows = realm.objects(PJPersonProjection.self).filter("lastName == 'Snow'")
        let all = realm.objects(PJPersonProjection.self).sorted(byKeyPath: "firstName", ascending: false)
        let john = snows.first!
        XCTAssertEqual(snows.count, 1)
        try! realm.write {
            realm.create(PJPerson.self, value: ["firstName": "Arya", "lastName": "Snow"])
            john.firstName = "Jon"
        }
        XCTAssertEqual(snows.count, 2)
        XCTAssertEqual(all.map(\.firstName), ["Jon", "Daenerys", "Arya"])
        XCTAssertEqual(realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!.firstName, "Jon")
        XCTAssertEqual(john.firstName, "Jon", "a projection reads its live root object")
    }

    func testWritingAComputedProjectedPropertyStops() {
        let realm = populatedRealm()
        let john = realm.objects(PJPersonProjection.self).first!
        assertStops(messageContains: "KeyPath is not writable") {
            try! realm.write { john.lastNameCaps = "STARK" }
        }
    }

    // MARK: ProjectedCollection

    func testProjectedCollectionReadsAndWritesItsObjects() {
        let realm = populatedRealm()
        let john = realm.objects(PJPersonProjection.self).filter("lastName == 'Snow'").first!
        let names = john.firstFriendsName
        XCTAssertEqual(names.count, 1)
        XCTAssertEqual(names[0], "Daenerys")
        XCTAssertEqual(names.index(of: "Daenerys"), 0)
        XCTAssertNil(names.index(of: "Tyrion"))
        XCTAssertEqual(names.realm?.configuration.inMemoryIdentifier, realm.configuration.inMemoryIdentifier)
        XCTAssertFalse(names.isInvalidated)
        XCTAssertFalse(names.isFrozen)

        try! realm.write {
            john.rootObject.friends.append(realm.create(PJPerson.self, value: ["firstName": "Tyrion", "lastName": "Lannister"]))
            names[0] = "Dany"
        }
        XCTAssertEqual(Array(names), ["Dany", "Tyrion"], "the projected collection reads the live list")
        XCTAssertEqual(realm.objects(PJPerson.self).filter("lastName == 'Targaryen'").first!.firstName, "Dany")
        XCTAssertEqual(names.description, "ProjectedCollection<String> {\n\t[0] Dany\n\t[1] Tyrion\n}")

        let frozen = names.freeze()
        XCTAssertTrue(frozen.isFrozen)
        try! realm.write { john.rootObject.friends.removeAll() }
        XCTAssertEqual(names.count, 0)
        XCTAssertEqual(Array(frozen), ["Dany", "Tyrion"])
        XCTAssertEqual(frozen.thaw()?.count, 0)
    }

    func testProjectedCollectionObserve() {
        let realm = populatedRealm()
        let john = realm.objects(PJPersonProjection.self).filter("lastName == 'Snow'").first!
        var initial: [String]?
        var updates: [([String], [Int], [Int], [Int])] = []
        let token = john.firstFriendsName.observe { change in
            switch change {
            case .initial(let names): initial = Array(names)
            case .update(let names, let deletions, let insertions, let modifications):
                updates.append((Array(names), deletions, insertions, modifications))
            case .error(let error): XCTFail("\(error)")
            }
        }
        pollUntil("initial") { initial != nil }
        XCTAssertEqual(initial, ["Daenerys"])
        try! realm.write {
            john.rootObject.friends.append(realm.create(PJPerson.self, value: ["firstName": "Tyrion"]))
        }
        pollUntil("insertion") { updates.count == 1 }
        XCTAssertEqual(updates[0].0, ["Daenerys", "Tyrion"])
        XCTAssertEqual(updates[0].2, [1])
        try! realm.write { john.rootObject.friends[0].firstName = "Dany" }
        pollUntil("modification") { updates.count == 2 }
        XCTAssertEqual(updates[1].0, ["Dany", "Tyrion"])
        XCTAssertEqual(updates[1].3, [0])
        token.invalidate()

        // With key paths, a change of another property of an element is not reported.
        var keyPathUpdates = 0
        var keyPathInitial = false
        let filtered = john.firstFriendsName.observe(keyPaths: ["firstName"]) { change in
            switch change {
            case .initial: keyPathInitial = true
            case .update: keyPathUpdates += 1
            case .error(let error): XCTFail("\(error)")
            }
        }
        pollUntil("initial") { keyPathInitial }
        try! realm.write { john.rootObject.friends[0].lastName = "Stormborn" }
        try! realm.write { john.rootObject.friends[1].firstName = "Tyrion L." }
        pollUntil("firstName change") { keyPathUpdates >= 1 }
        XCTAssertEqual(keyPathUpdates, 1)
        filtered.invalidate()
    }

    // MARK: Notifications

    func testObserveKeyPath() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PJPersonProjection.self).filter("lastName == 'Snow'").first!
        let log = PJChangeLog<PJPersonProjection>()
        let token = johnProjection.observe(keyPaths: ["lastName"], on: nil) { log.record($0) }
        let configuration = self.configuration!
        runOnNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let johnObject = realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!
                johnObject.firstName = "Jon" // not observed
            }
            try! realm.write {
                let johnObject = realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!
                johnObject.lastName = "Targaryen"
            }
        }
        pollUntil("change") { log.changes.count == 1 }
        XCTAssertEqual(log.changes[0].map(\.name), ["lastNameCaps"])
        XCTAssertEqual(log.changes[0][0].oldValue as? String, "SNOW")
        XCTAssertEqual(log.changes[0][0].newValue as? String, "TARGARYEN")
        XCTAssertTrue(log.projections[0] === johnProjection)
        token.invalidate()
    }

    func testObserveNestedProjection() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PJPersonProjection.self).first!
        let configuration = self.configuration!
        let writeJohn: (@escaping @Sendable (PJPerson) -> Void) -> Void = { body in
            self.runOnNewThread {
                let realm = try! Realm(configuration: configuration)
                try! realm.write { body(realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!) }
            }
        }

        let nested = PJChangeLog<PJPersonProjection>()
        let token = johnProjection.observe(keyPaths: [\PJPersonProjection.mobile]) { nested.record($0) }
        writeJohn { $0.extras?.email = "not@observed.com" }
        writeJohn { $0.extras?.phone?.mobile?.number = "529-345-678" }
        pollUntil("nested change") { nested.changes.count == 1 }
        XCTAssertEqual(nested.changes[0].map(\.name), ["mobile"])
        XCTAssertEqual(nested.changes[0][0].newValue as? String, "529-345-678")
        token.invalidate()

        let all = PJChangeLog<PJPersonProjection>()
        let token2 = johnProjection.observe { all.record($0) }
        writeJohn { $0.extras?.email = "joe@realm.com" }
        pollUntil("email change") { all.changes.count == 1 }
        // `extras` changed: every projected property reading through it is reported.
        XCTAssertEqual(all.changes[0].map(\.name), ["email", "mobile"])
        XCTAssertEqual(all.changes[0][0].newValue as? String, "joe@realm.com")
        writeJohn { $0.address?.city = "Barranquilla" }
        pollUntil("embedded change") { all.changes.count == 2 }
        XCTAssertEqual(all.changes[1].map(\.name), ["homeCity"])
        XCTAssertEqual(all.changes[1][0].newValue as? String, "Barranquilla")
        token2.invalidate()
    }

    func testObserveComputedChange() {
        let realm = populatedRealm()
        let johnProjection = realm.objects(PJPersonProjection.self).first!
        XCTAssertEqual(johnProjection.lastNameCaps, "SNOW")

        let log = PJChangeLog<PJPersonProjection>()
        let token = johnProjection.observe(keyPaths: [\PJPersonProjection.lastNameCaps]) { log.record($0) }
        let configuration = self.configuration!
        runOnNewThread {
            let realm = try! Realm(configuration: configuration)
            let johnObject = realm.objects(PJPerson.self).filter("lastName == 'Snow'").first!
            try! realm.write { johnObject.lastName = "Ali" }
        }
        pollUntil("change") { log.changes.count == 1 }
        let value = log.changes[0].first
        XCTAssertEqual(value?.name, "lastNameCaps")
        XCTAssertEqual(value?.oldValue as? String, "SNOW")
        XCTAssertEqual(value?.newValue as? String, "ALI")
        token.invalidate()
    }

    func testObserveMultipleProjectionsFromOneProperty() {
        let realm = realmWithTestPath()
        try! realm.write {
            realm.create(PJSimpleObject.self, value: [1, false])
        }
        let projection = realm.objects(PJMultipleProjectionsFromOneProperty.self).first!
        let log = PJChangeLog<PJMultipleProjectionsFromOneProperty>()
        let token = projection.observe { log.record($0) }
        let configuration = self.configuration!
        runOnNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                realm.objects(PJSimpleObject.self).first!.int = 2
            }
        }
        pollUntil("change") { log.changes.count == 1 }
        let change = log.changes[0]
        XCTAssertEqual(change.count, 3)
        for (i, prop) in change.enumerated() {
            XCTAssertEqual(prop.name, "int\(i + 1)")
            XCTAssertEqual(prop.oldValue as? Int, 1)
            XCTAssertEqual(prop.newValue as? Int, 2)
        }
        token.invalidate()
    }

    func testObserveLocalWritesAndDeletion() {
        let projection = simpleProjection()
        let realm = projection.realm!
        let log = PJChangeLog<PJSimpleProjection>()
        let token = projection.observe { log.record($0) }
        try! realm.write { projection.rootObject.bool = true } // not projected
        try! realm.write { projection.int = 7 }
        pollUntil("change") { log.changes.count == 1 }
        XCTAssertEqual(log.changes[0].map(\.name), ["int"])
        XCTAssertNil(log.changes[0][0].oldValue, "the realm's own commit has no old values")
        XCTAssertEqual(log.changes[0][0].newValue as? Int, 7)
        try! realm.write { realm.delete(projection.rootObject) }
        pollUntil("deletion") { log.deleted == 1 }
        XCTAssertTrue(projection.isInvalidated)
        XCTAssertEqual(log.changes.count, 1)
        token.invalidate()
    }

    func testObserveOnQueueDeliversAProjectionConfinedToIt() {
        let projection = simpleProjection()
        let log = PJChangeLog<PJSimpleProjection>()
        let token = projection.observe(keyPaths: [\PJSimpleProjection.int], on: DispatchQueue(label: "projection-changes")) {
            log.record($0)
        }
        try! projection.realm!.write { projection.int = 3 }
        pollUntil("change") { log.changes.count == 1 }
        XCTAssertEqual(log.changes[0].map(\.name), ["int"])
        XCTAssertEqual(log.changes[0][0].newValue as? Int, 3)
        XCTAssertFalse(log.projections[0] === projection)
        token.invalidate()
    }

    @MainActor
    func testObserveOnActor() async throws {
        let projection = simpleProjection()
        let log = PJChangeLog<PJSimpleProjection>()
        let block = { @Sendable (_: isolated PJActor, change: ObjectChange<PJSimpleProjection>) in log.record(change) }
        let tokens = await [
            projection.observe(keyPaths: ["int"], on: PJActor.shared, block),
            projection.observe(keyPaths: [\.int], on: PJActor.shared, block)
        ]
        try projection.realm!.write { projection.rootObject.bool = true } // not observed
        try projection.realm!.write { projection.int = 1 }
        await pollUntilAsync("two changes") { log.changes.count == 2 }
        for change in log.changes {
            XCTAssertEqual(change.map(\.name), ["int"])
            XCTAssertEqual(change[0].newValue as? Int, 1)
        }
        tokens.forEach { $0.invalidate() }
    }

    func testResultsOfProjectionsObserve() {
        let realm = populatedRealm()
        let results = realm.objects(PJPersonProjection.self).sorted(byKeyPath: "firstName")
        var initial: [String]?
        var updates: [([String], [Int], [Int], [Int])] = []
        let token = results.observe(keyPaths: ["firstName"]) { change in
            switch change {
            case .initial(let projections): initial = projections.map(\.firstName)
            case .update(let projections, let deletions, let insertions, let modifications):
                updates.append((projections.map(\.firstName), deletions, insertions, modifications))
            case .error(let error): XCTFail("\(error)")
            }
        }
        pollUntil("initial") { initial != nil }
        XCTAssertEqual(initial, ["Daenerys", "John"])
        try! realm.write { realm.create(PJPerson.self, value: ["firstName": "Arya"]) }
        pollUntil("insertion") { updates.count == 1 }
        XCTAssertEqual(updates[0].0, ["Arya", "Daenerys", "John"])
        XCTAssertEqual(updates[0].2, [0])
        try! realm.write { results[2].rootObject.lastName = "Stark" } // not observed
        try! realm.write { results[2].rootObject.firstName = "Jon" }
        pollUntil("modification") { updates.count == 2 }
        XCTAssertEqual(updates[1].0, ["Arya", "Daenerys", "Jon"])
        XCTAssertEqual(updates[1].3, [2])
        token.invalidate()
    }

    // MARK: Frozen projections

    func testIsFrozen() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        XCTAssertFalse(projection.isFrozen)
        XCTAssertTrue(frozen.isFrozen)
    }

    func testFreezingFrozenObjectReturnsSelf() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        XCTAssertNotEqual(projection, frozen)
        XCTAssertFalse(projection.freeze() === frozen)
        XCTAssertEqual(frozen, frozen.freeze())
    }

    func testFreezingDeletedObject() {
        let projection = simpleProjection()
        let object = projection.rootObject
        try! projection.realm!.write {
            projection.realm!.delete(object)
        }
        assertStops(messageContains: "Object has been deleted or invalidated.") {
            _ = projection.freeze()
        }
    }

    func testFreezeFromWrongThread() {
        let projection = simpleProjection()
        let box = PJUnchecked(projection)
        assertStops(messageContains: "Realm accessed from incorrect thread") {
            let finished = DispatchSemaphore(value: 0)
            Thread { _ = box.value.freeze(); finished.signal() }.start()
            finished.wait()
        }
    }

    func testAccessFrozenObjectFromDifferentThread() {
        let projection = simpleProjection()
        let frozen = PJUnchecked(projection.freeze())
        let read = PJUnchecked<Int?>(nil)
        runOnNewThread { read.value = frozen.value.int }
        XCTAssertEqual(read.value, 0)
    }

    func testMutateFrozenObject() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertThrowsError(try frozen.realm!.write {})
    }

    func testObserveFrozenObject() {
        let frozen = simpleProjection().freeze()
        assertStops(messageContains: "frozen objects and collections never change") {
            _ = frozen.observe { _ in }
        }
    }

    func testFrozenObjectEquality() {
        let projectionA = simpleProjection()
        let frozenA1 = projectionA.freeze()
        let frozenA2 = projectionA.freeze()
        XCTAssertEqual(frozenA1, frozenA2)
        let projectionB = simpleProjection()
        let frozenB = projectionB.freeze()
        XCTAssertNotEqual(frozenA1, frozenB)
    }

    func testThaw() {
        let frozen = simpleProjection().freeze()
        XCTAssertTrue(frozen.isFrozen)
        let live = frozen.thaw()!
        XCTAssertFalse(live.isFrozen)
        try! live.realm!.write {
            live.int = 2
        }
        XCTAssertNotEqual(live.int, frozen.int)
    }

    func testThawDeleted() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        let realm = realmWithTestPath()
        XCTAssertTrue(frozen.isFrozen)
        try! realm.write {
            realm.deleteAll()
        }
        XCTAssertNil(frozen.thaw(), "Thaw should return nil when object was deleted")
    }

    func testThawPreviousVersion() {
        let projection = simpleProjection()
        let frozen = projection.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(projection.int, frozen.int)
        try! projection.realm!.write {
            projection.int = 1
        }
        XCTAssertNotEqual(projection.int, frozen.int, "Frozen object shouldn't mutate")
        let thawed = frozen.thaw()!
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.int, projection.int, "Thawed object should reflect transactions since the original reference was frozen.")
    }

    func testThawUpdatedOnDifferentThread() {
        let realm = realmWithTestPath()
        let projection = simpleProjection()
        // This thread's realm reads the version of its last write before the other thread
        // writes. (Without a read since its own commit, its next read would start at the
        // newest version: OpenRealm takes a realm's snapshot at its first read.)
        XCTAssertEqual(projection.int, 0)
        let tsr = ThreadSafeReference(to: projection)
        let frozen = PJUnchecked<PJSimpleProjection?>(nil)
        let configuration = self.configuration!
        dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let resolvedProjection: PJSimpleProjection = realm.resolve(tsr)!
            try! realm.write {
                resolvedProjection.int = 1
            }
            frozen.value = resolvedProjection.freeze()
        }
        let thawed = frozen.value!.thaw()!
        XCTAssertEqual(thawed.int, 0, "Thaw shouldn't reflect background transactions until main thread realm is refreshed")
        realm.refresh()
        XCTAssertEqual(thawed.int, 1)
    }

    func testThawCreatedOnDifferentThread() {
        let realm = realmWithTestPath()
        XCTAssertEqual(realm.objects(PJSimpleProjection.self).count, 0)
        let frozen = PJUnchecked<PJSimpleProjection?>(nil)
        let configuration = self.configuration!
        dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            var object: PJSimpleObject!
            try! realm.write { object = realm.create(PJSimpleObject.self) }
            frozen.value = PJSimpleProjection(projecting: object).freeze()
        }
        XCTAssertNil(frozen.value!.thaw())
        XCTAssertEqual(realm.objects(PJSimpleProjection.self).count, 0)
        realm.refresh()
        XCTAssertEqual(realm.objects(PJSimpleProjection.self).count, 1)
    }

    func testFrozenResultsOfProjections() {
        let realm = populatedRealm()
        let frozen = realm.objects(PJPersonProjection.self).freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen[0].isFrozen)
        try! realm.write { realm.create(PJPerson.self, value: ["firstName": "Arya"]) }
        XCTAssertEqual(frozen.count, 2)
        XCTAssertEqual(frozen.thaw()?.count, 3)
    }
}

@globalActor actor PJActor {
    static let shared = PJActor()
}

/// Hands a value to another thread in a test, where the test orders the accesses.
final class PJUnchecked<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
