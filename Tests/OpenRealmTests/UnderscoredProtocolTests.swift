import Foundation
import OpenRealm
import XCTest

final class GenericMeasure: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var weight: Double
    @Persisted var count: Int
    @Persisted var readings: List<Int?>
    @Persisted var label: String
}

/// Generic helpers as users of the SDK write them over its underscored protocols: they
/// must compile against OpenRealm and do what they say.
private func heavierThan<T: _QueryNumeric & _Persistable>(_ keyPath: KeyPath<Query<GenericMeasure>, Query<T>>, _ value: T)
    -> (Query<GenericMeasure>) -> Query<Bool> {
    { $0[keyPath: keyPath] > value }
}

private func nonNilCount<T: _RealmCollectionValueInsideOptional>(_ list: List<T?>) -> Int {
    list.filter { $0 != nil }.count
}

private func stored<T: _RealmSchemaDiscoverable>(_ value: T) -> T { value }

private func startsWith<T: _QueryString & _Persistable>(_ query: Query<T>, _ prefix: T) -> Query<Bool> {
    query.starts(with: prefix)
}

private func isBinaryCompatible<T: _QueryBinary>(_: T.Type) -> Bool { true }

final class UnderscoredProtocolTests: XCTestCase {
    func testGenericCodeOverTheSDKsUnderscoredProtocols() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([GenericMeasure.self]))
        try realm.write {
            for i in 1...4 {
                let m = GenericMeasure(value: ["id": i, "weight": Double(i) * 1.5, "count": i * 10, "label": "m\(i)"])
                m.readings.append(objectsIn: [i, nil, i + 1])
                realm.add(m)
            }
        }
        let measures = realm.objects(GenericMeasure.self)
        XCTAssertEqual(measures.where(heavierThan(\.weight, 4.0)).map(\.id), [3, 4])
        XCTAssertEqual(measures.where(heavierThan(\.count, 20)).map(\.id), [3, 4])
        XCTAssertEqual(measures.where { startsWith($0.label, "m2") }.map(\.id), [2])
        XCTAssertEqual(nonNilCount(measures.first!.readings), 2)
        XCTAssertEqual(stored(Decimal128(number: 5)), Decimal128(number: 5))
        XCTAssertTrue(isBinaryCompatible(Data.self) && isBinaryCompatible(String?.self))
    }
}
