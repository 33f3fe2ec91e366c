import Foundation
import Logging
import XCTest
import OpenRealmQuery
import OpenRealmWire
@testable import OpenRealmServer
import OpenRealmTestSupport

/// ``RecordedMembership`` (post-images and the Swift query evaluator) answers as
/// ``LiveMembership`` (the store's ORCore queries) on the same objects: views' queries,
/// read rules and partitions (the hidden column included) over objects with a property
/// of every kind, read back through the store's own post-images.
final class RecordedMembershipTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("openrealm-recorded", removedBy: addTeardownBlock)
    }

    static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Other", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addClass(WireClassSchema(name: "Item", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Item", property: WirePropertySchema(name: "text", type: .string)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "n", type: .int, isOptional: true)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "d", type: .double)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "flag", type: .bool)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "when", type: .timestamp)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "dec", type: .decimal128)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "oid", type: .objectId)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "tags", type: .string, collection: .list)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "nums", type: .int, collection: .set)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "scores", type: .int, collection: .dictionary)),
        .addProperty(className: "Item", property: WirePropertySchema(name: "other", type: .link, isOptional: true, linkTarget: "Other")),
        .addProperty(className: "Item", property: WirePropertySchema(name: "m", type: .mixed, isOptional: true)),
    ]

    static let predicates = [
        "TRUEPREDICATE", "FALSEPREDICATE", "text == 'ab'", "text != 'ab'", "text BEGINSWITH 'b'", "text CONTAINS[c] 'B'",
        "text LIKE '?b*'", "text ==[c] 'AB'", "n == nil", "n > 2", "n BETWEEN {1, 3}", "n IN {0, 2, 4}", "d < 0.5",
        "d >= n", "flag == true AND n > 1", "NOT (flag == false) OR text == 'c'", "when > T1700000002:0",
        "dec > 1.5", "oid == oid(000102030405060708090a01)", "tags == 'a'", "ALL tags BEGINSWITH 'a'", "NONE tags == 'b'",
        "tags.@count > 1", "tags.@size == 0", "nums == 3", "nums.@count >= 2", "scores['a'] > 1", "scores.@keys == 'b'",
        "scores.@values == 2", "other == nil", "m == 1", "m == 'ab'", "m == nil", "m > 0.5",
    ]

    /// Objects with values from small pools, so that each predicate both holds and fails.
    static func objects(count: Int) -> [WireInstruction] {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let texts = ["ab", "AB", "b", "bb", "c", "abc", ""]
        var out: [WireInstruction] = (0..<3).map { .createObject(className: "Other", primaryKey: .int(Int64($0)), values: []) }
        for id in 0..<Int64(count) {
            let path = WireObjectPath(className: "Item", primaryKey: .int(id))
            let mixed: [WireValue] = [.null, .int(1), .string("ab"), .double(0.75), .bool(true)]
            out.append(.createObject(className: "Item", primaryKey: .int(id), values: [
                WirePropertyValue("text", .string(texts[next(texts.count)])),
                WirePropertyValue("n", next(5) == 0 ? .null : .int(Int64(next(5)))),
                WirePropertyValue("d", .double(Double(next(8)) / 4)),
                WirePropertyValue("flag", .bool(next(2) == 0)),
                WirePropertyValue("when", .timestamp(WireTimestamp(seconds: 1_700_000_000 + Int64(next(5)), nanoseconds: 0))),
                WirePropertyValue("dec", .decimal128(WireDecimal128(low: UInt64(next(40)), high: 0x303E_0000_0000_0000))),
                WirePropertyValue("oid", .objectId(WireObjectId(bytes: Array(0..<11) + [UInt8(next(3))])!)),
                WirePropertyValue("other", next(2) == 0 ? .null : .link(WireObjectRef(className: "Other", primaryKey: .int(Int64(next(3)))))),
                WirePropertyValue("m", mixed[next(mixed.count)]),
            ]))
            for i in 0..<next(4) {
                out.append(.listInsert(object: path, property: "tags", index: UInt64(i), value: .string(["a", "ab", "b"][next(3)])))
            }
            for _ in 0..<next(4) { out.append(.setInsert(object: path, property: "nums", value: .int(Int64(next(5))))) }
            for _ in 0..<next(3) {
                out.append(.dictionarySet(object: path, property: "scores", key: ["a", "b", "c"][next(3)], value: .int(Int64(next(4)))))
            }
        }
        return out
    }

    func testRecordedMembershipAnswersAsTheStoresQueries() throws {
        let apps = AppRegistry(storage: EmbeddedStorage(dataDirectory: directory), configured: .development(appId: "todo"))
        let auth = AuthService(apps: apps, signingKeys: TokenKeys(key: try SigningKey.loadOrCreate(in: directory)), hasher: PasswordHasher(rounds: 1024))
        let outbox = SyncConnectionTests.Outbox()
        let connection = SyncConnection(auth: auth, apps: apps, appId: "todo", logger: Logger(label: "test"), output: outbox.append)
        let encoder = WireEncoder()
        connection.receive(frame: try encoder.encode(.bind(WireBind(session: 1, appId: "todo",
                                                                   accessToken: try auth.anonymousLogin(appId: "todo").access_token))))
        connection.receive(frame: try encoder.encode(.query(WireQuery(session: 1, queryVersion: 1, queries: [
            WireClassQuery(className: "Item", query: "TRUEPREDICATE"), WireClassQuery(className: "Other", query: "TRUEPREDICATE"),
        ]))))
        connection.receive(frame: try encoder.encode(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
            instructions: Self.schema + Self.objects(count: 60))]))))
        guard case .download(let ack)? = outbox.messages.last, ack.progress.lastIntegratedClientVersion == 1 else {
            return XCTFail("the upload was not acknowledged: \(outbox.messages.suffix(2))")
        }
        let store = try apps.app("todo").store
        try store.keepPostImages()
        // Items 0 ..< 60 and one that does not exist; partitions in the hidden column.
        let refs = (0...60).map { WireObjectRef(className: "Item", primaryKey: .int(Int64($0))) }
        var views: [(String, SubscriptionView)] = []
        for text in Self.predicates {
            var view = SubscriptionView()
            view.queries["Item"] = try QueryParser.parse(text).normalized()
            views.append((text, view))
            // With a read rule too.
            view.permissions.read["Item"] = try QueryParser.parse("flag == true").normalized().predicate
            views.append((text + " (rule flag == true)", view))
        }
        for value in [WirePrimaryKey.string("p1"), .string("p2"), .int(1), .null] {
            var view = SubscriptionView()
            view.partition = SubscriptionView.Partition(field: "_partition", value: value)
            views.append(("partition \(value)", view))
        }
        struct Abort: Error {}
        XCTAssertThrowsError(try store.environment.write { txn in
            let cls = try XCTUnwrap(try txn.schema().topLevelClass(named: "Item"))
            _ = try txn.addHiddenColumn(.partition, to: cls)
            let objects = try txn.workingSet(WorkingSetRequest([]))
            for (i, ref) in refs.dropLast().enumerated() where i % 3 != 0 {
                let object = try XCTUnwrap(try objects.object(ref))
                let partition = SubscriptionView.Partition(field: "_partition", value: i % 3 == 1 ? .string("p1") : .int(1))
                try objects.setHiddenPartition(object, try XCTUnwrap(try txn.schema().topLevelClass(named: "Item")), partition.storedValue)
            }
            try objects.finish()
            try txn.recordPostImages(of: refs, serverVersion: 1_000_000)
            let images = try XCTUnwrap(try txn.postImages(1_000_000))
            let schema = try txn.schema()
            let live = LiveMembership(txn, schema: schema)
            let recorded = RecordedMembership(images, schema: schema)
            var held = 0
            for (text, view) in views {
                if let query = view.queries["Item"] {
                    XCTAssertNoThrow(try QueryEvaluator(query.predicate, className: "Item", schema: schema.query),
                                     "'\(text)' does not fit the schema: the comparison would be empty")
                }
                var matched = 0
                for ref in refs {
                    let expected = try live.isInView(view, ref)
                    XCTAssertEqual(try recorded.isInView(view, ref), expected, "\(ref) in view '\(text)'")
                    if expected { matched += 1 }
                }
                // FALSEPREDICATE, and partitions no object is in, hold for none.
                if !text.hasPrefix("FALSEPREDICATE"), !["partition \"p2\"", "partition null"].contains(text) {
                    XCTAssertGreaterThan(matched, 0, "'\(text)' holds for no object: the comparison says little")
                }
                held += matched
            }
            XCTAssertGreaterThan(held, 0)
            throw Abort()
        })
    }
}
