import Foundation
import RealmSwift
import XCTest

/// `realm.objects(_:)` takes a `RealmFetchable` type, as in the Realm Swift SDK: only
/// `Object` classes. Embedded objects live inside their parents and asymmetric objects
/// cannot be read back, so `realm.objects(SomeEmbeddedObject.self)` does not compile.
final class RealmFetchableTests: XCTestCase {
    /// Generic code over fetchable types, as an SDK user writes it.
    private func fetchAll<T: RealmFetchable>(_ type: T.Type, from realm: Realm) -> Results<T> {
        realm.objects(type)
    }

    func testOnlyObjectClassesAreFetchable() {
        XCTAssertTrue((ModelOwner.self as Any.Type) is any RealmFetchable.Type)
        XCTAssertFalse((ModelAddress.self as Any.Type) is any RealmFetchable.Type, "an embedded class")
        XCTAssertFalse((ModelReading.self as Any.Type) is any RealmFetchable.Type, "an asymmetric class")
        XCTAssertEqual(ModelOwner.className(), "ModelOwner")
    }

    func testGenericFetchGoesThroughRealmFetchable() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([ModelOwner.self]))
        try realm.write { realm.add(ModelOwner(value: ["name": "Ann", "age": 3])) }
        XCTAssertEqual(fetchAll(ModelOwner.self, from: realm).map(\.name), ["Ann"])
    }
}
