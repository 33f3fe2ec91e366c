import Foundation
import XCTest
@testable import OpenRealmSync
import OpenRealmWire
import RealmSwift
import OpenRealmTestSupport

/// The `createObject` path of the changeset applier (``ObjectCreator``) on a local
/// file, without a server: new objects, objects the file holds (merged), property
/// lists that change order between objects, and what is skipped.
final class ObjectCreatorTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("openrealm-creator", removedBy: addTeardownBlock)
    }

    func openRealm() throws -> Realm {
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("creator.realm"))
        config.objectTypes = [BulkItem.self, BulkNote.self]
        return try Realm(configuration: config)
    }

    /// Applies `instructions` in one write; returns how many were skipped.
    func apply(_ realm: Realm, _ instructions: [WireInstruction]) throws -> Int {
        let file = FileAccess(coordinator: realm._coordinator)
        let skipped = try file.write { txn -> Int in
            var applier = ChangesetApplier(txn: txn.handle)
            applier.apply(instructions)
            return applier.skipped
        }.0
        realm.refresh()
        return skipped
    }

    func create(_ id: Int64, _ values: [WirePropertyValue]) -> WireInstruction {
        .createObject(className: "BulkItem", primaryKey: .int(id), values: values)
    }

    func testCreatesMergesAndFollowsChangingPropertyLists() throws {
        let realm = try openRealm()
        try realm.write {
            let existing = BulkItem()
            existing._id = 2
            existing.string = "kept"
            existing.int = 9
            realm.add(existing)
        }
        let skipped = try apply(realm, [
            create(1, [WirePropertyValue("int", .int(1)), WirePropertyValue("string", .string("one"))]),
            // The same properties in another order, then fewer, then an unknown one among them.
            create(3, [WirePropertyValue("string", .string("three")), WirePropertyValue("int", .int(3))]),
            create(4, [WirePropertyValue("double", .double(4.5))]),
            create(5, [WirePropertyValue("unknownHere", .int(5)), WirePropertyValue("int", .int(5)),
                       WirePropertyValue("optionalInt", .null), WirePropertyValue("link", .link(WireObjectRef(className: "BulkItem", primaryKey: .int(1))))]),
            // An existing object: its values merge in, others stay.
            create(2, [WirePropertyValue("int", .int(20))]),
            create(1, []),
            // The primary key among the values and a collection are left to their own instructions.
            create(6, [WirePropertyValue("_id", .int(99)), WirePropertyValue("strings", .string("not a list value")),
                       WirePropertyValue("int", .int(6))]),
            // Skipped: a class this file lacks.
            .createObject(className: "Elsewhere", primaryKey: .int(1), values: []),
        ])
        XCTAssertEqual(skipped, 1)
        let items = realm.objects(BulkItem.self).sorted(byKeyPath: "_id")
        XCTAssertEqual(items.map(\._id), [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(items.map(\.int), [1, 20, 3, 0, 5, 6])
        XCTAssertEqual(items.map(\.string), ["one", "kept", "three", "", "", ""])
        XCTAssertEqual(realm.object(ofType: BulkItem.self, forPrimaryKey: 4)?.double, 4.5)
        XCTAssertEqual(realm.object(ofType: BulkItem.self, forPrimaryKey: 5)?.link?._id, 1)
        XCTAssertNil(realm.object(ofType: BulkItem.self, forPrimaryKey: 99))
    }

    /// Runs of inserts at consecutive positions of one list go in as one ORCore call
    /// (an object sent whole); the list and what observers are told are those of the
    /// inserts one by one, past-the-end positions clamped, a value the list cannot
    /// hold skipped on its own.
    func testRunsOfListInsertsApplyAsOneByOne() throws {
        let realm = try openRealm()
        try realm.write { realm.add(BulkItem(value: ["_id": 1, "strings": ["a", "b"]])) }
        var initial = false
        var changes: [(deletions: [Int], insertions: [Int])] = []
        let token = realm.object(ofType: BulkItem.self, forPrimaryKey: 1)!.strings.observe { change in
            switch change {
            case .initial: initial = true
            case .update(_, let deletions, let insertions, _): changes.append((deletions, insertions))
            case .error: break
            }
        }
        defer { token.invalidate() }
        func spin(until done: () -> Bool) {
            let deadline = Date().addingTimeInterval(10)
            while !done() && Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
        }
        spin { initial }
        let strings = WireObjectPath(className: "BulkItem", primaryKey: .int(1))
        func insert(_ index: UInt64, _ value: WireValue) -> WireInstruction {
            .listInsert(object: strings, property: "strings", index: index, value: value)
        }
        var instructions: [WireInstruction] = [.clearCollection(object: strings, property: "strings")]
        instructions += (0..<300).map { insert(UInt64($0), .string("e\($0)")) }
        instructions += [insert(1, .string("m0")), insert(2, .string("m1")), insert(3, .string("m2"))]
        // Past the end: clamped, each in turn.
        instructions += [insert(900, .string("z0")), insert(901, .string("z1"))]
        // A run holding a value of the wrong type: the others still go in.
        instructions += [insert(0, .string("w0")), insert(1, .int(5)), insert(2, .string("w2"))]
        let skipped = try apply(realm, instructions)
        XCTAssertEqual(skipped, 1)
        var expected = (0..<300).map { "e\($0)" }
        expected.insert(contentsOf: ["m0", "m1", "m2"], at: 1)
        expected += ["z0", "z1"]
        expected.insert("w0", at: 0)
        expected.insert("w2", at: 2)
        XCTAssertEqual(Array(realm.object(ofType: BulkItem.self, forPrimaryKey: 1)!.strings), expected)
        spin { !changes.isEmpty }
        XCTAssertEqual(changes.first?.deletions, [0, 1])
        XCTAssertEqual(changes.first?.insertions.count, expected.count)
    }

    func testAKeyOfTheWrongTypeIsRefusedNotCreated() throws {
        let realm = try openRealm()
        let skipped = try apply(realm, [
            .createObject(className: "BulkItem", primaryKey: .string("seven"), values: [WirePropertyValue("int", .int(7))]),
            create(8, [WirePropertyValue("int", .int(8))]),
        ])
        XCTAssertEqual(skipped, 1)
        XCTAssertEqual(realm.objects(BulkItem.self).map(\._id), [8])
    }

    /// A link to an object the download creates later is set once the download is
    /// applied; a later write of the property in the same download wins over it, an
    /// erased object's remembered links are dropped, and a target that never comes
    /// leaves the link null.
    func testLinksToObjectsCreatedLaterInTheDownload() throws {
        let realm = try openRealm()
        func link(_ id: Int64) -> WireValue { .link(WireObjectRef(className: "BulkItem", primaryKey: .int(id))) }
        let skipped = try apply(realm, [
            create(1, [WirePropertyValue("link", link(3))]),
            create(2, [WirePropertyValue("link", link(3))]),
            create(5, [WirePropertyValue("link", link(3)), WirePropertyValue("mixed", link(4))]),
            create(6, [WirePropertyValue("link", link(99))]),
            .set(object: WireObjectPath(className: "BulkItem", primaryKey: .int(2)), property: "link", value: .null),
            .eraseObject(WireObjectPath(className: "BulkItem", primaryKey: .int(5))),
            create(3, [WirePropertyValue("int", .int(3))]),
            create(4, [WirePropertyValue("int", .int(4)), WirePropertyValue("mixed", link(1))]),
        ])
        XCTAssertEqual(skipped, 0)
        XCTAssertEqual(realm.object(ofType: BulkItem.self, forPrimaryKey: 1)?.link?._id, 3)
        XCTAssertNil(realm.object(ofType: BulkItem.self, forPrimaryKey: 2)?.link, "the later set to null wins")
        XCTAssertNil(realm.object(ofType: BulkItem.self, forPrimaryKey: 5))
        XCTAssertNil(realm.object(ofType: BulkItem.self, forPrimaryKey: 6)?.link, "its target never came")
        XCTAssertEqual(realm.object(ofType: BulkItem.self, forPrimaryKey: 4)?.mixed.object(BulkItem.self)?._id, 1)
    }
}
