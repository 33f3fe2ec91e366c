import Foundation
import RealmSwift
import XCTest

final class MapQueryInventory: Object {
    @Persisted var name: String
    @Persisted var counts: Map<String, Int>
    @Persisted var labels: Map<String, String?>
}

/// `containsAny(in:)` on a `Map` property in typed queries, as the SDK has it: whether any
/// of the map's values is one of the given ones.
final class MapContainsAnyQueryTests: XCTestCase {
    private func makeRealm() throws -> Realm {
        var config = Realm.Configuration(inMemoryIdentifier: "map-contains-any-\(UUID())")
        config.objectTypes = [MapQueryInventory.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            let a = MapQueryInventory(value: ["name": "a"])
            a.counts["apples"] = 1
            a.counts["pears"] = 3
            a.labels["x"] = "red"
            let b = MapQueryInventory(value: ["name": "b"])
            b.counts["apples"] = 2
            b.labels["x"] = .some(nil)   // a stored nil (a plain nil removes the key)
            let c = MapQueryInventory(value: ["name": "c"])
            realm.add([a, b, c])
        }
        return realm
    }

    private func names(_ results: Results<MapQueryInventory>) -> [String] {
        results.map(\.name).sorted()
    }

    func testContainsAnyMatchesAnyValue() throws {
        let inventories = try makeRealm().objects(MapQueryInventory.self)
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: [1, 3]) }), ["a"])
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: [3, 2]) }), ["a", "b"])
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: [7]) }), [])
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: []) }), [])
        XCTAssertEqual(names(inventories.where { !$0.counts.containsAny(in: [1]) }), ["b", "c"])
    }

    func testContainsAnyComparesValuesNotKeys() throws {
        let inventories = try makeRealm().objects(MapQueryInventory.self)
        XCTAssertEqual(names(inventories.where { $0.labels.containsAny(in: ["x"]) }), [])
        XCTAssertEqual(names(inventories.where { $0.labels.containsAny(in: ["red", "blue"]) }), ["a"])
        XCTAssertEqual(names(inventories.where { $0.labels.containsAny(in: [nil]) }), ["b"])
    }

    func testContainsAnyTakesAnySequence() throws {
        let inventories = try makeRealm().objects(MapQueryInventory.self)
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: Set([2])) }), ["b"])
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: 2...3) }), ["a", "b"])
        XCTAssertEqual(names(inventories.where { $0.counts.containsAny(in: [3]) && $0.counts.containsAny(in: [1]) }), ["a"])
    }
}
