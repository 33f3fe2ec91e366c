import Foundation
import XCTest
import OpenRealm

// MARK: - Models (the `QT` prefix keeps them apart from other test files' models)

enum QTLevel: Int, PersistableEnum {
    case low = 1, medium, high
}

final class QTPerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var nickname: String?
    @Persisted(originProperty: "owner") var ownedTasks: LinkingObjects<QTTask>
    @Persisted(originProperty: "people") var teams: LinkingObjects<QTTeam>
}

final class QTTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var taskName: String
    @Persisted var assignee: String?
    @Persisted var completed: Bool
    @Persisted var progressMinutes: Int
    @Persisted var dueDate: Date
    @Persisted var priority: Int
    @Persisted var level: QTLevel
    @Persisted var owner: QTPerson?
}

final class QTTeam: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var teamName: String
    @Persisted var tasks: List<QTTask>
    @Persisted var members: List<String>
    @Persisted var scores: List<Int>
    @Persisted var ratings: List<Double>
    @Persisted var tags: MutableSet<String>
    @Persisted var people: List<QTPerson>
}

final class QTMovie: Object {
    @Persisted var title: String
    @Persisted var genres: List<String>
}

/// One property of every type, required and optional.
final class QTValues: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var boolCol: Bool
    @Persisted var intCol: Int
    @Persisted var int8Col: Int8
    @Persisted var int16Col: Int16
    @Persisted var int32Col: Int32
    @Persisted var int64Col: Int64
    @Persisted var floatCol: Float
    @Persisted var doubleCol: Double
    @Persisted var stringCol: String
    @Persisted var dataCol: Data
    @Persisted var dateCol: Date
    @Persisted var decimalCol: Decimal128
    @Persisted var objectIdCol: ObjectId
    @Persisted var uuidCol: UUID
    @Persisted var optBoolCol: Bool?
    @Persisted var optIntCol: Int?
    @Persisted var optInt8Col: Int8?
    @Persisted var optInt16Col: Int16?
    @Persisted var optInt32Col: Int32?
    @Persisted var optInt64Col: Int64?
    @Persisted var optFloatCol: Float?
    @Persisted var optDoubleCol: Double?
    @Persisted var optStringCol: String?
    @Persisted var optDataCol: Data?
    @Persisted var optDateCol: Date?
    @Persisted var optDecimalCol: Decimal128?
    @Persisted var optObjectIdCol: ObjectId?
    @Persisted var optUUIDCol: UUID?
    @Persisted var anyCol: AnyRealmValue
}

final class QTText: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var text: String
    @Persisted var optText: String?
    @Persisted var bytes: Data
}

// MARK: - Helpers

/// A fresh in-memory realm of its own for one test.
func qtInMemoryRealm(_ types: [ObjectBase.Type], _ tag: String = "qt") throws -> Realm {
    try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(tag)-\(UUID().uuidString)", objectTypes: types))
}

/// The Realm.Error a throwing call raised, or nil (with a failure) when it did not throw one.
func qtRealmError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> Realm.Error? {
    do {
        try body()
        XCTFail("expected a Realm.Error, nothing was thrown", file: file, line: line)
        return nil
    } catch let error as Realm.Error {
        return error
    } catch {
        XCTFail("expected a Realm.Error, got \(error)", file: file, line: line)
        return nil
    }
}

/// `results.filter(rql, args)` through the throwing variant: a refused query fails the
/// test (with the message) instead of stopping the whole run.
func qtFilter<T>(_ results: Results<T>, _ rql: String, _ args: [Any] = [],
                 file: StaticString = #filePath, line: UInt = #line) -> Results<T>? {
    do {
        return try results.filter(rql, arguments: args)
    } catch {
        XCTFail("\(rql) was refused: \(error)", file: file, line: line)
        return nil
    }
}

// MARK: - Tests

final class QueryTests: XCTestCase {
    var realm: Realm!
    var people: [String: QTPerson] = [:]
    var tasks: [String: QTTask] = [:]

    static let allTypes: [ObjectBase.Type] = [QTPerson.self, QTTask.self, QTTeam.self, QTMovie.self, QTValues.self, QTText.self]

    override func setUpWithError() throws {
        realm = try qtInMemoryRealm(Self.allTypes, "qt-query")
        try realm.write {
            func person(_ name: String, _ age: Int, _ nickname: String? = nil) -> QTPerson {
                let p = realm.create(QTPerson.self, value: ["name": name, "age": age, "nickname": nickname as Any])
                people[name] = p
                return p
            }
            let ali = person("Ali", 30), bea = person("Bea", 25, "B"), cem = person("Cem", 41)
            func task(_ name: String, _ assignee: String?, _ completed: Bool, _ minutes: Int, _ priority: Int,
                      _ owner: QTPerson?, _ level: QTLevel) -> QTTask {
                let t = QTTask()
                t.taskName = name
                t.assignee = assignee
                t.completed = completed
                t.progressMinutes = minutes
                t.priority = priority
                t.owner = owner
                t.level = level
                t.dueDate = Date(timeIntervalSince1970: TimeInterval(1_700_000_000 + minutes * 60))
                realm.add(t)
                tasks[name] = t
                return t
            }
            let t0 = task("Write docs", "Ali", false, 10, 1, ali, .low)
            let t1 = task("Review PR", nil, true, 60, 2, bea, .medium)
            let t2 = task("Fix bug", "Bea", false, 90, 3, ali, .high)
            let t3 = task("Deploy", "Cem", true, 120, 4, nil, .high)
            let t4 = task("Écrire tests", "ali", false, 45, 2, cem, .medium)

            func team(_ name: String, _ ts: [QTTask], _ members: [String], _ scores: [Int], _ ratings: [Double],
                      _ tags: [String], _ ps: [QTPerson]) {
                let team = QTTeam()
                team.teamName = name
                team.tasks.append(objectsIn: ts)
                team.members.append(objectsIn: members)
                team.scores.append(objectsIn: scores)
                team.ratings.append(objectsIn: ratings)
                team.tags.insert(objectsIn: tags)
                team.people.append(objectsIn: ps)
                realm.add(team)
            }
            team("Docs", [t0, t1], ["Bob Smith", "Ann"], [1, 5, 9], [4.5, 3.0], ["a", "b"], [ali, bea])
            team("Dev", [t2, t3, t4], ["Carl"], [], [2.0], [], [cem])
            team("Ops", [], ["Bob Smith"], [10], [], ["b"], [])

            for (title, genres) in [("Airplane!", ["comedy"]), ("Alien", ["horror", "scifi"]),
                                    ("Scary Movie", ["comedy", "horror"]), ("Heat", [])] {
                let movie = QTMovie()
                movie.title = title
                movie.genres.append(objectsIn: genres)
                realm.add(movie)
            }
        }
    }

    override func tearDown() {
        realm = nil
        people = [:]
        tasks = [:]
    }

    var allTasks: Results<QTTask> { realm.objects(QTTask.self) }
    var allTeams: Results<QTTeam> { realm.objects(QTTeam.self) }
    var allPeople: Results<QTPerson> { realm.objects(QTPerson.self) }

    /// Checks that a typed query and an RQL query select `expected` (by name, any order)
    /// and render the same canonical string.
    func check<T: Object>(_ typed: Results<T>, _ rql: Results<T>, _ expected: [String], _ name: KeyPath<T, String>,
                          file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(typed.map { $0[keyPath: name] }.sorted(), expected.sorted(), "typed: \(typed.queryDescription)", file: file, line: line)
        XCTAssertEqual(rql.map { $0[keyPath: name] }.sorted(), expected.sorted(), "RQL: \(rql.queryDescription)", file: file, line: line)
        XCTAssertEqual(typed.queryDescription, rql.queryDescription, file: file, line: line)
        XCTAssertEqual(typed.count, expected.count, file: file, line: line)
    }

    func checkTasks(_ typed: (Query<QTTask>) -> Query<Bool>, _ rql: String, _ args: Any..., expected: [String],
                    file: StaticString = #filePath, line: UInt = #line) {
        guard let parsed = qtFilter(allTasks, rql, args, file: file, line: line) else { return }
        check(allTasks.where(typed), parsed, expected, \.taskName, file: file, line: line)
    }

    func checkTeams(_ typed: (Query<QTTeam>) -> Query<Bool>, _ rql: String, _ args: Any..., expected: [String],
                    file: StaticString = #filePath, line: UInt = #line) {
        guard let parsed = qtFilter(allTeams, rql, args, file: file, line: line) else { return }
        check(allTeams.where(typed), parsed, expected, \.teamName, file: file, line: line)
    }

