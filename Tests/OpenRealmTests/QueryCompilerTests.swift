import Foundation
import ORCore
import XCTest
@testable import OpenRealmQuery

/// The compiler against real ORCore: RQL strings compiled for a schema created with the
/// C API, run with `orc_query_run`, and the matching objects checked; type errors
/// caught before ORCore sees them; and a randomized comparison with plain Swift.
final class QueryCompilerTests: XCTestCase {
    private var realm: QueryTestRealm!
    private var person: UInt32 = 0
    private var dog: UInt32 = 0
    private var names: [UInt64: String] = [:]      // Person keys
    private var dogNames: [UInt64: String] = [:]
    private var personKeys: [String: UInt64] = [:]
    private var dogKeys: [String: UInt64] = [:]
    private let uid = UUID(uuidString: "D1B186E1-E9E0-4768-A1A7-C492519D47EE")!

    private static func oid(_ n: Int) -> ObjectId {
        try! ObjectId(string: String(repeating: "0", count: 22) + String(format: "%02x", n))
    }

    private static func dec(_ s: String) -> QueryValue { .decimal(try! Decimal128(string: s)) }

    override func setUpWithError() throws {
        realm = try QueryTestRealm()
        try realm.beginWrite()
        dog = try realm.addClass("Dog")
        try realm.addProperty(dog, "name", .string)
        try realm.addProperty(dog, "age", .int)
        let address = try realm.addClass("Address", embedded: true)
        try realm.addProperty(address, "city", .string)
        try realm.addProperty(address, "zip", .int)
        person = try realm.addClass("Person")
        try realm.addProperty(person, "name", .string, indexed: true)
        try realm.addProperty(person, "age", .int, indexed: true)
        try realm.addProperty(person, "height", .double, optional: true)
        try realm.addProperty(person, "nickname", .string, optional: true)
        try realm.addProperty(person, "isActive", .bool)
        try realm.addProperty(person, "born", .timestamp)
        try realm.addProperty(person, "oid", .objectId)
        try realm.addProperty(person, "uid", .uuid, optional: true)
        try realm.addProperty(person, "score", .float)
        try realm.addProperty(person, "balance", .decimal)
        try realm.addProperty(person, "data", .binary, optional: true)
        try realm.addProperty(person, "tags", .string, .list)
        try realm.addProperty(person, "scores", .int, .list)
        try realm.addProperty(person, "dog", .link, target: "Dog")
        try realm.addProperty(person, "dogs", .link, .list, target: "Dog")
        try realm.addProperty(person, "attributes", .int, .dictionary)
        try realm.addProperty(person, "friends", .string, .set)
        try realm.addProperty(person, "address", .link, target: "Address")
        try realm.addProperty(person, "anything", .mixed, optional: true)
        try realm.addProperty(person, "pets", .link, .dictionary, optional: true, target: "Dog")
        realm.addLinkingObjects(dog, "owners", originClass: "Person", originProperty: "dogs")

        for (name, age) in [("Rex", 5), ("Fido", 3), ("Spot", 8)] {
            let k = try realm.create(dog, ["name": .string(name), "age": .int(Int64(age))])
            dogKeys[name] = k
            dogNames[k] = name
        }
        func link(_ n: String) -> QueryValue { .link(table: dog, key: dogKeys[n]!) }

        struct P {
            var name: String, age: Int64, height: Double?, nickname: String?, active: Bool, born: Int64, ns: Int32
            var score: Float, balance: String, data: [UInt8]?, tags: [String], scores: [Int64], dog: String?
            var dogs: [String], attributes: [String: Int64], friends: [String], address: (String, Int64)?
            var anything: QueryValue
        }
        let people = [
            P(name: "Ann", age: 30, height: 1.70, nickname: "annie", active: true, born: 1000, ns: 0, score: 1.5,
              balance: "100", data: [1, 2, 3], tags: ["comedy", "drama"], scores: [1, 5, 9], dog: "Rex",
              dogs: ["Rex", "Fido"], attributes: ["a": 1, "b": 2], friends: ["Bob", "Cat"], address: ("Oslo", 100),
              anything: .int(5)),
            P(name: "Bob", age: 25, height: nil, nickname: nil, active: false, born: 2000, ns: 500, score: 2.5,
              balance: "200", data: nil, tags: ["horror"], scores: [], dog: nil, dogs: [], attributes: ["a": 5],
              friends: [], address: ("Bergen", 200), anything: .string("hello")),
            P(name: "Cat", age: 35, height: 1.55, nickname: "Kitty", active: true, born: 3000, ns: 0, score: 0.5,
              balance: "-50", data: [9], tags: [], scores: [10, 20], dog: "Fido", dogs: ["Fido", "Spot", "Rex"],
              attributes: [:], friends: ["Ann"], address: nil, anything: .null),
            P(name: "Dan", age: 30, height: 1.80, nickname: "dan", active: false, born: 500, ns: 0, score: 1,
              balance: "0", data: nil, tags: ["Comedy", "action"], scores: [5], dog: "Spot", dogs: ["Spot"],
              attributes: ["b": 7], friends: [], address: ("oslo", 300), anything: .double(2.5)),
            P(name: "Eve", age: 40, height: 1.65, nickname: "Évé", active: true, born: 4000, ns: 0, score: 3,
              balance: "7", data: nil, tags: ["Drama"], scores: [3, 3, 3], dog: nil, dogs: ["Rex"],
              attributes: ["a": 1], friends: [], address: ("Tromsø", 400), anything: .bool(true)),
        ]
        for (i, p) in people.enumerated() {
            var values: [String: QueryValue] = [
                "name": .string(p.name), "age": .int(p.age), "height": p.height.map { .double($0) } ?? .null,
                "nickname": p.nickname.map { .string($0) } ?? .null, "isActive": .bool(p.active),
                "born": .timestamp(seconds: p.born, nanoseconds: p.ns), "oid": .objectId(Self.oid(i + 1)),
                "score": .float(p.score), "balance": Self.dec(p.balance),
                "data": p.data.map { .binary(Data($0)) } ?? .null, "anything": p.anything,
            ]
            if p.name == "Ann" { values["uid"] = .uuid(uid) }
            if let d = p.dog { values["dog"] = link(d) }
            let k = try realm.create(person, values)
            personKeys[p.name] = k
            names[k] = p.name
            try realm.append(person, k, "tags", p.tags.map { .string($0) })
            try realm.append(person, k, "scores", p.scores.map { .int($0) })
            try realm.append(person, k, "dogs", p.dogs.map(link))
            try realm.put(person, k, "attributes", p.attributes.mapValues { .int($0) })
            try realm.insert(person, k, "friends", p.friends.map { .string($0) })
            if p.name == "Ann" { try realm.put(person, k, "pets", ["first": link("Rex")]) }
            if p.name == "Dan" { try realm.put(person, k, "pets", ["first": link("Spot"), "second": link("Fido")]) }
            if let (city, zip) = p.address {
                try realm.createEmbedded(person, k, "address", childTable: address, ["city": .string(city), "zip": .int(zip)])
            }
        }
        try realm.commit()
    }

