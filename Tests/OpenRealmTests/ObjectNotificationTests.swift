import Foundation
@testable import OpenRealm
import XCTest

final class NAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
}

final class NContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var friend: NContact?
    @Persisted var address: NAddress?
    @Persisted var nicknames: List<String>
}

/// Collects object notifications.
final class NObjectLog<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _changes: [[PropertyChange]] = []
    private var _deleted = 0

    var changes: [[PropertyChange]] { lock.withLock { _changes } }
    var deleted: Int { lock.withLock { _deleted } }

    func record(_ change: ObjectChange<T>) {
        lock.withLock {
            switch change {
            case .change(_, let properties): _changes.append(properties)
            case .deleted: _deleted += 1
            case .error(let error): XCTFail("\(error)")
            }
        }
    }
}

final class ObjectNotificationTests: XCTestCase {
    func makeConfig() -> Realm.Configuration {
        makeInMemoryConfiguration([NContact.self, NAddress.self])
    }

    func testLocalChangeReportsPropertiesWithNewValues() throws {
        let realm = try Realm(configuration: makeConfig())
        let contact = try realm.write { realm.create(NContact.self, value: ["id": 1, "name": "Ann", "age": 30]) }
        let log = NObjectLog<NContact>()
        let token = contact.observe { (change: ObjectChange<NContact>) in log.record(change) }
        try realm.write { contact.age = 31 }
        pollUntil("change") { log.changes.count == 1 }
        let properties = log.changes[0]
        XCTAssertEqual(properties.map(\.name), ["age"])
        XCTAssertEqual(properties[0].newValue as? Int, 31)
        XCTAssertNil(properties[0].oldValue, "the realm's own commit has no old values")
        try realm.write { contact.nicknames.append("A") }
        pollUntil("list change") { log.changes.count == 2 }
        XCTAssertEqual(log.changes[1].map(\.name), ["nicknames"])
        XCTAssertNil(log.changes[1][0].newValue, "collection properties carry no values")
        withExtendedLifetime(token) {}
    }

    func testChangeFromAnotherThreadHasOldValues() throws {
        let config = makeConfig()
        let realm = try Realm(configuration: config)
        let contact = try realm.write { realm.create(NContact.self, value: ["id": 1, "name": "Ann", "age": 30]) }
        let log = NObjectLog<NContact>()
        let token = contact.observe(on: DispatchQueue(label: "object-changes")) { (change: ObjectChange<NContact>) in
            log.record(change)
        }
        // Changes are reported from the version the registration was made at, even if
        // the queue has not run yet when the other thread writes.
        runOnNewThread {
            let other = try! Realm(configuration: config)
            try! other.write {
                let same = other.object(ofType: NContact.self, forPrimaryKey: 1)!
                same.name = "Anne"
                same.age = 31
            }
        }
        pollUntil("change") { log.changes.count == 1 }
        let byName = Dictionary(uniqueKeysWithValues: log.changes[0].map { ($0.name, $0) })
        XCTAssertEqual(Set(byName.keys), ["name", "age"])
        XCTAssertEqual(byName["name"]?.oldValue as? String, "Ann")
        XCTAssertEqual(byName["name"]?.newValue as? String, "Anne")
        XCTAssertEqual(byName["age"]?.oldValue as? Int, 30)
        XCTAssertEqual(byName["age"]?.newValue as? Int, 31)
        token.invalidate()
    }

    func testDeletionIsTheLastNotification() throws {
        let realm = try Realm(configuration: makeConfig())
        let contact = try realm.write { realm.create(NContact.self, value: ["id": 1]) }
        let log = NObjectLog<ObjectBase>()
        // Written as in Realm's documentation: the change's type is not spelled out.
        let token = contact.observe { change in
            guard case .deleted = change else {
                XCTFail("expected .deleted, got \(change)")
                return
            }
            log.record(change)
        }
        try realm.write { realm.delete(contact) }
        pollUntil("deleted") { log.deleted == 1 }
        try realm.write { realm.create(NContact.self, value: ["id": 2]) }
        // A realm's own commit is delivered to its thread's registrations before
        // `write` returns: anything still due would have arrived by now.
        XCTAssertEqual(log.deleted, 1)
        withExtendedLifetime(token) {}
    }

    func testKeyPathsAndLinks() throws {
        let realm = try Realm(configuration: makeConfig())
        let (ann, bob) = try realm.write { () -> (NContact, NContact) in
            let bob = realm.create(NContact.self, value: ["id": 2, "name": "Bob"])
            let ann = realm.create(NContact.self, value: ["id": 1, "name": "Ann", "friend": bob])
            return (ann, bob)
        }
        let shallow = NObjectLog<NContact>()
        let viaFriend = NObjectLog<NContact>()
        let typed = NObjectLog<NContact>()
        let t1 = ann.observe { (change: ObjectChange<NContact>) in shallow.record(change) }
        let t2 = ann.observe(keyPaths: ["friend.name"]) { (change: ObjectChange<NContact>) in viaFriend.record(change) }
        let t3 = ann.observe(keyPaths: [\NContact.age]) { change in typed.record(change) }
        try realm.write { bob.name = "Robert" }
        pollUntil("friend's name") { viaFriend.changes.count == 1 }
        XCTAssertEqual(viaFriend.changes[0].map(\.name), ["friend"])
        try realm.write { ann.age = 5 }
        pollUntil("age") { typed.changes.count == 1 && shallow.changes.count == 1 }
        XCTAssertEqual(shallow.changes[0].map(\.name), ["age"], "a friend's change is not the object's own")
        XCTAssertEqual(viaFriend.changes.count, 1)
        withExtendedLifetime([t1, t2, t3]) {}
    }

    func testEmbeddedObjectChangeIsAChangeOfItsProperty() throws {
        let realm = try Realm(configuration: makeConfig())
        let contact = try realm.write {
            realm.create(NContact.self, value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]])
        }
        let log = NObjectLog<NContact>()
        let token = contact.observe { (change: ObjectChange<NContact>) in log.record(change) }
        try realm.write { contact.address!.city = "Bergen" }
        pollUntil("embedded change") { log.changes.count == 1 }
        XCTAssertEqual(log.changes[0].map(\.name), ["address"])
        withExtendedLifetime(token) {}
    }

    func testInvalidKeyPathIsNamed() throws {
        // `observe` does not throw (as in Realm): a bad key path stops it with the message
        // of the parser the registration uses, tested here.
        let realm = try Realm(configuration: makeConfig())
        _ = try realm.write { realm.create(NContact.self, value: ["id": 1]) }
        XCTAssertThrowsError(try parse("friend.nope", className: "NContact", realm: realm)) { error in
            XCTAssertTrue((error as? Realm.Error)?.message.contains("'nope' does not exist on 'NContact'") ?? false, "\(error)")
        }
        XCTAssertThrowsError(try parse("name.first", className: "NContact", realm: realm)) { error in
            XCTAssertTrue((error as? Realm.Error)?.message.contains("is not a link") ?? false, "\(error)")
        }
        XCTAssertNoThrow(try parse("friend.friend.name", className: "NContact", realm: realm))
    }

    private func parse(_ path: String, className: String, realm: Realm) throws {
        _ = try KeyPathSteps.parse(path, from: className, schema: realm._coordinator.storedSchema(realm.txn))
    }
}