    func checkPeople(_ typed: (Query<QTPerson>) -> Query<Bool>, _ rql: String, _ args: Any..., expected: [String],
                     file: StaticString = #filePath, line: UInt = #line) {
        guard let parsed = qtFilter(allPeople, rql, args, file: file, line: line) else { return }
        check(allPeople.where(typed), parsed, expected, \.name, file: file, line: line)
    }

    /// The names an RQL query selects (for forms with no typed equivalent), sorted.
    func taskNames(_ rql: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        qtFilter(allTasks, rql, args, file: file, line: line)?.map(\.taskName).sorted() ?? ["<refused>"]
    }

    func teamNames(_ rql: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        qtFilter(allTeams, rql, args, file: file, line: line)?.map(\.teamName).sorted() ?? ["<refused>"]
    }

    func personNames(_ rql: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        qtFilter(allPeople, rql, args, file: file, line: line)?.map(\.name).sorted() ?? ["<refused>"]
    }

    // MARK: The seeds' queries

    func testSeedProgressMinutes() {
        checkTasks({ $0.progressMinutes >= 60 }, "progressMinutes >= 60", expected: ["Review PR", "Fix bug", "Deploy"])
        XCTAssertEqual(allTasks.where { $0.progressMinutes >= 60 }.queryDescription, "progressMinutes >= 60")
    }

    func testSeedTeamNameAndAssignee() {
        checkTeams({ $0.teamName == "Docs" }, "teamName == 'Docs'", expected: ["Docs"])
        checkTasks({ $0.assignee == "Bea" }, "assignee == \"Bea\"", expected: ["Fix bug"])
        checkTasks({ $0.completed == false }, "completed == false", expected: ["Write docs", "Fix bug", "Écrire tests"])
    }

    func testSeedMembersContains() {
        checkTeams({ $0.members.contains("Bob Smith") }, "'Bob Smith' IN members", expected: ["Docs", "Ops"])
        XCTAssertEqual(teamNames("members == 'Bob Smith'"), ["Docs", "Ops"])
        XCTAssertEqual(teamNames("ANY members == 'Bob Smith'"), ["Docs", "Ops"])
    }

    func testSeedPriorityIn() {
        checkTasks({ $0.priority.in([1, 2, 3]) }, "priority IN {1, 2, 3}",
                   expected: ["Write docs", "Review PR", "Fix bug", "Écrire tests"])
        XCTAssertEqual(taskNames("priority IN { 1, 2, 3 }"), ["Fix bug", "Review PR", "Write docs", "Écrire tests"])
        XCTAssertEqual(taskNames("priority IN $0", [4, 9]), ["Deploy"])
        XCTAssertEqual(taskNames("priority IN {}"), [])
        XCTAssertEqual(taskNames("NOT priority IN {1, 2}"), ["Deploy", "Fix bug"])
    }

    func testSeedComedyInGenres() {
        let movies = realm.objects(QTMovie.self)
        check(movies.where { $0.genres.contains("comedy") }, movies.filter("'comedy' IN genres"),
              ["Airplane!", "Scary Movie"], \.title)
        XCTAssertEqual(movies.filter("NOT 'comedy' IN genres").map(\.title).sorted(), ["Alien", "Heat"])
        XCTAssertEqual(movies.filter("genres.@count == 0").map(\.title), ["Heat"])
    }

    // MARK: Comparisons on every type