    override func tearDown() {
        realm = nil
    }

    // MARK: - Helpers

    /// The names of the Persons (or Dogs) matching `rql`, in result order.
    private func names(_ rql: String, _ args: [Any] = [], on className: String = "Person",
                       file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            let keys = try realm.run(rql, args, on: className)
            return keys.map { (className == "Dog" ? dogNames : names)[$0] ?? "?" }
        } catch {
            XCTFail("\(rql): \(error)", file: file, line: line)
            return ["<error>"]
        }
    }

    private func assertMatches(_ rql: String, on className: String = "Person", _ expected: Set<String>,
                               file: StaticString = #filePath, line: UInt = #line) {
        assertMatches(rql, [], on: className, expected, file: file, line: line)
    }

    private func assertMatches(_ rql: String, _ args: [Any], on className: String = "Person", _ expected: Set<String>,
                               file: StaticString = #filePath, line: UInt = #line) {
        let got = names(rql, args, on: className, file: file, line: line)
        XCTAssertEqual(Set(got), expected, rql, file: file, line: line)
        XCTAssertEqual(got.count, Set(got).count, "duplicates for \(rql)", file: file, line: line)
    }

    private func assertCompileFails(_ rql: String, _ args: [Any] = [], on className: String = "Person",
                                    kind: QueryError.Kind, mentions: [String],
                                    file: StaticString = #filePath, line: UInt = #line) {
        assertQueryError(kind, mentions: mentions, file: file, line: line) {
            let q = try QueryParser.parse(rql, arguments: args)
            let program = try QueryCompiler.compile(q, className: className, schema: realm.schema)
            return "compiled \(rql) to \(program.count) bytes"
        }
    }

    // MARK: - Results

    func testScalarComparisons() throws {
        assertMatches("age > 29", ["Ann", "Cat", "Dan", "Eve"])
        assertMatches("age == 30", ["Ann", "Dan"])
        assertMatches("30 == age", ["Ann", "Dan"])
        assertMatches("age != 30", ["Bob", "Cat", "Eve"])
        assertMatches("age == 30.0", ["Ann", "Dan"])
        assertMatches("age > 29.5", ["Ann", "Cat", "Dan", "Eve"])
        assertMatches("age == 30.5", [])
        assertMatches("age <= 30 AND age >= 30", ["Ann", "Dan"])
        assertMatches("age BETWEEN {30, 35}", ["Ann", "Cat", "Dan"])
        assertMatches("age BETWEEN {29.5, 35.0}", ["Ann", "Cat", "Dan"])
        assertMatches("age IN {25, 40, 99}", ["Bob", "Eve"])
        assertMatches("age IN {}", [])
        assertMatches("height > 1.6", ["Ann", "Dan", "Eve"])
        assertMatches("height > 1", ["Ann", "Cat", "Dan", "Eve"])
        assertMatches("height == nil", ["Bob"])
        assertMatches("height != nil", ["Ann", "Cat", "Dan", "Eve"])
        assertMatches("isActive == true", ["Ann", "Cat", "Eve"])
        assertMatches("isActive != true", ["Bob", "Dan"])
        assertMatches("born > T1500:0", ["Bob", "Cat", "Eve"])
        assertMatches("born == T2000:500", ["Bob"])
        assertMatches("born < 1970-01-01@00:16:40", ["Dan"])
        assertMatches("born BETWEEN {T1000:0, T2000:500}", ["Ann", "Bob"])
        assertMatches("oid == oid(000000000000000000000002)", ["Bob"])
        assertMatches("oid > oid(000000000000000000000003)", ["Dan", "Eve"])
        assertMatches("uid == $0", [uid], ["Ann"])
        assertMatches("uid == nil", ["Bob", "Cat", "Dan", "Eve"])
        assertMatches("score > 1", ["Ann", "Bob", "Eve"])
        assertMatches("score == 1.5", ["Ann"])
        assertMatches("score == 1", ["Dan"])
        assertMatches("score == 2.5f", ["Bob"])
        assertMatches("balance > 0", ["Ann", "Bob", "Eve"])
        assertMatches("balance < 0", ["Cat"])
        assertMatches("balance == 100", ["Ann"])
        assertMatches("balance == 100.0", ["Ann"])
        assertMatches("balance == decimal128(200)", ["Bob"])
        assertMatches("balance == $0", [try Decimal128(string: "7")], ["Eve"])
        assertMatches("data == B64\"AQID\"", ["Ann"])
        assertMatches("data == nil", ["Bob", "Dan", "Eve"])
        assertMatches("data == $0", [Data([9])], ["Cat"])
        assertMatches("data BEGINSWITH B64\"AQ==\"", ["Ann"])
        assertMatches("data BEGINSWITH '\\u0001'", ["Ann"])
        assertMatches("TRUEPREDICATE", ["Ann", "Bob", "Cat", "Dan", "Eve"])
        assertMatches("FALSEPREDICATE", [])
    }

    func testStrings() {
        assertMatches("name BEGINSWITH 'A'", ["Ann"])
        assertMatches("name CONTAINS[c] 'a'", ["Ann", "Cat", "Dan"])
        assertMatches("name ENDSWITH 'n'", ["Ann", "Dan"])
        assertMatches("name LIKE '?a?'", ["Cat", "Dan"])
        assertMatches("name LIKE[c] 'a*'", ["Ann"])
        assertMatches("name == 'ann'", [])
        assertMatches("name ==[c] 'ann'", ["Ann"])
        assertMatches("name IN {'Ann', 'Bob'}", ["Ann", "Bob"])
        assertMatches("name IN[c] {'ann', 'BOB'}", ["Ann", "Bob"])
        assertMatches("name > 'Cat'", ["Dan", "Eve"])
        assertMatches("nickname == nil", ["Bob"])
        assertMatches("nickname ==[c] 'KITTY'", ["Cat"])
        assertMatches("nickname ==[d] 'eve'", [])
        assertMatches("nickname ==[d] 'Eve'", ["Eve"])
        assertMatches("nickname ==[cd] 'eve'", ["Eve"])
        assertMatches("nickname LIKE '*n?e'", ["Ann"])
        assertMatches("'nn' CONTAINS name", [])
        assertMatches("'Dannie' CONTAINS name", ["Dan"])
        assertMatches("NOT name BEGINSWITH 'A' AND NOT name BEGINSWITH 'B'", ["Cat", "Dan", "Eve"])
        assertMatches("name == 'Ann' OR name == 'Bob' AND age > 100", ["Ann"])
        assertMatches("(name == 'Ann' OR name == 'Bob') AND age > 26", ["Ann"])
    }

    func testCollections() {
        assertMatches("'comedy' IN tags", ["Ann"])
        assertMatches("ANY tags == 'comedy'", ["Ann"])
        assertMatches("tags ==[c] 'comedy'", ["Ann", "Dan"])
        assertMatches("'COMEDY' IN[c] tags", ["Ann", "Dan"])
        assertMatches("ANY tags BEGINSWITH[c] 'd'", ["Ann", "Eve"])
        assertMatches("ALL tags BEGINSWITH[c] 'd'", ["Cat", "Eve"])
        assertMatches("NONE tags ==[c] 'comedy'", ["Bob", "Cat", "Eve"])
        assertMatches("tags IN {'horror', 'action'}", ["Bob", "Dan"])
        assertMatches("tags.@count == 0", ["Cat"])
        assertMatches("tags.@size >= 2", ["Ann", "Dan"])
        assertMatches("scores == 5", ["Ann", "Dan"])
        assertMatches("5 IN scores", ["Ann", "Dan"])
        assertMatches("ALL scores > 2", ["Bob", "Cat", "Dan", "Eve"])
        assertMatches("3 < ALL scores", ["Bob", "Cat", "Dan"])
        assertMatches("scores.@sum > 10", ["Ann", "Cat"])
        assertMatches("scores.@sum == 0", ["Bob"])
        assertMatches("scores.@avg == 3", ["Eve"])
        assertMatches("scores.@avg == nil", ["Bob"])
        assertMatches("scores.@max == 9", ["Ann"])
        assertMatches("scores.@min < 4", ["Ann", "Eve"])
        assertMatches("scores.@max > 9.5", ["Cat"])
        assertMatches("friends == 'Ann'", ["Cat"])
        assertMatches("friends.@count == 2", ["Ann"])
        assertMatches("attributes['a'] == 1", ["Ann", "Eve"])
        assertMatches("attributes[\"a\"] > 1", ["Bob"])
        assertMatches("attributes['a'] == nil", ["Cat", "Dan"])
        assertMatches("attributes.@keys == 'b'", ["Ann", "Dan"])
        assertMatches("attributes.@values > 4", ["Bob", "Dan"])
        assertMatches("attributes > 4", ["Bob", "Dan"])
        assertMatches("attributes.@count == 0", ["Cat"])
        assertMatches("attributes.@sum == 3", ["Ann"])
    }

    func testLinksEmbeddedAndBacklinks() {
        assertMatches("dog.name == 'Rex'", ["Ann"])
        assertMatches("dog == nil", ["Bob", "Eve"])
        assertMatches("dog != nil", ["Ann", "Cat", "Dan"])
        assertMatches("dog.age > 4", ["Ann", "Dan"])
        assertMatches("dog.name == nil", ["Bob", "Eve"])
        assertMatches("dog == $0", [QueryValue.link(table: dog, key: dogKeys["Fido"]!)], ["Cat"])
        assertMatches("dogs == $0", [QueryValue.link(table: dog, key: dogKeys["Rex"]!)], ["Ann", "Cat", "Eve"])
        assertMatches("dogs.name == 'Spot'", ["Cat", "Dan"])
        assertMatches("dogs.@count >= 2", ["Ann", "Cat"])
        assertMatches("ALL dogs.age > 4", ["Bob", "Dan", "Eve"])
        assertMatches("NONE dogs.age > 4", ["Bob"])
        assertMatches("dogs.@sum.age > 10", ["Cat"])
        assertMatches("dogs.age.@max == 8", ["Cat", "Dan"])
        assertMatches("address.city ==[c] 'oslo'", ["Ann", "Dan"])
        assertMatches("address == nil", ["Cat"])
        assertMatches("address.zip > 150", ["Bob", "Dan", "Eve"])
        assertMatches("address.city ==[cd] 'TROMSO'", ["Eve"])
        assertMatches("anything == 5", ["Ann"])
        assertMatches("anything == 5.0", ["Ann"])
        assertMatches("anything == 'hello'", ["Bob"])
        assertMatches("anything BEGINSWITH 'he'", ["Bob"])
        assertMatches("anything == nil", ["Cat"])
        assertMatches("anything > 2", ["Ann", "Dan"])
        assertMatches("anything == true", ["Eve"])
        assertMatches("dog IN dogs", ["Ann", "Cat", "Dan"])
        assertMatches("dog == pets['first']", ["Ann", "Dan", "Bob", "Eve"])   // null == null for Bob and Eve
        assertMatches("'Bob' IN friends", ["Ann"])
        assertMatches("name IN friends", [])
        assertMatches("dog.age < dogs.age", ["Cat"])
        assertMatches("pets['first'].name == 'Spot'", ["Dan"])
        assertMatches("pets['first'].age > 4", ["Ann", "Dan"])
        assertMatches("pets['second'] == nil", ["Ann", "Bob", "Cat", "Eve"])
        assertMatches("pets.name == 'Fido'", ["Dan"])
        assertMatches("pets.@count == 2", ["Dan"])
        assertMatches("pets.@keys == 'second'", ["Dan"])
        assertMatches("pets.@values == $0", [QueryValue.link(table: dog, key: dogKeys["Rex"]!)], ["Ann"])
        assertMatches("SUBQUERY(pets, $p, $p.age < 4).@count == 1", ["Dan"])
        assertMatches("@links.Person.pets.name == 'Ann'", on: "Dog", ["Rex"])
        assertMatches("SUBQUERY(dogs, $d, $d.age > 4).@count >= 1", ["Ann", "Cat", "Dan", "Eve"])
        assertMatches("SUBQUERY(dogs, $d, $d.age > 4 AND $d.name BEGINSWITH 'S').@count > 0", ["Cat", "Dan"])
        assertMatches("SUBQUERY(dogs, $d, $d.age > 4).@count == dogs.@count", ["Bob", "Dan", "Eve"])
        assertMatches("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $o.age > 36).@count > 0).@count > 0", ["Ann", "Cat", "Eve"])
        assertMatches("owners.@count > 2", on: "Dog", ["Rex"])
        assertMatches("owners.age > 36", on: "Dog", ["Rex"])
        assertMatches("@links.Person.dogs.name == 'Dan'", on: "Dog", ["Spot"])
        assertMatches("@links.Person.dog.name == 'Cat'", on: "Dog", ["Fido"])
        assertMatches("@links.Person.dog.@count == 1", on: "Dog", ["Rex", "Fido", "Spot"])
        assertMatches("ALL owners.isActive == true", on: "Dog", ["Rex", "Fido"])
        assertMatches("owners.dog.name == 'Fido'", on: "Dog", ["Rex", "Fido", "Spot"])
        assertMatches("owners.dog.name == 'Spot'", on: "Dog", ["Spot"])
    }

    func testArguments() throws {
        assertMatches("age > %@ AND name != %@", [29, "Dan"], ["Ann", "Cat", "Eve"])
        assertMatches("age > $1 AND name != $0", ["Dan", 29], ["Ann", "Cat", "Eve"])
        assertMatches("age IN $0", [[25, 35]], ["Bob", "Cat"])
        assertMatches("age IN %@", [Set([40])], ["Eve"])
        assertMatches("age BETWEEN $0", [[31, 40]], ["Cat", "Eve"])
        assertMatches("age == $0", [[25, 40]], ["Bob", "Eve"])
        assertMatches("%K == %@", ["dog.name", "Spot"], ["Dan"])
        assertMatches("height == $0", [Double?.none as Any], ["Bob"])
        assertMatches("born > $0", [Date(timeIntervalSince1970: 2000.25)], ["Cat", "Eve"])
        assertMatches("born >= $0", [Date(timeIntervalSince1970: 2000.0000005)], ["Bob", "Cat", "Eve"])
        assertMatches("oid == $0", [Self.oid(3)], ["Cat"])
        assertMatches("score == $0", [Float(0.5)], ["Cat"])
        assertMatches("score == $0", [0.5], ["Cat"])
        assertMatches("isActive == $0 AND age < $1", [true, Int8(36)], ["Ann", "Cat"])
        assertMatches("$0 IN tags", ["horror"], ["Bob"])
    }

    func testDescriptors() throws {
        XCTAssertEqual(names("TRUEPREDICATE SORT(age DESC, name ASC)"), ["Eve", "Cat", "Ann", "Dan", "Bob"])
        XCTAssertEqual(names("age > 0 SORT(name DESC) LIMIT(2)"), ["Eve", "Dan"])
        XCTAssertEqual(names("TRUEPREDICATE LIMIT(2) SORT(name DESC)"), ["Bob", "Ann"])
        XCTAssertEqual(names("TRUEPREDICATE SORT(address.zip DESC) LIMIT(3)"), ["Eve", "Dan", "Bob"])
        XCTAssertEqual(names("TRUEPREDICATE SORT(tags.@count DESC, name ASC)"), ["Ann", "Dan", "Bob", "Eve", "Cat"])
        XCTAssertEqual(names("TRUEPREDICATE SORT(age ASC) DISTINCT(age)"), ["Bob", "Ann", "Cat", "Eve"])
        XCTAssertEqual(names("TRUEPREDICATE DISTINCT(isActive) SORT(name ASC)"), ["Ann", "Bob"])
        XCTAssertEqual(names("TRUEPREDICATE LIMIT(0)"), [])

        // Descriptor bytes compiled alone append to any predicate.
        let compiler = QueryCompiler(schema: realm.schema)
        let predicate = try compiler.compile(try QueryParser.parse("age >= 30").predicate, className: "Person")
        let sort = try compiler.compileSort([("age", false), ("name", true)], className: "Person")
        let keys = try realm.run(program: predicate + sort, className: "Person").keys.map { names[$0]! }
        XCTAssertEqual(keys, ["Eve", "Cat", "Ann", "Dan"])
        let distinct = try compiler.compileDistinct(["isActive"], className: "Person")
        XCTAssertEqual(try realm.run(program: predicate + sort + distinct, className: "Person").keys.map { names[$0]! },
                       ["Eve", "Dan"])
        let limit = try compiler.compileDescriptors([.limit(1)], className: "Person")
        XCTAssertEqual(try realm.run(program: predicate + sort + limit, className: "Person").keys.map { names[$0]! }, ["Eve"])
        XCTAssertThrowsError(try compiler.compileSort([("tags", true)], className: "Person"))
        XCTAssertThrowsError(try compiler.compileSort([("nope", true)], className: "Person"))
        XCTAssertThrowsError(try compiler.compileDistinct(["a b"], className: "Person"))
    }

    func testAggregateTargets() throws {
        let compiler = QueryCompiler(schema: realm.schema)
        let all = try compiler.compile(ParsedQuery(predicate: .truePredicate), className: "Person")
        let age = try compiler.aggregateTarget("age", className: "Person", aggregate: .sum)
        XCTAssertEqual(age.type, .int)
        var v = try realm.aggregate(program: all, className: "Person", column: age.column, .sum)
        XCTAssertEqual(v.type, ORC_TYPE_INT)
        XCTAssertEqual(v.integer, 160)
        let born = try compiler.aggregateTarget("born", className: "Person", aggregate: .max)
        v = try realm.aggregate(program: all, className: "Person", column: born.column, .max)
        XCTAssertEqual(v.timestamp.seconds, 4000)
        XCTAssertThrowsError(try compiler.aggregateTarget("name", className: "Person", aggregate: .sum)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .typeMismatch)
        }
        XCTAssertThrowsError(try compiler.aggregateTarget("born", className: "Person", aggregate: .avg))
        XCTAssertThrowsError(try compiler.aggregateTarget("scores", className: "Person", aggregate: .sum)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .unsupported)
        }
        XCTAssertThrowsError(try compiler.aggregateTarget("dog.age", className: "Person", aggregate: .sum)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .unsupported)
        }
        XCTAssertThrowsError(try compiler.aggregateTarget("agee", className: "Person", aggregate: .min)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .unknownProperty)
        }
        // A path compiled alone is ORCore path bytes: one property step, no aggregate.
        let col = realm.column(person, "age")
        XCTAssertEqual(try compiler.compilePath(QueryKeyPath("age"), className: "Person"),
                       [1, 0x00, UInt8(col & 0xFF), UInt8(col >> 8), 0])
    }

    func testConstantsAreConvertedSoIndexesApply() throws {
        for rql in ["age == 30", "age == 30.0", "age IN {30.0, 25}", "name == 'Ann'", "age BETWEEN {29.0, 31.0}"] {
            let program = try QueryCompiler.compile(try QueryParser.parse(rql), className: "Person", schema: realm.schema)
            let r = try realm.run(program: program, className: "Person")
            XCTAssertTrue(r.usedIndex, rql)
        }
        // A non-integral double against an int property is kept (and scans).
        let program = try QueryCompiler.compile(try QueryParser.parse("age == 30.5"), className: "Person", schema: realm.schema)
        XCTAssertEqual(Array(program.suffix(9)), [4] + withUnsafeBytes(of: (30.5).bitPattern.littleEndian) { Array($0) })
    }

    // MARK: - Compile errors

    func testUnknownPropertiesAndClasses() {
        assertCompileFails("agee > 5", kind: .unknownProperty, mentions: ["'agee'", "'Person'"])
        assertCompileFails("dog.nme == 'x'", kind: .unknownProperty, mentions: ["'nme'", "'Dog'", "dog.nme"])
        assertCompileFails("name.first == 'x'", kind: .unknownProperty, mentions: ["'Person.name'", "'first'"])
        assertCompileFails("@links.Nope.x == 1", on: "Dog", kind: .unknownProperty, mentions: ["'Nope'"])
        assertCompileFails("@links.Person.nope.@count > 1", on: "Dog", kind: .unknownProperty, mentions: ["'Person'", "'nope'"])
        assertCompileFails("SUBQUERY(dogs, $d, $d.wings > 1).@count > 0", kind: .unknownProperty, mentions: ["'wings'", "'Dog'"])
        assertCompileFails("TRUEPREDICATE SORT(nope ASC)", kind: .unknownProperty, mentions: ["'nope'"])
        assertCompileFails("age > 1", on: "Nobody", kind: .unknownProperty, mentions: ["'Nobody'"])
    }

    func testTypeMismatches() {
        assertCompileFails("age == 'abc'", kind: .typeMismatch, mentions: ["'Person.age'", "int", "\"abc\"", "string"])
        assertCompileFails("name > 5", kind: .typeMismatch, mentions: ["'Person.name'", "5"])
        assertCompileFails("isActive > true", kind: .typeMismatch, mentions: ["'>'", "'Person.isActive'", "bool"])
        assertCompileFails("dog > $0", [QueryValue.link(table: dog, key: 0)], kind: .typeMismatch, mentions: ["'Person.dog'"])
        assertCompileFails("age BEGINSWITH '1'", kind: .typeMismatch, mentions: ["BEGINSWITH", "'Person.age'"])
        assertCompileFails("age ==[c] 5", kind: .typeMismatch, mentions: ["[c]", "'Person.age'"])
        assertCompileFails("age == nil", kind: .typeMismatch, mentions: ["'Person.age'", "nil", "not optional"])
        assertCompileFails("tags == nil", kind: .typeMismatch, mentions: ["'Person.tags'", "nil"])
        assertCompileFails("height < nil", kind: .typeMismatch, mentions: ["'<'", "nil"])
        assertCompileFails("dog == $0", [QueryValue.link(table: person, key: 1)], kind: .typeMismatch,
                           mentions: ["'Person.dog'", "another class"])
        assertCompileFails("oid == 'abc'", kind: .typeMismatch, mentions: ["'Person.oid'", "ObjectId"])
        assertCompileFails("born == 5", kind: .typeMismatch, mentions: ["'Person.born'", "date"])
        assertCompileFails("uid == $0", [Self.oid(1)], kind: .typeMismatch, mentions: ["'Person.uid'", "UUID", "ObjectId"])
        assertCompileFails("tags.@sum > 1", kind: .typeMismatch, mentions: ["@sum", "'Person.tags.@sum'"])
        assertCompileFails("age.@count > 1", kind: .typeMismatch, mentions: ["@count", "'Person.age.@count'"])
        assertCompileFails("tags.@keys == 'a'", kind: .typeMismatch, mentions: ["@keys", "dictionary"])
        assertCompileFails("age['k'] == 1", kind: .typeMismatch, mentions: ["[\"k\"]", "dictionary"])
        assertCompileFails("@links.Dog.name.@count > 0", kind: .typeMismatch, mentions: ["'Dog.name'", "'Person'"])
        assertCompileFails("SUBQUERY(tags, $x, $x == 'a').@count > 0", kind: .typeMismatch, mentions: ["SUBQUERY", "'Person.tags'"])
        assertCompileFails("SUBQUERY(dogs, $x, $x.age > 1).@count == 'x'", kind: .typeMismatch, mentions: ["SUBQUERY"])
        assertCompileFails("name == age", kind: .typeMismatch, mentions: ["'Person.name'", "'Person.age'"])
        assertCompileFails("dog == address", kind: .typeMismatch, mentions: ["'Person.dog'", "'Person.address'"])
        assertCompileFails("TRUEPREDICATE SORT(tags ASC)", kind: .typeMismatch, mentions: ["SORT", "'Person.tags'"])
        assertCompileFails("TRUEPREDICATE DISTINCT(dogs.name)", kind: .typeMismatch, mentions: ["DISTINCT", "'Person.dogs.name'"])
        assertCompileFails("TRUEPREDICATE SORT(dog ASC)", kind: .typeMismatch, mentions: ["SORT", "'Person.dog'"])
        assertCompileFails("age == $0", kind: .badArgument, mentions: ["$0"])
        // Constants the operator cannot take, whatever the other side (ORCore refuses them too).
        assertCompileFails("true CONTAINS anything", kind: .typeMismatch, mentions: ["'CONTAINS'", "true", "bool"])
        assertCompileFails("5 BEGINSWITH[c] anything", kind: .typeMismatch, mentions: ["'BEGINSWITH'", "5", "int"])
        assertCompileFails("anything LIKE 5", kind: .typeMismatch, mentions: ["'LIKE'", "5"])
        assertCompileFails("5 BEGINSWITH 5", kind: .typeMismatch, mentions: ["'BEGINSWITH'", "5"])
        assertCompileFails("true < false", kind: .typeMismatch, mentions: ["'<'", "true", "bool"])
        assertCompileFails("$0 == $1", [QueryValue.link(table: dog, key: 1), QueryValue.link(table: person, key: 1)],
                           kind: .typeMismatch, mentions: ["cannot compare"])
    }

    func testDeepPredicatesStopAtORCoresLimit() throws {
        func nested(_ n: Int) -> String {
            (0..<n).reduce("age > 0") { inner, i in "NOT (age == \(i + 100) OR \(inner))" }
        }
        // 31 levels of NOT + OR: 63 predicates deep with the leaf.
        assertMatches(nested(31), [])
        // Under an OR: 64 deep, ORCore's limit.
        assertMatches("age > 26 OR " + nested(31), ["Ann", "Cat", "Dan", "Eve"])
        // Under an AND and an OR: 65 deep.
        assertCompileFails("age > 0 AND (age > 26 OR " + nested(31) + ")", kind: .unsupported, mentions: ["64"])
        assertCompileFails(nested(40), kind: .unsupported, mentions: ["64"])
    }

    /// Every compiled program is accepted by ORCore; a hand-built tree with unbound
    /// placeholders is refused before it gets there.
    func testHandBuiltTrees() throws {
        let q = ParsedQuery(predicate: .and([
            .comparison(QueryComparison(.keyPath("age"), .greaterThan, .value(.int(26)))),
            .comparison(QueryComparison(.value(.string("comedy")), .in, .keyPath("tags"), options: .caseInsensitive)),
            .not(.comparison(QueryComparison(.keyPath("dog.name"), .equal, .value(.string("Rex"))))),
        ]), descriptors: [.sort([QuerySortKey("name", ascending: false)])])
        let program = try QueryCompiler.compile(q, className: "Person", schema: realm.schema)
        XCTAssertEqual(try realm.run(program: program, className: "Person").keys.map { names[$0]! }, ["Dan"])
        let unbound = ParsedQuery(predicate: .comparison(QueryComparison(.keyPath("age"), .in, .list([.argument(2)]))))
        XCTAssertThrowsError(try QueryCompiler.compile(unbound, className: "Person", schema: realm.schema)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .badArgument)
        }
    }
}
