import Dispatch
import Foundation
import OpenRealm
import XCTest

final class IdentifiedNote: Object, ObjectKeyIdentifiable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var title: String
    @Persisted var body: String
}

/// The queue-confined open, `Realm.asyncOpen`, `ObjectKeyIdentifiable` and the class
/// methods that describe a model, as Realm SDK code calls them.
final class OpenAndIdentityTests: XCTestCase {
    func testTheClassMethodsDescribeTheModel() {
        XCTAssertEqual(IdentifiedNote.primaryKey(), "_id")
        XCTAssertEqual(IdentifiedNote.indexedProperties(), ["title"])
        XCTAssertEqual(IdentifiedNote.ignoredProperties(), [])
        XCTAssertNil(ModelAddress.primaryKey(), "an embedded class has no primary key")
        XCTAssertEqual(ModelOwner.primaryKey(), "name")
    }

    func testAManagedObjectsIdIsTheSameForEveryAccessorAndDiffersBetweenObjects() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([IdentifiedNote.self]))
        let a = IdentifiedNote(value: ["title": "a"])
        let b = IdentifiedNote(value: ["title": "b"])
        let unmanagedId = a.id
        XCTAssertEqual(a.id, unmanagedId, "stable while unmanaged")
        XCTAssertNotEqual(a.id, b.id)
        try realm.write { realm.add([a, b]) }
        let again = try XCTUnwrap(realm.object(ofType: IdentifiedNote.self, forPrimaryKey: a._id))
        XCTAssertEqual(again.id, a.id)
        XCTAssertEqual(a.freeze().id, a.id, "a frozen copy keeps the id")
        XCTAssertNotEqual(realm.objects(IdentifiedNote.self).where { $0.title == "b" }.first?.id, a.id)
        XCTAssertEqual(Set(realm.objects(IdentifiedNote.self).map(\.id)).count, 2)
    }

    func testARealmConfinedToAQueueDeliversItsNotificationsThere() throws {
        let config = try makeFileConfiguration([IdentifiedNote.self])
        let queue = DispatchQueue(label: "openrealm.tests.confined")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let initial = expectation(description: "initial")
        let update = expectation(description: "update")
        nonisolated(unsafe) var token: NotificationToken?
        nonisolated(unsafe) var confined: Realm?
        queue.sync {
            confined = try? Realm(configuration: config, queue: queue)
            token = confined?.objects(IdentifiedNote.self).observe { change in
                XCTAssertEqual(DispatchQueue.getSpecific(key: key), true, "delivered on the realm's queue")
                switch change {
                case .initial(let notes): XCTAssertEqual(notes.count, 0); initial.fulfill()
                case .update(let notes, _, let insertions, _):
                    XCTAssertEqual(notes.count, 1)
                    XCTAssertEqual(insertions, [0])
                    update.fulfill()
                case .error(let error): XCTFail("\(error)")
                }
            }
        }
        XCTAssertNotNil(confined)
        wait(for: [initial], timeout: 10)
        let writer = try Realm(configuration: config)
        try writer.write { writer.add(IdentifiedNote(value: ["title": "from another thread"])) }
        wait(for: [update], timeout: 10)
        queue.sync {
            XCTAssertEqual(confined?.objects(IdentifiedNote.self).first?.title, "from another thread",
                           "the queue's realm moved forward on its own")
            token?.invalidate()
            confined = nil
        }
    }

    func testANilQueueOpensTheRealmOfTheCallingThread() throws {
        let config = makeInMemoryConfiguration([IdentifiedNote.self])
        let realm = try Realm(configuration: config, queue: nil)
        try realm.write { realm.add(IdentifiedNote(value: ["title": "x"])) }
        XCTAssertEqual(try Realm(configuration: config).objects(IdentifiedNote.self).count, 1)
    }

    func testAsyncOpenHandsTheRealmToTheCallbackQueue() throws {
        let config = try makeFileConfiguration([IdentifiedNote.self])
        let seed = try Realm(configuration: config)
        try seed.write { seed.add(IdentifiedNote(value: ["title": "kept"])) }
        let queue = DispatchQueue(label: "openrealm.tests.async-open")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let opened = expectation(description: "opened")
        Realm.asyncOpen(configuration: config, callbackQueue: queue) { result in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), true)
            switch result {
            case .success(let realm): XCTAssertEqual(realm.objects(IdentifiedNote.self).first?.title, "kept")
            case .failure(let error): XCTFail("\(error)")
            }
            opened.fulfill()
        }
        wait(for: [opened], timeout: 10)
    }

    func testAsyncOpenReportsWhatTheOpenThrows() throws {
        var config = try makeFileConfiguration([IdentifiedNote.self])
        config.readOnly = true   // and the file does not exist
        let failed = expectation(description: "failed")
        Realm.asyncOpen(configuration: config, callbackQueue: DispatchQueue(label: "openrealm.tests.async-open-fail")) { result in
            if case .failure(let error as Realm.Error) = result {
                XCTAssertEqual(error.code, .fileNotFound)
            } else {
                XCTFail("expected fileNotFound, got \(result)")
            }
            failed.fulfill()
        }
        wait(for: [failed], timeout: 10)
    }

    func testACancelledAsyncOpenNeverCallsBack() throws {
        let config = try makeFileConfiguration([IdentifiedNote.self])
        let queue = DispatchQueue(label: "openrealm.tests.async-open-cancel")
        let called = expectation(description: "callback")
        called.isInverted = true
        queue.sync {
            let task = Realm.asyncOpen(configuration: config, callbackQueue: queue) { _ in called.fulfill() }
            task.cancel()   // before the queue can run the delivery
        }
        wait(for: [called], timeout: 0.5)
    }
}

final class PrimitiveSortTests: XCTestCase {
    func testASetOfValuesSortsBothWays() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([ModelAllTypes.self, ModelAddress.self, ModelGeo.self, ModelOwner.self]))
        let object = ModelAllTypes()
        try realm.write {
            realm.add(object)
            object.tags.insert(objectsIn: ["b", "c", "a"])
        }
        XCTAssertEqual(object.tags.sorted(), ["a", "b", "c"])
        XCTAssertEqual(object.tags.sorted(ascending: false), ["c", "b", "a"])
    }
}
