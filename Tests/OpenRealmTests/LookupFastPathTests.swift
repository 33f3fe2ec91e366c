import Foundation
import XCTest
@testable import OpenRealm

// MARK: - Models

final class LFObjectIdKey: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var value: Int
}

final class LFStringKey: Object {
    @Persisted(primaryKey: true) var id: String
    @Persisted var value: Int
}

/// An `Int32` key: an `Int` given for it is converted by the general path.
final class LFInt32Key: Object {
    @Persisted(primaryKey: true) var id: Int32
    @Persisted var value: Int
}

final class LFQueried: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var note: String?
    @Persisted var count: Int
    @Persisted var maybe: Int?
    @Persisted var flag: Bool
    @Persisted var ratio: Double
    @Persisted var ref: ObjectId
}

// MARK: - Tests

/// The paths that skip the general conversions: primary-key lookups by a key of the
/// property's own type (`PrimaryKeyLookup`), typed-query constants of common types
/// (`Query.constant`), and `Results` iteration handing out accessors without a cast
/// per element.
final class LookupFastPathTests: XCTestCase {
    func testObjectIdAndStringKeysAreFoundInAndOutsideWrites() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([LFObjectIdKey.self, LFStringKey.self]))
        let ids = (0..<20).map { _ in ObjectId.generate() }
        let names = ["", "a", "ä\u{0}b", String(repeating: "x", count: 200), "Ünïcödé 🚀"]
        try realm.write {
            for (i, id) in ids.enumerated() { realm.add(LFObjectIdKey(value: ["id": id, "value": i])) }
            for (i, name) in names.enumerated() { realm.add(LFStringKey(value: ["id": name, "value": i])) }
            // inside the write that added them
            XCTAssertEqual(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: ids[7])?.value, 7)
            XCTAssertEqual(realm.object(ofType: LFStringKey.self, forPrimaryKey: "ä\u{0}b")?.value, 2)
        }
        for (i, id) in ids.enumerated() {
            XCTAssertEqual(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: id)?.value, i)
        }
        XCTAssertNil(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: ObjectId.generate()))
        for (i, name) in names.enumerated() {
            XCTAssertEqual(realm.object(ofType: LFStringKey.self, forPrimaryKey: name)?.value, i, "key \(name.debugDescription)")
        }
        XCTAssertNil(realm.object(ofType: LFStringKey.self, forPrimaryKey: "ä"))
        XCTAssertNil(realm.object(ofType: LFStringKey.self, forPrimaryKey: String(repeating: "x", count: 300)))
    }

    /// Classes large enough for a read transaction to descend their primary-key index
    /// itself (ORCore's scan.c, from 64 objects): every key found outside a write as inside
    /// one, missing keys beside stored ones not found, after deletions thin the index, in a
    /// file and in memory, and again after a later write moves the snapshot on.
    func testLookupsInLargeClassesMatchTheWriteTransactionsAnswers() throws {
        for configuration in [try makeFileConfiguration([LFObjectIdKey.self, LFStringKey.self, LFInt32Key.self]),
                              makeInMemoryConfiguration([LFObjectIdKey.self, LFStringKey.self, LFInt32Key.self])] {
            let realm = try Realm(configuration: configuration)
            let ids = (0..<3_000).map { _ in ObjectId.generate() }
            let names = (0..<3_000).map { i in
                i % 7 == 0 ? "\(i)" : "tenant/\(i % 13)/task/\(String(repeating: "z", count: i % 40))\(i)"
            }
            try realm.write {
                for (i, id) in ids.enumerated() { realm.add(LFObjectIdKey(value: ["id": id, "value": i])) }
                for (i, name) in names.enumerated() { realm.add(LFStringKey(value: ["id": name, "value": i])) }
                for i in 0..<3_000 { realm.add(LFInt32Key(value: ["id": Int32(i * i % 1_000_003) - 500_000, "value": i])) }
            }
            try realm.write {
                for i in stride(from: 0, to: 3_000, by: 5) {
                    realm.delete(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: ids[i])!)
                    realm.delete(realm.object(ofType: LFStringKey.self, forPrimaryKey: names[i])!)
                }
            }
            func expected(_ i: Int) -> Int? { i % 5 == 0 ? nil : i }
            let stored = Set(names)
            for round in 0..<2 {
                for (i, id) in ids.enumerated() {
                    XCTAssertEqual(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: id)?.value, expected(i), "round \(round), id \(i)")
                }
                for (i, name) in names.enumerated() {
                    XCTAssertEqual(realm.object(ofType: LFStringKey.self, forPrimaryKey: name)?.value, expected(i), "round \(round), name \(i)")
                    XCTAssertNil(realm.object(ofType: LFStringKey.self, forPrimaryKey: name + "!"))
                    let shorter = String(name.dropLast())
                    if !stored.contains(shorter) { XCTAssertNil(realm.object(ofType: LFStringKey.self, forPrimaryKey: shorter)) }
                }
                for i in 0..<3_000 {
                    XCTAssertEqual(realm.object(ofType: LFInt32Key.self, forPrimaryKey: Int32(i * i % 1_000_003) - 500_000)?.value, i)
                }
                XCTAssertNil(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: ObjectId.generate()))
                XCTAssertNil(realm.object(ofType: LFInt32Key.self, forPrimaryKey: Int32(600_000)))
                // the same answers inside a write transaction (LMDB's own lookup)
                try realm.write {
                    for i in stride(from: 1, to: 3_000, by: 97) {
                        XCTAssertEqual(realm.object(ofType: LFObjectIdKey.self, forPrimaryKey: ids[i])?.value, expected(i))
                        XCTAssertEqual(realm.object(ofType: LFStringKey.self, forPrimaryKey: names[i])?.value, expected(i))
                    }
                    realm.add(LFObjectIdKey(value: ["id": ObjectId.generate(), "value": -1])) // a new snapshot after
                }
            }
        }
    }

    func testAnIntKeyForANarrowerIntegerKeyIsConverted() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([LFInt32Key.self]))
        try realm.write {
            for i in 0..<10 { realm.add(LFInt32Key(value: ["id": Int32(i * 3), "value": i])) }
        }
        XCTAssertEqual(realm.object(ofType: LFInt32Key.self, forPrimaryKey: 9)?.value, 3)
        XCTAssertEqual(realm.object(ofType: LFInt32Key.self, forPrimaryKey: Int32(27))?.value, 9)
        XCTAssertNil(realm.object(ofType: LFInt32Key.self, forPrimaryKey: 10))
    }

    func testTypedConstantsOfCommonTypesMatchTheirQueryStrings() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([LFQueried.self]))
        let ref = ObjectId.generate()
        try realm.write {
            for i in 0..<30 {
                realm.add(LFQueried(value: ["id": i, "name": "n\(i % 5)", "note": i % 3 == 0 ? nil : "t\(i % 2)",
                                            "count": i % 4, "maybe": i % 2 == 0 ? nil : i, "flag": i % 2 == 0,
                                            "ratio": Double(i) / 2, "ref": i == 4 ? ref : ObjectId.generate()]))
            }
        }
        let all = realm.objects(LFQueried.self)
        func same(_ typed: Results<LFQueried>, _ rql: Results<LFQueried>, _ expected: Int, line: UInt = #line) {
            XCTAssertEqual(typed.queryDescription, rql.queryDescription, line: line)
            XCTAssertEqual(typed.count, expected, line: line)
            XCTAssertEqual(rql.count, expected, line: line)
            XCTAssertEqual(Array(typed.map(\.id)), Array(rql.map(\.id)), line: line)
        }
        let name = "n3"
        same(all.where { $0.name == name }, all.filter("name == %@", name), 6)
        same(all.where { $0.name != "n3" }, all.filter("name != %@", "n3"), 24)
        same(all.where { $0.note == nil }, all.filter("note == nil"), 10)
        same(all.where { $0.note == "t1" }, all.filter("note == %@", "t1"), 10)
        same(all.where { $0.count == 2 }, all.filter("count == %@", 2), 7)
        same(all.where { $0.count > 1 }, all.filter("count > %@", 1), 14)
        same(all.where { $0.maybe == nil }, all.filter("maybe == nil"), 15)
        same(all.where { $0.maybe == 7 }, all.filter("maybe == %@", 7), 1)
        same(all.where { $0.flag == true }, all.filter("flag == %@", true), 15)
        same(all.where { $0.ratio >= 10.5 }, all.filter("ratio >= %@", 10.5), 9)
        same(all.where { $0.ref == ref }, all.filter("ref == %@", ref), 1)
    }

    func testIterationHandsOutAccessorsOfTheResultsType() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([LFQueried.self]))
        try realm.write {
            for i in 0..<40 { realm.add(LFQueried(value: ["id": i, "name": "n\(i)", "count": i])) }
        }
        var ids: [Int] = []
        var kept: [LFQueried] = []
        for item in realm.objects(LFQueried.self).where({ $0.count >= 10 }) {
            XCTAssertTrue(type(of: item) == LFQueried.self)
            XCTAssertEqual(item.name, "n\(item.id)")
            ids.append(item.id)
            if item.id % 10 == 0 { kept.append(item) }
        }
        XCTAssertEqual(ids, Array(10..<40))
        XCTAssertEqual(kept.map(\.id), [10, 20, 30])
        XCTAssertEqual(kept.map(\.name), ["n10", "n20", "n30"])
    }
}