    func testComparisonsOnEveryType() throws {
        let dates = [Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 2000.5), Date(timeIntervalSince1970: 3000)]
        let oids = [try ObjectId(string: "000000000000000000000001"), try ObjectId(string: "0000000000000000000000aa"),
                    try ObjectId(string: "ff0000000000000000000000")]
        let uuids = [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "10000000-0000-0000-0000-000000000000")!,
                     UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!]
        let decimals: [Decimal128] = ["-1.5", "2.25", "1000"]
        try realm.write {
            for i in 0..<3 {
                let v = QTValues()
                v.id = i
                v.boolCol = i == 1
                v.intCol = [-5, 0, 7][i]
                v.int8Col = [Int8.min, 0, Int8.max][i]
                v.int16Col = [-300, 2, 300][i]
                v.int32Col = [-70_000, 1, 70_000][i]
                v.int64Col = [Int64.min, 42, Int64.max][i]
                v.floatCol = [-1.5, 0.25, 2.5][i]
                v.doubleCol = [-2.5, 0.125, 1e10][i]
                v.stringCol = ["apple", "banana", "cherry"][i]
                v.dataCol = [Data([0]), Data([1, 2]), Data([1, 3])][i]
                v.dateCol = dates[i]
                v.decimalCol = decimals[i]
                v.objectIdCol = oids[i]
                v.uuidCol = uuids[i]
                // Optionals: nil, the smallest value, the middle one.
                if i > 0 {
                    v.optBoolCol = i == 2
                    v.optIntCol = [-5, 0, 7][i - 1]
                    v.optInt8Col = [Int8.min, 0, Int8.max][i - 1]
                    v.optInt16Col = [-300, 2, 300][i - 1]
                    v.optInt32Col = [-70_000, 1, 70_000][i - 1]
                    v.optInt64Col = [Int64.min, 42, Int64.max][i - 1]
                    v.optFloatCol = [-1.5, 0.25, 2.5][i - 1]
                    v.optDoubleCol = [-2.5, 0.125, 1e10][i - 1]
                    v.optStringCol = ["apple", "banana", "cherry"][i - 1]
                    v.optDataCol = [Data([0]), Data([1, 2]), Data([1, 3])][i - 1]
                    v.optDateCol = dates[i - 1]
                    v.optDecimalCol = decimals[i - 1]
                    v.optObjectIdCol = oids[i - 1]
                    v.optUUIDCol = uuids[i - 1]
                }
                realm.add(v)
            }
        }
        checkOrdered(\.intCol, "intCol", [-5, 0, 7])
        checkOrdered(\.int8Col, "int8Col", [Int8.min, 0, Int8.max])
        checkOrdered(\.int16Col, "int16Col", [-300, 2, 300])
        checkOrdered(\.int32Col, "int32Col", [-70_000, 1, 70_000])
        checkOrdered(\.int64Col, "int64Col", [Int64.min, 42, Int64.max])
        checkOrdered(\.floatCol, "floatCol", [-1.5, 0.25, 2.5])
        checkOrdered(\.doubleCol, "doubleCol", [-2.5, 0.125, 1e10])
        checkOrdered(\.stringCol, "stringCol", ["apple", "banana", "cherry"])
        checkOrdered(\.dateCol, "dateCol", dates)
        checkOrdered(\.decimalCol, "decimalCol", decimals)
        checkOrdered(\.objectIdCol, "objectIdCol", oids)
        checkOrdered(\.uuidCol, "uuidCol", uuids)
        checkEquality(\.boolCol, "boolCol", [false, true, false])
        checkEquality(\.dataCol, "dataCol", [Data([0]), Data([1, 2]), Data([1, 3])])

        checkOptionalOrdered(\.optIntCol, "optIntCol", [-5, 0])
        checkOptionalOrdered(\.optInt8Col, "optInt8Col", [Int8.min, 0])
        checkOptionalOrdered(\.optInt16Col, "optInt16Col", [-300, 2])
        checkOptionalOrdered(\.optInt32Col, "optInt32Col", [-70_000, 1])
        checkOptionalOrdered(\.optInt64Col, "optInt64Col", [Int64.min, 42])
        checkOptionalOrdered(\.optFloatCol, "optFloatCol", [-1.5, 0.25])
        checkOptionalOrdered(\.optDoubleCol, "optDoubleCol", [-2.5, 0.125])
        checkOptionalOrdered(\.optStringCol, "optStringCol", ["apple", "banana"])
        checkOptionalOrdered(\.optDateCol, "optDateCol", [dates[0], dates[1]])
        checkOptionalOrdered(\.optDecimalCol, "optDecimalCol", [decimals[0], decimals[1]])
        checkOptionalOrdered(\.optObjectIdCol, "optObjectIdCol", [oids[0], oids[1]])
        checkOptionalOrdered(\.optUUIDCol, "optUUIDCol", [uuids[0], uuids[1]])
        checkEquality(\.optBoolCol, "optBoolCol", [nil, false, true])
        checkEquality(\.optDataCol, "optDataCol", [nil, Data([0]), Data([1, 2])])

        // Literal spellings of constants of each type.
        let values = realm.objects(QTValues.self)
        func ids(_ rql: String) -> [Int] { values.filter(rql).map(\.id).sorted() }
        XCTAssertEqual(ids("intCol > -1"), [1, 2])
        XCTAssertEqual(ids("intCol == 0x7"), [2])
        XCTAssertEqual(ids("int64Col == 9223372036854775807"), [2])
        XCTAssertEqual(ids("int64Col == -9223372036854775808"), [0])
        XCTAssertEqual(ids("floatCol == 0.25"), [1])
        XCTAssertEqual(ids("floatCol < 0.0f"), [0])
        XCTAssertEqual(ids("doubleCol > 1e9"), [2])
        XCTAssertEqual(ids("doubleCol < 0"), [0])
        XCTAssertEqual(ids("intCol == 7.0"), [2])
        XCTAssertEqual(ids("intCol < 0.5"), [0, 1])
        XCTAssertEqual(ids("stringCol == \"banana\""), [1])
        XCTAssertEqual(ids("stringCol >= 'b'"), [1, 2])
        XCTAssertEqual(ids("boolCol == true"), [1])
        XCTAssertEqual(ids("boolCol == FALSE"), [0, 2])
        XCTAssertEqual(ids("dateCol > T2000:0"), [1, 2])
        XCTAssertEqual(ids("dateCol == T2000:500000000"), [1])
        XCTAssertEqual(ids("dateCol < 1970-01-01@00:33:20"), [0])
        XCTAssertEqual(ids("decimalCol > decimal128(2)"), [1, 2])
        XCTAssertEqual(ids("decimalCol == 1000"), [2])
        XCTAssertEqual(ids("objectIdCol == oid(0000000000000000000000aa)"), [1])
        XCTAssertEqual(ids("uuidCol == uuid(10000000-0000-0000-0000-000000000000)"), [1])
        XCTAssertEqual(ids("dataCol == B64\"AQI=\""), [1])
        XCTAssertEqual(ids("optIntCol == nil"), [0])
        XCTAssertEqual(ids("optIntCol == NULL"), [0])
        XCTAssertEqual(ids("optStringCol != nil"), [1, 2])
        XCTAssertEqual(ids("optDateCol == nil OR optDateCol > T1500:0"), [0, 2])
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=` against the middle of three ascending values,
    /// typed and in RQL with a `$0` argument, checked against Swift's own comparison.
    func checkOrdered<V: _Persistable & _QueryComparable & Comparable>(
        _ keyPath: KeyPath<QTValues, V>, _ name: String, _ values: [V], file: StaticString = #filePath, line: UInt = #line
    ) {
        let pivot = values[1]
        let all = realm.objects(QTValues.self)
        let cases: [(String, (Query<V>) -> Query<Bool>, (V, V) -> Bool)] = [
            ("==", { $0 == pivot }, { $0 == $1 }),
            ("!=", { $0 != pivot }, { $0 != $1 }),
            ("<", { $0 < pivot }, { $0 < $1 }),
            ("<=", { $0 <= pivot }, { $0 <= $1 }),
            (">", { $0 > pivot }, { $0 > $1 }),
            (">=", { $0 >= pivot }, { $0 >= $1 }),
        ]
        for (op, typed, swift) in cases {
            let expected = values.indices.filter { swift(values[$0], pivot) }
            let t = all.where { typed($0[dynamicMember: keyPath]) }
            let r = all.filter("\(name) \(op) $0", pivot)
            XCTAssertEqual(t.map(\.id).sorted(), expected, "typed \(name) \(op) \(pivot)", file: file, line: line)
            XCTAssertEqual(r.map(\.id).sorted(), expected, "RQL \(name) \(op) \(pivot)", file: file, line: line)
            XCTAssertEqual(t.queryDescription, r.queryDescription, file: file, line: line)
        }
        // Column against column: every object equals itself.
        XCTAssertEqual(all.where { $0[dynamicMember: keyPath] == $0[dynamicMember: keyPath] }.count, 3, name, file: file, line: line)
        XCTAssertEqual(all.filter("\(name) < \(name)").count, 0, name, file: file, line: line)
        // BETWEEN: the closed range from the first to the middle value.
        let between = all.where { $0[dynamicMember: keyPath].contains(values[0]...values[1]) }
        let betweenRQL = all.filter("\(name) BETWEEN {$0, $1}", values[0], values[1])
        XCTAssertEqual(between.map(\.id).sorted(), [0, 1], "BETWEEN \(name)", file: file, line: line)
        XCTAssertEqual(betweenRQL.map(\.id).sorted(), [0, 1], "BETWEEN \(name)", file: file, line: line)
        XCTAssertEqual(between.queryDescription, betweenRQL.queryDescription, file: file, line: line)
        XCTAssertEqual(all.filter("\(name) BETWEEN $0", [values[1], values[2]]).map(\.id).sorted(), [1, 2], file: file, line: line)
        // IN.
        let inTyped = all.where { $0[dynamicMember: keyPath].in([values[0], values[2]]) }
        let inRQL = all.filter("\(name) IN {$0, $1}", values[0], values[2])
        XCTAssertEqual(inTyped.map(\.id).sorted(), [0, 2], "IN \(name)", file: file, line: line)
        XCTAssertEqual(inRQL.map(\.id).sorted(), [0, 2], "IN \(name)", file: file, line: line)
        XCTAssertEqual(inTyped.queryDescription, inRQL.queryDescription, file: file, line: line)
    }

    /// `==` and `!=` (types without an order, and optionals with nil among the values).
    func checkEquality<V: _Persistable & Equatable>(
        _ keyPath: KeyPath<QTValues, V>, _ name: String, _ values: [V], file: StaticString = #filePath, line: UInt = #line
    ) {
        let all = realm.objects(QTValues.self)
        for pivot in values {
            let eq = values.indices.filter { values[$0] == pivot }
            let ne = values.indices.filter { values[$0] != pivot }
            let t1 = all.where { $0[dynamicMember: keyPath] == pivot }, r1 = all.filter("\(name) == $0", pivot as Any)
            let t2 = all.where { $0[dynamicMember: keyPath] != pivot }, r2 = all.filter("\(name) != %@", pivot as Any)
            XCTAssertEqual(t1.map(\.id).sorted(), eq, "typed \(name) == \(pivot)", file: file, line: line)
            XCTAssertEqual(r1.map(\.id).sorted(), eq, "RQL \(name) == \(pivot)", file: file, line: line)
            XCTAssertEqual(t2.map(\.id).sorted(), ne, "typed \(name) != \(pivot)", file: file, line: line)
            XCTAssertEqual(r2.map(\.id).sorted(), ne, "RQL \(name) != \(pivot)", file: file, line: line)
            XCTAssertEqual(t1.queryDescription, r1.queryDescription, file: file, line: line)
            XCTAssertEqual(t2.queryDescription, r2.queryDescription, file: file, line: line)
        }
    }

    /// An optional property holding nil, values[0], values[1] (objects 0, 1, 2): nil
    /// equals only nil, and orderings never match nil.
    func checkOptionalOrdered<V: _OptionalPersistable & _QueryComparable & Comparable>(
        _ keyPath: KeyPath<QTValues, V?>, _ name: String, _ values: [V], file: StaticString = #filePath, line: UInt = #line
    ) {
        let all = realm.objects(QTValues.self)
        func ids(_ q: (Query<V?>) -> Query<Bool>) -> [Int] { all.where { q($0[dynamicMember: keyPath]) }.map(\.id).sorted() }
        func rql(_ s: String, _ args: Any...) -> [Int] { qtFilter(all, s, args, file: file, line: line)?.map(\.id).sorted() ?? [-1] }
        let nothing: V? = nil
        XCTAssertEqual(ids { $0 == nil }, [0], name, file: file, line: line)
        XCTAssertEqual(ids { $0 != nil }, [1, 2], name, file: file, line: line)
        XCTAssertEqual(rql("\(name) == nil"), [0], name, file: file, line: line)
        XCTAssertEqual(rql("\(name) == $0", nothing as Any), [0], name, file: file, line: line)
        XCTAssertEqual(rql("\(name) != $0", NSNull()), [1, 2], name, file: file, line: line)
        XCTAssertEqual(all.where { $0[dynamicMember: keyPath] == nil }.queryDescription, all.filter("\(name) == nil").queryDescription,
                       file: file, line: line)
        XCTAssertEqual(ids { $0 == values[0] }, [1], name, file: file, line: line)
        XCTAssertEqual(ids { $0 != values[0] }, [0, 2], name, file: file, line: line)
        XCTAssertEqual(ids { $0 > values[0] }, [2], name, file: file, line: line)
        XCTAssertEqual(ids { $0 >= values[0] }, [1, 2], name, file: file, line: line)
        XCTAssertEqual(ids { $0 < values[1] }, [1], name, file: file, line: line)
        XCTAssertEqual(ids { $0 <= values[1] }, [1, 2], name, file: file, line: line)
        XCTAssertEqual(rql("\(name) > $0", values[0]), [2], name, file: file, line: line)
        XCTAssertEqual(rql("\(name) <= $0", values[1]), [1, 2], name, file: file, line: line)
        XCTAssertEqual(ids { $0.contains(values[0]...values[1]) }, [1, 2], name, file: file, line: line)
        XCTAssertEqual(ids { $0.in([nil, values[1]]) }, [0, 2], name, file: file, line: line)
        XCTAssertEqual(rql("\(name) IN {nil, $0}", values[1]), [0, 2], name, file: file, line: line)
    }

    func testMixedAndEnum() throws {
        try realm.write {
            for (i, value) in [AnyRealmValue.int(1), .string("x"), .none, .double(2.5), .bool(true)].enumerated() {
                let v = QTValues()
                v.id = i
                v.anyCol = value
                realm.add(v)
            }
        }
        let values = realm.objects(QTValues.self)
        func ids(_ r: Results<QTValues>) -> [Int] { r.map(\.id).sorted() }
        XCTAssertEqual(ids(values.where { $0.anyCol == .int(1) }), [0])
        XCTAssertEqual(ids(values.filter("anyCol == 1")), [0])
        XCTAssertEqual(ids(values.filter("anyCol == 'x'")), [1])
        XCTAssertEqual(ids(values.filter("anyCol == nil")), [2])
        XCTAssertEqual(ids(values.where { $0.anyCol == .none }), [2])
        XCTAssertEqual(ids(values.filter("anyCol > 1")), [3])
        XCTAssertEqual(ids(values.where { $0.anyCol > .int(1) }), [3])
        XCTAssertEqual(ids(values.filter("anyCol == $0", AnyRealmValue.string("x"))), [1])
        XCTAssertEqual(ids(values.filter("anyCol == true")), [4])

        checkTasks({ $0.level == .high }, "level == 3", expected: ["Fix bug", "Deploy"])
        checkTasks({ $0.level == .medium }, "level == $0", QTLevel.medium, expected: ["Review PR", "Écrire tests"])
        checkTasks({ $0.level.in([.low, .high]) }, "level IN {1, 3}", expected: ["Write docs", "Fix bug", "Deploy"])
        checkTasks({ $0.level > .low }, "level > 1", expected: ["Review PR", "Fix bug", "Deploy", "Écrire tests"])
        checkTasks({ $0.level <= .medium }, "level <= 2", expected: ["Write docs", "Review PR", "Écrire tests"])
        checkTasks({ $0.level.rawValue.contains(2...3) }, "level BETWEEN {2, 3}",
                   expected: ["Review PR", "Fix bug", "Deploy", "Écrire tests"])
    }

    // MARK: Logic

    func testAndOrNot() {
        checkTasks({ $0.completed == false && $0.progressMinutes > 20 }, "completed == false AND progressMinutes > 20",
                   expected: ["Fix bug", "Écrire tests"])
        checkTasks({ $0.completed == false && $0.progressMinutes > 20 }, "completed == false && progressMinutes > 20",
                   expected: ["Fix bug", "Écrire tests"])
        checkTasks({ $0.priority == 1 || $0.priority == 4 }, "priority == 1 OR priority == 4", expected: ["Write docs", "Deploy"])
        checkTasks({ $0.priority == 1 || $0.priority == 4 }, "priority == 1 || priority == 4", expected: ["Write docs", "Deploy"])
        checkTasks({ !($0.priority == 1) }, "NOT priority == 1", expected: ["Review PR", "Fix bug", "Deploy", "Écrire tests"])
        checkTasks({ !($0.priority == 1) }, "!(priority == 1)", expected: ["Review PR", "Fix bug", "Deploy", "Écrire tests"])
        checkTasks({ !$0.completed }, "NOT completed == true", expected: ["Write docs", "Fix bug", "Écrire tests"])
        checkTasks({ $0.completed }, "completed == true", expected: ["Review PR", "Deploy"])
        // AND binds tighter than OR; parentheses override.
        checkTasks({ $0.priority == 1 || $0.priority == 2 && $0.completed }, "priority == 1 OR priority == 2 AND completed == true",
                   expected: ["Write docs", "Review PR"])
        checkTasks({ ($0.priority == 1 || $0.priority == 2) && $0.completed == false },
                   "(priority == 1 OR priority == 2) AND completed == false", expected: ["Write docs", "Écrire tests"])
        checkTasks({ !($0.completed || $0.priority > 2) }, "NOT (completed == true OR priority > 2)",
                   expected: ["Write docs", "Écrire tests"])
        // Chained where / filter calls combine with AND.
        let chained = allTasks.where { $0.completed == false }.filter("progressMinutes > 20").where { $0.priority < 3 }
        XCTAssertEqual(chained.map(\.taskName), ["Écrire tests"])
        XCTAssertEqual(chained.queryDescription, allTasks.filter("completed == false AND progressMinutes > 20 AND priority < 3").queryDescription)
        XCTAssertEqual(allTasks.filter("completed == false AND (progressMinutes > 20 AND priority < 3)").queryDescription,
                       chained.queryDescription)
    }

    func testTrueAndFalsePredicates() {
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE").count, 5)
        XCTAssertEqual(allTasks.filter("truepredicate").count, 5)
        XCTAssertEqual(allTasks.filter("FALSEPREDICATE").count, 0)
        XCTAssertEqual(allTasks.filter("NOT TRUEPREDICATE").count, 0)
        XCTAssertEqual(allTasks.filter("FALSEPREDICATE OR priority == 4").map(\.taskName), ["Deploy"])
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE AND priority == 4").map(\.taskName), ["Deploy"])
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE").queryDescription, "TRUEPREDICATE")
        XCTAssertEqual(allTasks.queryDescription, "TRUEPREDICATE")
        XCTAssertEqual(allTasks.filter("FALSEPREDICATE").queryDescription, "FALSEPREDICATE")
    }

    // MARK: Ranges

    func testBetweenAndRanges() {
        checkTasks({ $0.progressMinutes.contains(45...90) }, "progressMinutes BETWEEN {45, 90}",
                   expected: ["Review PR", "Fix bug", "Écrire tests"])
        checkTasks({ $0.progressMinutes.contains(45..<90) }, "progressMinutes >= 45 AND progressMinutes < 90",
                   expected: ["Review PR", "Écrire tests"])
        XCTAssertEqual(taskNames("progressMinutes between {46, 59}"), [])
        XCTAssertEqual(taskNames("progressMinutes BETWEEN $0", [100, 200]), ["Deploy"])
        let start = Date(timeIntervalSince1970: 1_700_000_000 + 45 * 60), end = Date(timeIntervalSince1970: 1_700_000_000 + 60 * 60)
        checkTasks({ $0.dueDate.contains(start...end) }, "dueDate BETWEEN {$0, $1}", start, end,
                   expected: ["Review PR", "Écrire tests"])
    }

    // MARK: Strings

    func seedTexts() throws {
        try realm.write {
            for (i, text) in ["Hello World", "hello", "Héllo wörld", "HELLO", "abc", ""].enumerated() {
                let t = QTText()
                t.id = i
                t.text = text
                t.optText = i.isMultiple(of: 2) ? text : nil
                t.bytes = Data(text.utf8)
                realm.add(t)
            }
        }
    }

    func checkTexts(_ typed: (Query<QTText>) -> Query<Bool>, _ rql: String, _ args: Any..., expected: [Int],
                    file: StaticString = #filePath, line: UInt = #line) {
        let all = realm.objects(QTText.self)
        guard let r = qtFilter(all, rql, args, file: file, line: line) else { return }
        let t = all.where(typed)
        XCTAssertEqual(t.map(\.id).sorted(), expected, "typed: \(t.queryDescription)", file: file, line: line)
        XCTAssertEqual(r.map(\.id).sorted(), expected, "RQL: \(rql)", file: file, line: line)
        XCTAssertEqual(t.queryDescription, r.queryDescription, file: file, line: line)
    }

    func testStringOperatorsAndOptions() throws {
        try seedTexts()
        // 0 "Hello World", 1 "hello", 2 "Héllo wörld", 3 "HELLO", 4 "abc", 5 ""
        checkTexts({ $0.text.contains("llo") }, "text CONTAINS 'llo'", expected: [0, 1, 2])
        checkTexts({ $0.text.contains("LLO", options: .caseInsensitive) }, "text CONTAINS[c] 'LLO'", expected: [0, 1, 2, 3])
        checkTexts({ $0.text.contains("éllo") }, "text CONTAINS 'éllo'", expected: [2])
        checkTexts({ $0.text.contains("ello", options: .diacriticInsensitive) }, "text CONTAINS[d] 'ello'", expected: [0, 1, 2])
        checkTexts({ $0.text.contains("ÉLLO", options: [.caseInsensitive, .diacriticInsensitive]) }, "text CONTAINS[cd] 'ÉLLO'",
                   expected: [0, 1, 2, 3])
        checkTexts({ $0.text.starts(with: "he") }, "text BEGINSWITH 'he'", expected: [1])
        checkTexts({ $0.text.starts(with: "HEL", options: .caseInsensitive) }, "text BEGINSWITH[c] 'HEL'", expected: [0, 1, 3])
        checkTexts({ $0.text.starts(with: "hel", options: [.caseInsensitive, .diacriticInsensitive]) }, "text BEGINSWITH[cd] 'hel'",
                   expected: [0, 1, 2, 3])
        checkTexts({ $0.text.ends(with: "World") }, "text ENDSWITH 'World'", expected: [0])
        checkTexts({ $0.text.ends(with: "world", options: .caseInsensitive) }, "text ENDSWITH[c] 'world'", expected: [0])
        checkTexts({ $0.text.ends(with: "WORLD", options: [.caseInsensitive, .diacriticInsensitive]) }, "text ENDSWITH[cd] 'WORLD'",
                   expected: [0, 2])
        checkTexts({ $0.text.like("h*o") }, "text LIKE 'h*o'", expected: [1])
        checkTexts({ $0.text.like("h*o", caseInsensitive: true) }, "text LIKE[c] 'h*o'", expected: [1, 3])
        checkTexts({ $0.text.like("?ello") }, "text LIKE '?ello'", expected: [1])
        checkTexts({ $0.text.like("h?llo*", caseInsensitive: true) }, "text LIKE[c] 'h?llo*'", expected: [0, 1, 2, 3])
        checkTexts({ $0.text.like("*") }, "text LIKE '*'", expected: [0, 1, 2, 3, 4, 5])
        checkTexts({ $0.text.equals("hello", options: .caseInsensitive) }, "text ==[c] 'hello'", expected: [1, 3])
        checkTexts({ $0.text.notEquals("hello", options: .caseInsensitive) }, "text !=[c] 'hello'", expected: [0, 2, 4, 5])
        checkTexts({ $0.text.equals("hello", options: [.caseInsensitive, .diacriticInsensitive]) }, "text ==[cd] 'hello'",
                   expected: [1, 3])
        XCTAssertEqual(qtFilter(realm.objects(QTText.self), "text CONTAINS[d] 'éllo'")?.count, 3)
        XCTAssertEqual(qtFilter(realm.objects(QTText.self), "text ==[cd] 'HÉLLÓ'")?.count, 2)
        // Against another property.
        checkTexts({ $0.text.starts(with: $0.optText) }, "text BEGINSWITH optText", expected: [0, 2, 4])
        checkTexts({ $0.text.contains($0.optText, options: .caseInsensitive) }, "text CONTAINS[c] optText", expected: [0, 2, 4])
        checkTexts({ $0.text.equals($0.optText) }, "text == optText", expected: [0, 2, 4])
        checkTexts({ $0.text.notEquals($0.optText) }, "text != optText", expected: [1, 3, 5])
        checkTexts({ $0.text.like($0.optText, caseInsensitive: true) }, "text LIKE[c] optText", expected: [0, 2, 4])
        checkTexts({ $0.text.ends(with: $0.optText) }, "text ENDSWITH optText", expected: [0, 2, 4])
        checkTexts({ $0.text == "" }, "text == ''", expected: [5])
        checkTexts({ $0.text.contains("b") || $0.text.starts(with: "HE") }, "text CONTAINS 'b' OR text BEGINSWITH 'HE'",
                   expected: [3, 4])
        // Optional strings: nil never contains anything.
        checkTexts({ $0.optText.contains("l") }, "optText CONTAINS 'l'", expected: [0, 2])
        checkTexts({ $0.optText == nil }, "optText == nil", expected: [1, 3, 5])
        checkTexts({ $0.optText.starts(with: "a") }, "optText BEGINSWITH $0", "a", expected: [4])
        // Binary: the same operators over bytes.
        checkTexts({ $0.bytes.starts(with: Data("he".utf8)) }, "bytes BEGINSWITH $0", Data("he".utf8), expected: [1])
        checkTexts({ $0.bytes.contains(Data("bc".utf8)) }, "bytes CONTAINS $0", Data("bc".utf8), expected: [4])
        checkTexts({ $0.bytes == Data() }, "bytes == $0", Data(), expected: [5])
        // @count of a string is its length in bytes.
        XCTAssertEqual(realm.objects(QTText.self).filter("text.@count == 5").map(\.id).sorted(), [1, 3])
    }

    func testStringEscapesAndQuotes() throws {
        try realm.write {
            for (i, text) in ["it's", "say \"hi\"", "back\\slash", "tab\there", "ünïcödé 🎉"].enumerated() {
                realm.create(QTText.self, value: ["id": i, "text": text, "bytes": Data()])
            }
        }
        let all = realm.objects(QTText.self)
        XCTAssertEqual(all.filter("text == \"it's\"").map(\.id), [0])
        XCTAssertEqual(all.filter("text == 'say \"hi\"'").map(\.id), [1])
        XCTAssertEqual(all.filter("text == \"say \\\"hi\\\"\"").map(\.id), [1])
        XCTAssertEqual(all.filter("text == 'back\\\\slash'").map(\.id), [2])
        XCTAssertEqual(all.filter("text == 'tab\\there'").map(\.id), [3])
        XCTAssertEqual(all.filter("text CONTAINS '🎉'").map(\.id), [4])
        for text in ["it's", "say \"hi\"", "back\\slash", "tab\there", "ünïcödé 🎉"] {
            let typed = all.where { $0.text == text }
            XCTAssertEqual(typed.count, 1, text)
            // The canonical string reads back to the same query.
            XCTAssertEqual(all.filter(typed.queryDescription).map(\.text), [text])
            XCTAssertEqual(all.filter(typed.queryDescription).queryDescription, typed.queryDescription)
        }
    }

    // MARK: Collections

    func testListContainsAndContainsAny() {
        checkTeams({ $0.members.containsAny(in: ["Ann", "Carl"]) }, "ANY members IN {'Ann', 'Carl'}", expected: ["Docs", "Dev"])
        checkTeams({ $0.members.containsAny(in: ["Nobody"]) }, "ANY members IN $0", ["Nobody"], expected: [])
        checkTeams({ $0.scores.contains(5) }, "5 IN scores", expected: ["Docs"])
        checkTeams({ $0.tags.contains("b") }, "'b' IN tags", expected: ["Docs", "Ops"])
        checkTeams({ $0.tags.containsAny(in: ["a", "z"]) }, "ANY tags IN {'a', 'z'}", expected: ["Docs"])
        checkTeams({ !$0.members.contains("Bob Smith") }, "NOT 'Bob Smith' IN members", expected: ["Dev"])
        checkTeams({ $0.tasks.contains(self.tasks["Deploy"]!) }, "$0 IN tasks", tasks["Deploy"]!, expected: ["Dev"])
        checkTeams({ $0.people.contains(self.people["Bea"]!) }, "%@ IN people", people["Bea"]!, expected: ["Docs"])
        XCTAssertEqual(teamNames("scores > 8"), ["Docs", "Ops"])
        XCTAssertEqual(teamNames("ANY scores < 2"), ["Docs"])
        XCTAssertEqual(teamNames("SOME scores < 2"), ["Docs"])
        XCTAssertEqual(teamNames("ALL scores > 4"), ["Dev", "Ops"])
        XCTAssertEqual(teamNames("NONE scores > 4"), ["Dev"])
        XCTAssertEqual(teamNames("ANY ratings >= 4.5"), ["Docs"])
        XCTAssertEqual(teamNames("members BEGINSWITH 'Bob'"), ["Docs", "Ops"])
        XCTAssertEqual(teamNames("ANY members CONTAINS[c] 'ar'"), ["Dev"])
        XCTAssertEqual(teamNames("ALL members BEGINSWITH 'Bob'"), ["Ops"])
    }

    func testCollectionCountAndAggregates() {
        checkTeams({ $0.members.count > 1 }, "members.@count > 1", expected: ["Docs"])
        checkTeams({ $0.members.count > 1 }, "members.@size > 1", expected: ["Docs"])
        checkTeams({ $0.tasks.count == 0 }, "tasks.@count == 0", expected: ["Ops"])
        checkTeams({ $0.tags.count == 0 }, "tags.@count == 0", expected: ["Dev"])
        checkTeams({ $0.scores.max > 8 }, "scores.@max > 8", expected: ["Docs", "Ops"])
        checkTeams({ $0.scores.min == 1 }, "scores.@min == 1", expected: ["Docs"])
        checkTeams({ $0.scores.sum == 15 }, "scores.@sum == 15", expected: ["Docs"])
        checkTeams({ $0.scores.sum == 0 }, "scores.@sum == 0", expected: ["Dev"])
        checkTeams({ $0.scores.avg > 4 }, "scores.@avg > 4", expected: ["Docs", "Ops"])
        checkTeams({ $0.ratings.avg == 3.75 }, "ratings.@avg == 3.75", expected: ["Docs"])
        checkTeams({ $0.ratings.max < 3 }, "ratings.@max < 3.0", expected: ["Dev"])
        // Aggregates of an empty collection are null (except @count and @sum).
        XCTAssertEqual(teamNames("scores.@max == nil"), ["Dev"])
        XCTAssertEqual(teamNames("scores.@avg == nil"), ["Dev"])
        XCTAssertEqual(teamNames("ratings.@min == nil"), ["Ops"])
        // A collection compared with an element matches when any element does.
        checkTeams({ $0.scores > 8 }, "ANY scores > 8", expected: ["Docs", "Ops"])
        checkTeams({ $0.scores == 5 }, "scores == 5", expected: ["Docs"])
        checkTeams({ $0.members != "Carl" }, "ANY members != 'Carl'", expected: ["Docs", "Ops"])
        checkTeams({ $0.ratings <= 2.0 }, "ratings <= 2.0", expected: ["Dev"])
        // A collection "contains" a range when all its elements lie in it (@min and @max).
        checkTeams({ $0.scores.contains(1...9) }, "scores.@min >= 1 AND scores.@max <= 9", expected: ["Docs"])
        checkTeams({ $0.scores.contains(5..<11) }, "scores.@min >= 5 AND scores.@max < 11", expected: ["Ops"])
        // Aggregates over a property of the objects in a list.
        checkTeams({ $0.tasks.progressMinutes.sum > 100 }, "tasks.@sum.progressMinutes > 100", expected: ["Dev"])
        checkTeams({ $0.tasks.progressMinutes.avg == 35 }, "tasks.@avg.progressMinutes == 35", expected: ["Docs"])
        checkTeams({ $0.tasks.progressMinutes.max >= 120 }, "tasks.@max.progressMinutes >= 120", expected: ["Dev"])
        checkTeams({ $0.tasks.progressMinutes.min < 20 }, "tasks.@min.progressMinutes < 20", expected: ["Docs"])
        checkTeams({ $0.tasks.dueDate.max > Date(timeIntervalSince1970: 1_700_006_000) }, "tasks.dueDate.@max > $0",
                   Date(timeIntervalSince1970: 1_700_006_000), expected: ["Dev"])
        XCTAssertEqual(teamNames("tasks.@sum.progressMinutes > 100"), ["Dev"])
        XCTAssertEqual(teamNames("tasks.progressMinutes.@sum > 100"), ["Dev"])
        XCTAssertEqual(teamNames("tasks.@avg.progressMinutes == 35"), ["Docs"])
        XCTAssertEqual(teamNames("tasks.@max.progressMinutes >= 120"), ["Dev"])
        XCTAssertEqual(teamNames("tasks.@min.progressMinutes < 20"), ["Docs"])
        XCTAssertEqual(allTeams.filter("tasks.@sum.progressMinutes > 100").queryDescription, "tasks.progressMinutes.@sum > 100")
        // Through to-one and to-many links together.
        XCTAssertEqual(teamNames("tasks.owner.age.@max > 40"), ["Dev"])
        XCTAssertEqual(teamNames("people.@count == 2 AND scores.@count == 3"), ["Docs"])
    }

    // MARK: Links

    func testKeyPathsThroughLinks() {
        checkTasks({ $0.owner.name == "Ali" }, "owner.name == 'Ali'", expected: ["Write docs", "Fix bug"])
        checkTasks({ $0.owner.age > 28 }, "owner.age > 28", expected: ["Write docs", "Fix bug", "Écrire tests"])
        checkTasks({ $0.owner.nickname == nil }, "owner.nickname == nil", expected: ["Write docs", "Fix bug", "Deploy", "Écrire tests"])
        checkTasks({ $0.owner == nil }, "owner == nil", expected: ["Deploy"])
        checkTasks({ $0.owner != nil }, "owner != nil", expected: ["Write docs", "Review PR", "Fix bug", "Écrire tests"])
        let ali = people["Ali"]!
        checkTasks({ $0.owner == ali }, "owner == $0", ali, expected: ["Write docs", "Fix bug"])
        checkTasks({ $0.owner != ali }, "owner != %@", ali, expected: ["Review PR", "Deploy", "Écrire tests"])
        checkTasks({ $0.owner.name.starts(with: "C") }, "owner.name BEGINSWITH 'C'", expected: ["Écrire tests"])
        checkTeams({ $0.tasks.progressMinutes > 100 }, "ANY tasks.progressMinutes > 100", expected: ["Dev"])
        XCTAssertEqual(teamNames("tasks.progressMinutes > 100"), ["Dev"])
        checkTeams({ $0.tasks.owner.name == "Bea" }, "ANY tasks.owner.name == 'Bea'", expected: ["Docs"])
        checkTeams({ $0.people.age < 26 }, "people.age < 26", expected: ["Docs"])
        XCTAssertEqual(teamNames("ALL tasks.progressMinutes >= 45"), ["Dev", "Ops"])
        XCTAssertEqual(teamNames("NONE tasks.progressMinutes > 100"), ["Docs", "Ops"])
        XCTAssertEqual(teamNames("ALL tasks.owner != nil"), ["Docs", "Ops"])
        // An unmanaged object cannot be compared with (as in Realm): the query is refused.
        let error = qtRealmError { _ = try self.allTasks.filter("owner == $0", arguments: [QTPerson()]) }
        XCTAssertEqual(error?.code, .invalidQuery)
    }

    func testLinkingObjectsAndAtLinks() throws {
        checkPeople({ $0.ownedTasks.count > 1 }, "ownedTasks.@count > 1", expected: ["Ali"])
        checkPeople({ $0.ownedTasks.count == 1 }, "ownedTasks.@count == 1", expected: ["Bea", "Cem"])
        checkPeople({ $0.ownedTasks.completed == true }, "ANY ownedTasks.completed == true", expected: ["Bea"])
        checkPeople({ $0.teams.teamName == "Dev" }, "ANY teams.teamName == 'Dev'", expected: ["Cem"])
        checkPeople({ $0.ownedTasks.progressMinutes > 50 }, "ANY ownedTasks.progressMinutes > 50", expected: ["Ali", "Bea"])
        XCTAssertEqual(personNames("@links.QTTask.owner.progressMinutes > 50"), ["Ali", "Bea"])
        XCTAssertEqual(personNames("@links.QTTeam.people.teamName == 'Docs'"), ["Ali", "Bea"])
        XCTAssertEqual(personNames("@links.QTTask.owner.@count == 2"), ["Ali"])
        XCTAssertEqual(personNames("ALL ownedTasks.completed == false"), ["Ali", "Cem"])
        XCTAssertEqual(personNames("ownedTasks.@sum.progressMinutes == 100"), ["Ali"])
        XCTAssertEqual(personNames("SUBQUERY(ownedTasks, $t, $t.completed == false).@count == 2"), ["Ali"])
        // A person with no tasks has no backlinks.
        try realm.write { realm.create(QTPerson.self, value: ["name": "Dan", "age": 5]) }
        XCTAssertEqual(personNames("ownedTasks.@count == 0"), ["Dan"])
        XCTAssertEqual(personNames("@links.QTTeam.people.@count == 0"), ["Dan"])
    }

    func testSubquery() {
        checkTeams({ ($0.tasks.completed == false && $0.tasks.progressMinutes > 30).count > 0 },
                   "SUBQUERY(tasks, $t, $t.completed == false AND $t.progressMinutes > 30).@count > 0", expected: ["Dev"])
        checkTeams({ ($0.tasks.progressMinutes >= 45).count >= 2 }, "SUBQUERY(tasks, $t, $t.progressMinutes >= 45).@count >= 2",
                   expected: ["Dev"])
        checkTeams({ ($0.tasks.owner.name == "Ali").count == 1 }, "SUBQUERY(tasks, $t, $t.owner.name == 'Ali').@count == 1",
                   expected: ["Docs", "Dev"])
        checkTeams({ ($0.tasks.priority.in([1, 4])).count == 1 }, "SUBQUERY(tasks, $t, $t.priority IN {1, 4}).@count == 1",
                   expected: ["Docs", "Dev"])
        checkTeams({ !(($0.tasks.completed).count == 1) || $0.teamName == "Ops" },
                   "NOT SUBQUERY(tasks, $t, $t.completed == true).@count == 1 OR teamName == 'Ops'", expected: ["Ops"])
        checkPeople({ ($0.ownedTasks.completed == false).count == 2 }, "SUBQUERY(ownedTasks, $t, $t.completed == false).@count == 2",
                    expected: ["Ali"])
        XCTAssertEqual(allTeams.where { ($0.tasks.priority > 2).count > 0 }.queryDescription,
                       "SUBQUERY(tasks, $x, $x.priority > 2).@count > 0")
        XCTAssertEqual(teamNames("SUBQUERY(tasks, $t, $t.completed == false AND $t.progressMinutes > 30).@count > 0"), ["Dev"])
        XCTAssertEqual(teamNames("SUBQUERY(tasks, $t, $t.progressMinutes >= 45).@count >= 2"), ["Dev"])
        XCTAssertEqual(teamNames("SUBQUERY(tasks, $t, $t.owner.name == 'Ali').@count == 1"), ["Dev", "Docs"])
        XCTAssertEqual(teamNames("SUBQUERY(tasks, $t, $t.priority IN {1, 4}).@count == 1"), ["Dev", "Docs"])
        XCTAssertEqual(teamNames("SUBQUERY(tasks, $t, TRUEPREDICATE).@count == 0"), ["Ops"])
        XCTAssertEqual(teamNames("SUBQUERY(tasks, $t, $t.progressMinutes > $0).@count > 1", 40), ["Dev"])
        XCTAssertEqual(teamNames("SUBQUERY(people, $p, SUBQUERY($p.ownedTasks, $t, $t.completed == true).@count > 0).@count > 0"),
                       ["Docs"])
        // The variable name does not matter to the canonical form.
        XCTAssertEqual(allTeams.filter("SUBQUERY(tasks, $a, $a.priority > 2).@count > 0").queryDescription,
                       allTeams.filter("SUBQUERY(tasks, $x, $x.priority > 2).@count > 0").queryDescription)
        XCTAssertEqual(allTeams.filter("SUBQUERY(tasks, $a, $a.priority > 2).@count > 0").queryDescription,
                       "SUBQUERY(tasks, $x, $x.priority > 2).@count > 0")
    }

    // MARK: Arguments

    func testArguments() {
        XCTAssertEqual(taskNames("progressMinutes > $0 AND assignee == $1", 50, "Bea"), ["Fix bug"])
        XCTAssertEqual(taskNames("progressMinutes > %@ AND assignee == %@", 50, "Bea"), ["Fix bug"])
        XCTAssertEqual(taskNames("assignee == $1 AND progressMinutes > $0", 50, "Bea"), ["Fix bug"])
        XCTAssertEqual(taskNames("progressMinutes > $0 OR priority == $0", 100), ["Deploy"])
        XCTAssertEqual(taskNames("%K > %@", "progressMinutes", 100), ["Deploy"])
        XCTAssertEqual(taskNames("%K == %@", "owner.name", "Bea"), ["Review PR"])
        XCTAssertEqual(taskNames("assignee == $0", NSNull()), ["Review PR"])
        XCTAssertEqual(taskNames("assignee == $0", Optional<String>.none as Any), ["Review PR"])
        XCTAssertEqual(taskNames("progressMinutes == $0", Int8(45)), ["Écrire tests"])
        XCTAssertEqual(taskNames("progressMinutes == $0", UInt(45)), ["Écrire tests"])
        XCTAssertEqual(taskNames("progressMinutes == $0", 45.0), ["Écrire tests"])
        XCTAssertEqual(taskNames("_id == $0", tasks["Deploy"]!._id), ["Deploy"])
        XCTAssertEqual(taskNames("priority IN $0", Set([3, 4])), ["Deploy", "Fix bug"])
        // The arguments are bound into the canonical string.
        let a = allTasks.filter("progressMinutes > $0 AND assignee == $1", 50, "Bea")
        let b = allTasks.where { $0.progressMinutes > 50 && $0.assignee == "Bea" }
        XCTAssertEqual(a.queryDescription, b.queryDescription)
        XCTAssertEqual(a.queryDescription, "progressMinutes > 50 AND assignee == \"Bea\"")
    }

    // MARK: SORT, DISTINCT, LIMIT

    func testSortDistinctLimitSuffixes() {
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE SORT(progressMinutes DESC) LIMIT(2)").map(\.taskName), ["Deploy", "Fix bug"])
        XCTAssertEqual(allTasks.filter("completed == false SORT(progressMinutes ASC)").map(\.taskName),
                       ["Write docs", "Écrire tests", "Fix bug"])
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE SORT(priority ASC, progressMinutes DESC)").map(\.taskName),
                       ["Write docs", "Review PR", "Écrire tests", "Fix bug", "Deploy"])
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE SORT(owner.age DESC, taskName ASC)").map(\.taskName).prefix(3),
                       ["Écrire tests", "Fix bug", "Write docs"])
        let distinct = allTasks.filter("TRUEPREDICATE SORT(progressMinutes ASC) DISTINCT(priority)")
        XCTAssertEqual(distinct.map(\.priority), [1, 2, 3, 4])
        XCTAssertEqual(distinct.map(\.taskName), ["Write docs", "Écrire tests", "Fix bug", "Deploy"])
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE DISTINCT(completed)").count, 2)
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE DISTINCT(completed, priority)").count, 5)
        XCTAssertEqual(allTasks.filter("priority > 1 LIMIT(0)").count, 0)
        XCTAssertEqual(allTasks.filter("priority > 1 LIMIT(100)").count, 4)
        // Descriptors apply in the order written: LIMIT then SORT keeps the first two in table order.
        XCTAssertEqual(allTasks.filter("TRUEPREDICATE LIMIT(2) SORT(progressMinutes DESC)").map(\.taskName), ["Review PR", "Write docs"])
        XCTAssertEqual(allTasks.filter("truepredicate sort(progressMinutes desc) limit(1)").queryDescription,
                       "TRUEPREDICATE SORT(progressMinutes DESC) LIMIT(1)")
        XCTAssertEqual(allTasks.filter("priority > 1 SORT(taskName ASC) DISTINCT(priority) LIMIT(2)").queryDescription,
                       "priority > 1 SORT(taskName ASC) DISTINCT(priority) LIMIT(2)")
        // A suffix followed by more filtering: the predicate combines, the descriptors stay.
        let limited = allTasks.filter("TRUEPREDICATE SORT(progressMinutes DESC)").where { $0.completed == false }
        XCTAssertEqual(limited.map(\.taskName), ["Fix bug", "Écrire tests", "Write docs"])
    }

    // MARK: Canonical strings

    func testTypedAndRQLRenderTheSameString() {
        let pairs: [(Results<QTTask>, String)] = [
            (allTasks.where { $0.progressMinutes >= 60 }, "progressMinutes >= 60"),
            (allTasks.where { $0.assignee == "Ali" && !$0.completed }, "assignee == 'Ali' AND NOT (completed == true)"),
            (allTasks.where { $0.priority.in([1, 2, 3]) }, "priority IN {1, 2, 3}"),
            (allTasks.where { $0.taskName.contains("x", options: .caseInsensitive) }, "taskName CONTAINS[c] 'x'"),
            (allTasks.where { $0.owner.name == "Ali" }, "owner.name == 'Ali'"),
            (allTasks.where { $0.progressMinutes.contains(1...5) }, "progressMinutes BETWEEN {1, 5}"),
            (allTasks.where { $0.assignee == nil || $0.priority > 2 }, "assignee == nil OR priority > 2"),
        ]
        for (typed, rql) in pairs {
            let parsed = allTasks.filter(rql)
            XCTAssertEqual(typed.queryDescription, parsed.queryDescription, rql)
            // The canonical string parses back to itself.
            XCTAssertEqual(allTasks.filter(typed.queryDescription).queryDescription, typed.queryDescription)
        }
        XCTAssertEqual(allTeams.where { $0.members.contains("Bob Smith") }.queryDescription, "members == \"Bob Smith\"")
        XCTAssertEqual(allTasks.where { $0.priority.in([1, 2, 3]) }.queryDescription, "priority IN {1, 2, 3}")
        XCTAssertEqual(allTasks.filter("5 < progressMinutes").queryDescription, "progressMinutes > 5")
        XCTAssertEqual(allTasks.filter("progressMinutes == {5}").queryDescription, "progressMinutes == 5")
        XCTAssertEqual(allTasks.filter("priority = 1 && taskName <> 'a'").queryDescription, "priority == 1 AND taskName != \"a\"")
        XCTAssertEqual(allTasks.filter("priority => 3").queryDescription, "priority >= 3")
        XCTAssertEqual(allTasks.filter("priority =< 1").queryDescription, "priority <= 1")
        XCTAssertEqual(allTasks.filter("priority => 3").count, 2)
        XCTAssertEqual(allTasks.filter("taskName beginswith[c] 'w' and not completed == true").map(\.taskName), ["Write docs"])
    }

    // MARK: Errors

    func testMalformedQueriesThrowWithTokenAndOffset() {
        func message(_ rql: String, _ args: [Any] = []) -> String {
            let error = qtRealmError { _ = try self.allTasks.filter(rql, arguments: args) }
            XCTAssertEqual(error?.code, .invalidQuery, rql)
            return error?.message ?? ""
        }
        var m = message("progressMinutes >= AND completed == true")
        XCTAssertTrue(m.contains("'AND'") && m.contains("offset 19"), m)
        m = message("progressMinutes >")
        XCTAssertTrue(m.contains("end of query") && m.contains("offset 17"), m)
        m = message("taskName == 'abc")
        XCTAssertTrue(m.contains("offset 12"), m)
        m = message("(priority == 1")
        XCTAssertTrue(m.contains("offset 14"), m)
        m = message("priority == 1 priority == 2")
        XCTAssertTrue(m.contains("'priority'") && m.contains("offset 14"), m)
        m = message("priority ==[x] 1")
        XCTAssertTrue(m.contains("'x'") && m.contains("offset 12"), m)
        m = message("")
        XCTAssertTrue(m.contains("empty"), m)
        m = message("priority BETWEEN {1}")
        XCTAssertTrue(m.contains("BETWEEN") && m.contains("offset 17"), m)
        m = message("TRUEPREDICATE SORT(priority SIDEWAYS)")
        XCTAssertTrue(m.contains("'SIDEWAYS'") && m.contains("offset 28"), m)
        m = message("TRUEPREDICATE LIMIT(-1)")
        XCTAssertTrue(m.contains("LIMIT"), m)
        m = message("SUBQUERY(tasks, $t, $u.priority > 1).@count > 0")
        XCTAssertTrue(m.contains("$u"), m)
        // Semantic errors name the property, the class or the types.
        m = message("noSuchProperty == 1")
        XCTAssertTrue(m.contains("noSuchProperty") && m.contains("QTTask"), m)
        m = message("owner.noSuch == 1")
        XCTAssertTrue(m.contains("noSuch") && m.contains("QTPerson"), m)
        m = message("progressMinutes == 'sixty'")
        XCTAssertTrue(m.contains("progressMinutes") && m.contains("sixty"), m)
        m = message("progressMinutes == nil")
        XCTAssertTrue(m.contains("progressMinutes") && m.contains("nil"), m)
        m = message("completed > true")
        XCTAssertTrue(m.contains("completed"), m)
        m = message("progressMinutes CONTAINS 'a'")
        XCTAssertTrue(m.contains("CONTAINS") && m.contains("progressMinutes"), m)
        m = message("progressMinutes > $1", [1])
        XCTAssertTrue(m.contains("$1"), m)
        m = message("progressMinutes > $0", [NSObject()])
        XCTAssertTrue(m.contains("$0") && m.contains("NSObject"), m)
        m = message("@links.NoClass.owner.@count > 0")
        XCTAssertTrue(m.contains("NoClass"), m)
        m = message("TRUEPREDICATE SORT(tasks ASC)")
        XCTAssertFalse(m.isEmpty)
        // The failing filter leaves nothing behind: the same Results still works.
        XCTAssertEqual(allTasks.count, 5)
    }

    func testFilterOnCollectionsThrows() throws {
        let docs = allTeams.where { $0.teamName == "Docs" }.first!
        XCTAssertThrowsError(try docs.tasks.filter("priority >>> 2", arguments: [])) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidQuery)
        }
        XCTAssertEqual(try docs.tasks.filter("priority > $0", arguments: [1]).map(\.taskName), ["Review PR"])
        let ali = people["Ali"]!
        XCTAssertThrowsError(try ali.ownedTasks.filter("nope == 1", arguments: []))
    }

    // MARK: Queries on collections of objects

    func testQueriesOnListsSetsAndLinkingObjects() throws {
        let dev = allTeams.where { $0.teamName == "Dev" }.first!
        // List: the list's order, filtered.
        XCTAssertEqual(dev.tasks.where { $0.completed == false }.map(\.taskName), ["Fix bug", "Écrire tests"])
        XCTAssertEqual(dev.tasks.filter("progressMinutes > $0", 50).map(\.taskName), ["Fix bug", "Deploy"])
        XCTAssertEqual(dev.tasks.sorted(byKeyPath: "progressMinutes").map(\.taskName), ["Écrire tests", "Fix bug", "Deploy"])
        XCTAssertEqual(dev.tasks.sorted(by: \.taskName, ascending: false).map(\.taskName), ["Écrire tests", "Fix bug", "Deploy"])
        XCTAssertEqual(dev.tasks.sum(ofProperty: "progressMinutes") as Int, 255)
        XCTAssertEqual(dev.tasks.max(ofProperty: "progressMinutes") as Int?, 120)
        XCTAssertEqual(dev.tasks.min(ofProperty: "progressMinutes") as Int?, 45)
        XCTAssertEqual(dev.tasks.average(ofProperty: "progressMinutes") as Double?, 85)
        XCTAssertEqual(dev.tasks.index(matching: "taskName == 'Deploy'"), 1)
        XCTAssertEqual(dev.tasks.distinct(by: ["completed"]).count, 2)
        // LinkingObjects.
        let ali = people["Ali"]!
        XCTAssertEqual(ali.ownedTasks.where { $0.progressMinutes > 50 }.map(\.taskName), ["Fix bug"])
        XCTAssertEqual(ali.ownedTasks.filter("completed == false").count, 2)
        XCTAssertEqual(ali.ownedTasks.sorted(byKeyPath: "progressMinutes", ascending: false).map(\.taskName), ["Fix bug", "Write docs"])
        XCTAssertEqual(ali.ownedTasks.sum(ofProperty: "progressMinutes") as Int, 100)
        // A list with duplicates keeps them.
        try realm.write { dev.tasks.append(dev.tasks[0]) }
        XCTAssertEqual(dev.tasks.where { $0.priority == 3 }.count, 2)
        // Live: the filtered list follows later changes to the list.
        let open = dev.tasks.where { $0.completed == false }
        XCTAssertEqual(open.count, 3)
        try realm.write { dev.tasks.removeAll() }
        XCTAssertEqual(open.count, 0)
    }
}
