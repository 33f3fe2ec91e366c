import Foundation
import RealmSwift
import XCTest

// Custom types as a Realm Swift SDK user declares them. (The tests' own types, not
// `URL` or `Int` wrappers named as the SDK's test suite names them, so that those can
// be declared beside these in the same module.)

/// A temperature stored as a `Double`.
struct CPCelsius: CustomPersistable {
    typealias PersistedType = Double
    var degrees: Double
    init(degrees: Double) { self.degrees = degrees }
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

/// A tag stored as a `String`.
struct CPTag: CustomPersistable {
    typealias PersistedType = String
    var name: String
    init(_ name: String) { self.name = name }
    init(persistedValue: String) { name = persistedValue }
    var persistableValue: String { name }
}

/// A web address stored as a `String`; a stored string that is not one reads as nil
/// where the property is optional.
struct CPWebAddress: FailableCustomPersistable {
    typealias PersistedType = String
    let url: URL
    init(_ string: String) { url = URL(string: string)! }
    init?(persistedValue: String) {
        // The persisted type's default ("") must convert: only strings with a scheme fail.
        if persistedValue.isEmpty { url = URL(string: "about:blank")!; return }
        guard persistedValue.contains("://"), let url = URL(string: persistedValue) else { return nil }
        self.url = url
    }
    var persistableValue: String { url == URL(string: "about:blank")! ? "" : url.absoluteString }
}

/// A key stored as an `Int`, usable as a primary key and indexed.
struct CPAccountNumber: CustomPersistable {
    typealias PersistedType = Int
    var number: Int
    init(_ number: Int) { self.number = number }
    init(persistedValue: Int) { number = persistedValue }
    var persistableValue: Int { number }
}

/// A type whose persisted default (0) does not convert.
struct CPNonZero: FailableCustomPersistable {
    typealias PersistedType = Int
    let value: Int
    init?(persistedValue: Int) {
        guard persistedValue != 0 else { return nil }
        value = persistedValue
    }
    var persistableValue: Int { value }
}

final class CPReading: Object {
    @Persisted(primaryKey: true) var account: CPAccountNumber
    @Persisted var temperature: CPCelsius
    @Persisted var peak: CPCelsius?
    @Persisted(indexed: true) var tag: CPTag
    @Persisted var source: CPWebAddress?
    @Persisted var home: CPWebAddress
    @Persisted var history: List<CPCelsius>
    @Persisted var optionalHistory: List<CPCelsius?>
    @Persisted var tags: MutableSet<CPTag>
    @Persisted var byPlace: Map<String, CPCelsius>
    @Persisted var links: List<CPWebAddress?>
}

final class CPNonZeroHolder: Object {
    @Persisted var value: CPNonZero
}

final class CPNonZeroWithDefault: Object {
    @Persisted var value = CPNonZero(persistedValue: 7)!
    @Persisted var optional: CPNonZero?
}

final class CustomPersistableTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        realm = try Realm(configuration: makeInMemoryConfiguration([CPReading.self, CPNonZeroHolder.self, CPNonZeroWithDefault.self]))
    }

    override func tearDown() {
        realm = nil
    }

    func testStoredAsThePersistedType() {
        let schema = realm.schema["CPReading"]!
        XCTAssertEqual(schema["temperature"]?.type, .double)
        XCTAssertEqual(schema["temperature"]?.isOptional, false)
        XCTAssertEqual(schema["peak"]?.type, .double)
        XCTAssertEqual(schema["peak"]?.isOptional, true)
        XCTAssertEqual(schema["tag"]?.type, .string)
        XCTAssertEqual(schema["tag"]?.isIndexed, true)
        XCTAssertEqual(schema["account"]?.type, .int)
        XCTAssertEqual(schema.primaryKeyProperty?.name, "account")
        XCTAssertEqual(schema["history"]?.type, .double)
        XCTAssertEqual(schema["history"]?.isArray, true)
        XCTAssertEqual(schema["tags"]?.isSet, true)
        XCTAssertEqual(schema["byPlace"]?.isMap, true)
        XCTAssertEqual(schema["links"]?.type, .string)
        XCTAssertEqual(schema["links"]?.isOptional, true)
    }

    func testPropertiesRoundTripUnmanagedAndManaged() throws {
        let reading = CPReading()
        XCTAssertEqual(reading.temperature, CPCelsius(degrees: 0))
        XCTAssertNil(reading.peak)
        XCTAssertNil(reading.source)
        reading.account = CPAccountNumber(7)
        reading.temperature = CPCelsius(degrees: 21.5)
        reading.peak = CPCelsius(degrees: 30)
        reading.tag = CPTag("kitchen")
        reading.source = CPWebAddress("https://example.com/sensor")
        try realm.write { realm.add(reading) }

        XCTAssertEqual(reading.temperature, CPCelsius(degrees: 21.5))
        XCTAssertEqual(reading.peak, CPCelsius(degrees: 30))
        XCTAssertEqual(reading.tag.name, "kitchen")
        XCTAssertEqual(reading.source?.url.absoluteString, "https://example.com/sensor")

        let read = try XCTUnwrap(realm.object(ofType: CPReading.self, forPrimaryKey: CPAccountNumber(7)))
        XCTAssertEqual(read.temperature.degrees, 21.5)
        XCTAssertEqual(read["temperature"] as? CPCelsius, CPCelsius(degrees: 21.5))
        try realm.write {
            read.temperature = CPCelsius(degrees: -4)
            read.peak = nil
            read.source = nil
        }
        XCTAssertEqual(reading.temperature, CPCelsius(degrees: -4))
        XCTAssertNil(reading.peak)
        XCTAssertNil(reading.source)
        // The primary key found by its persisted value too.
        XCTAssertNotNil(realm.object(ofType: CPReading.self, forPrimaryKey: 7))
    }

    func testCollectionsOfCustomTypes() throws {
        let reading = CPReading()
        reading.history.append(objectsIn: [CPCelsius(degrees: 1), CPCelsius(degrees: 2)])
        reading.optionalHistory.append(objectsIn: [nil, CPCelsius(degrees: 3)])
        reading.tags.insert(CPTag("a"))
        reading.tags.insert(CPTag("a"))
        reading.byPlace["oven"] = CPCelsius(degrees: 180)
        try realm.write { realm.add(reading) }

        XCTAssertEqual(Array(reading.history), [CPCelsius(degrees: 1), CPCelsius(degrees: 2)])
        XCTAssertEqual(Array(reading.optionalHistory), [nil, CPCelsius(degrees: 3)])
        XCTAssertEqual(reading.tags.count, 1)
        XCTAssertTrue(reading.tags.contains(CPTag("a")))
        XCTAssertEqual(reading.byPlace["oven"], CPCelsius(degrees: 180))
        XCTAssertEqual(reading.history.index(of: CPCelsius(degrees: 2)), 1)

        try realm.write {
            reading.history.append(CPCelsius(degrees: 5))
            reading.history[0] = CPCelsius(degrees: 10)
            reading.tags.insert(CPTag("b"))
            reading.byPlace["fridge"] = CPCelsius(degrees: 4)
        }
        XCTAssertEqual(reading.history.map(\.degrees), [10, 2, 5])
        XCTAssertEqual(Set(reading.tags.map(\.name)), ["a", "b"])
        XCTAssertEqual(reading.byPlace["fridge"]?.degrees, 4)

        // Every value of the map within a range of persisted values.
        let readings = realm.objects(CPReading.self)
        XCTAssertEqual(readings.where { $0.byPlace.persistableValue.contains(0.0...200.0) }.count, 1)
        XCTAssertEqual(readings.where { $0.byPlace.persistableValue.contains(5.0..<200.0) }.count, 0)
    }

    func testObjectsFromRawAndFromCustomValues() throws {
        let fromRaw = CPReading(value: ["account": 1, "temperature": 20.5, "peak": 25.0, "tag": "hall",
                                        "source": "https://example.com", "history": [1.0, 2.0],
                                        "optionalHistory": [NSNull(), 4.0], "tags": ["x"], "byPlace": ["a": 3.0]] as [String: Any])
        XCTAssertEqual(fromRaw.temperature, CPCelsius(degrees: 20.5))
        XCTAssertEqual(fromRaw.peak, CPCelsius(degrees: 25))
        XCTAssertEqual(fromRaw.source?.url.host, "example.com")
        XCTAssertEqual(Array(fromRaw.optionalHistory), [nil, CPCelsius(degrees: 4)])

        let fromCustom = CPReading(value: ["account": CPAccountNumber(2), "temperature": CPCelsius(degrees: 7),
                                           "history": [CPCelsius(degrees: 8)], "byPlace": ["b": CPCelsius(degrees: 9)]] as [String: Any])
        XCTAssertEqual(fromCustom.history.first, CPCelsius(degrees: 8))

        try realm.write {
            realm.add(fromRaw)
            realm.add(fromCustom)
            let created = realm.create(CPReading.self, value: ["account": 3, "temperature": 30.0, "byPlace": ["c": 1.5]] as [String: Any])
            XCTAssertEqual(created.temperature.degrees, 30)
            XCTAssertEqual(created.byPlace["c"], CPCelsius(degrees: 1.5))
            // A copy of another object takes its custom values.
            let source = CPReading(value: fromCustom)
            source.account = CPAccountNumber(4)
            realm.create(CPReading.self, value: source)
        }
        XCTAssertEqual(realm.objects(CPReading.self).count, 4)
        XCTAssertEqual(realm.object(ofType: CPReading.self, forPrimaryKey: CPAccountNumber(4))?.history.first?.degrees, 8)
    }

    func testTypedQueriesComparePersistedValues() throws {
        try realm.write {
            for (i, degrees) in [5.0, 15.0, 25.0].enumerated() {
                realm.create(CPReading.self, value: ["account": i, "temperature": degrees, "tag": "t\(i)",
                                                     "history": [degrees, degrees + 1], "peak": i == 0 ? NSNull() : degrees as Any,
                                                     "source": i == 2 ? "https://b.example" : "https://a.example"] as [String: Any])
            }
        }
        let readings = realm.objects(CPReading.self)
        XCTAssertEqual(readings.where { $0.temperature == CPCelsius(degrees: 15) }.count, 1)
        XCTAssertEqual(readings.where { $0.temperature != CPCelsius(degrees: 15) }.count, 2)
        XCTAssertEqual(readings.where { $0.temperature > CPCelsius(degrees: 10) }.count, 2)
        XCTAssertEqual(readings.where { $0.temperature <= CPCelsius(degrees: 15) }.count, 2)
        XCTAssertEqual(readings.where { $0.peak > CPCelsius(degrees: 20) }.count, 1)
        XCTAssertEqual(readings.where { $0.peak == nil }.count, 1)
        XCTAssertEqual(readings.where { $0.temperature.in([CPCelsius(degrees: 5), CPCelsius(degrees: 25)]) }.count, 2)
        XCTAssertEqual(readings.where { $0.tag.starts(with: CPTag("t")) }.count, 3)
        XCTAssertEqual(readings.where { $0.tag.contains(CPTag("1")) }.count, 1)
        XCTAssertEqual(readings.where { $0.source.starts(with: CPWebAddress("https://b")) }.count, 1)
        XCTAssertEqual(readings.where { $0.tag.persistableValue.ends(with: "2") }.count, 1)
        XCTAssertEqual(readings.where { $0.history.contains(CPCelsius(degrees: 16)) }.count, 1)
        XCTAssertEqual(readings.where { $0.history > CPCelsius(degrees: 20) }.count, 1)
        XCTAssertEqual(readings.where { $0.account == CPAccountNumber(1) }.first?.tag, CPTag("t1"))

        // Query strings take either type as an argument.
        XCTAssertEqual(readings.filter("temperature > %@", CPCelsius(degrees: 10)).count, 2)
        XCTAssertEqual(readings.filter("temperature > %@", 10.0).count, 2)
        XCTAssertEqual(readings.filter("tag IN %@", [CPTag("t0"), CPTag("t2")]).count, 2)

        // A collection as its persisted type, for operators the custom type lacks.
        XCTAssertEqual(readings.where { $0.history.persistableValue.contains(15.0...16.0) }.count, 1)

        // Aggregates compute over the persisted values.
        XCTAssertEqual(readings.max(ofProperty: "temperature") as CPCelsius?, CPCelsius(degrees: 25))
        XCTAssertEqual(readings.sum(ofProperty: "temperature") as CPCelsius, CPCelsius(degrees: 45))
        XCTAssertEqual(readings.min(of: \.temperature), CPCelsius(degrees: 5))
        XCTAssertEqual(readings.where { $0.temperature > CPCelsius(degrees: 100) }.average(of: \.temperature), nil)

        // Sorting orders by the persisted values.
        XCTAssertEqual(readings.sorted(byKeyPath: "temperature", ascending: false).map(\.temperature.degrees), [25, 15, 5])
    }

    /// `sorted(by:)` takes a key path to a custom type (or an optional one) whose
    /// persisted type sorts, as the SDK's `sorted<T: _HasPersistedType>(by:ascending:)`.
    func testSortingByKeyPathsToCustomTypes() throws {
        try realm.write {
            for (i, degrees) in [15.0, 5.0, 25.0].enumerated() {
                realm.create(CPReading.self, value: ["account": i, "temperature": degrees, "tag": "t\(2 - i)",
                                                     "peak": i == 1 ? NSNull() : degrees as Any] as [String: Any])
            }
        }
        let readings = realm.objects(CPReading.self)
        XCTAssertEqual(readings.sorted(by: \.temperature).map(\.temperature.degrees), [5, 15, 25])
        XCTAssertEqual(readings.sorted(by: \.temperature, ascending: false).map(\.account.number), [2, 0, 1])
        XCTAssertEqual(readings.sorted(by: \.tag).map(\.tag.name), ["t0", "t1", "t2"])
        XCTAssertEqual(readings.sorted(by: \.peak).map { $0.peak?.degrees }, [nil, 15, 25], "nil first")
        XCTAssertEqual(readings.sorted(by: \.account, ascending: false).map(\.account.number), [2, 1, 0])
    }

    func testFailableConversionInOptionalPlacesIsNil() throws {
        let reading = CPReading(value: ["account": 1, "source": "not a web address", "links": ["https://ok.example", "nope"]] as [String: Any])
        XCTAssertNil(reading.source)
        XCTAssertEqual(reading.links.map { $0?.url.host }, ["ok.example", nil])

        try realm.write { realm.add(CPReading(value: ["account": 2])) }
        let stored = try XCTUnwrap(realm.object(ofType: CPReading.self, forPrimaryKey: 2))
        // Stored values that do not convert, written as the persisted type by a query-less path.
        try realm.write {
            stored.setValue("https://fine.example", forKey: "source")
            stored.links.append(CPWebAddress("https://x.example"))
        }
        XCTAssertEqual(stored.source?.url.host, "fine.example")
        try realm.write { realm.create(CPReading.self, value: ["account": 2, "source": "still not one"] as [String: Any], update: .modified) }
        XCTAssertNil(stored.source)
    }

    func testFailableConversionInNonOptionalPlacesStops() throws {
        assertStops(messageContains: "Could not convert value 'nope' to type 'CPWebAddress'.") {
            _ = CPReading(value: ["home": "nope"])
        }
        assertStops(messageContains: "Failed to default construct a CPNonZero using the default value for persisted type Int.") {
            _ = CPNonZeroHolder().value
        }
        assertStops(messageContains: "Failed to default construct a CPNonZero") {
            try! realm.write { _ = realm.create(CPNonZeroHolder.self) }
        }
    }

    func testFailableSetsConvertOrAreRefused() throws {
        try realm.write { realm.create(CPNonZeroWithDefault.self) }
        let object = try XCTUnwrap(realm.objects(CPNonZeroWithDefault.self).first)
        XCTAssertEqual(object.value.value, 7)
        XCTAssertNil(object.optional)
        try realm.write { object.setValue(5, forKey: "optional") }
        XCTAssertEqual(object.optional?.value, 5)
        try realm.write { object["value"] = 3 }
        XCTAssertEqual(object.value.value, 3)
        assertStops(messageContains: "Could not convert value '0' to type 'CPNonZero'.") {
            try! realm.write { object["value"] = 0 }
        }
    }

    /// A stored value that does not convert, written under the persisted type by a
    /// migration: nil where optional, a stop naming it where not.
    func testFailableReadOfAnUnconvertibleStoredValue() throws {
        var configuration = try makeFileConfiguration([CPNonZeroWithDefault.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(CPNonZeroWithDefault.self, value: ["optional": 2] as [String: Any]) }
        }
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "CPNonZeroWithDefault") { _, newObject in
                newObject!["value"] = 0
                newObject!["optional"] = 0
            }
        }
        let realm = try Realm(configuration: configuration)
        let object = try XCTUnwrap(realm.objects(CPNonZeroWithDefault.self).first)
        XCTAssertNil(object.optional)
        XCTAssertEqual(realm.objects(CPNonZeroWithDefault.self).where { $0.value.persistableValue == 0 }.count, 1)
        assertStops(messageContains: "Failed to convert persisted value '0' to type 'CPNonZero' in a non-optional context.") {
            _ = object.value
        }
    }
}
