import Foundation
import XCTest
import OpenRealmQuery
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmPostgres
@testable import OpenRealmServer

/// The storage factory and its units as the sync engine uses them (``ServerStorage``,
/// ``AppStorage``): an app opened through ``PostgresStorage`` and through
/// ``EmbeddedStorage`` runs the same sequence of units — a client file made, changesets
/// integrated through `integrate` and appended to the history with their post-images,
/// a rolled-back unit, then everything read back — with the same answers.
final class StorageContractTests: PostgresTestCase {
    /// A storage as these tests open it, with the PostgreSQL feed to stop afterwards.
    private func storages() throws -> [(name: String, storage: any ServerStorage)] {
        let postgres = PostgresStorage(database: try pool(makeDatabase()))
        addTeardownBlock { postgres.close() }
        return [("embedded", EmbeddedStorage(dataDirectory: directory.appendingPathComponent("embedded"))),
                ("postgres", postgres)]
    }

    private static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Task", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Task", property: WirePropertySchema(name: "title", type: .string, collection: .none, isOptional: false)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "count", type: .int, collection: .none, isOptional: false)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "tags", type: .string, collection: .list, isOptional: false)),
    ]

    private static func task(_ id: Int64) -> WireObjectRef { WireObjectRef(className: "Task", primaryKey: .int(id)) }

    private static func changesets() -> [[WireInstruction]] {
        let one = WireObjectPath(task(1))
        return [
            schema + [
                .createObject(className: "Task", primaryKey: .int(1), values: [WirePropertyValue("title", .string("one")),
                                                                              WirePropertyValue("count", .int(1))]),
                .createObject(className: "Task", primaryKey: .int(2), values: [WirePropertyValue("title", .string("two")),
                                                                              WirePropertyValue("count", .int(5))]),
                .listInsert(object: one, property: "tags", index: 0, value: .string("a")),
            ],
            [
                .addInteger(object: one, property: "count", delta: 9),
                .listInsert(object: one, property: "tags", index: 0, value: .string("b")),
                .eraseObject(WireObjectPath(task(2))),
                .createObject(className: "Task", primaryKey: .int(3), values: [WirePropertyValue("title", .string("three"))]),
            ],
        ]
    }

    /// Integrates `instructions` in a locked unit and appends them as the next version.
    private static func integrate(_ app: any AppStorage, _ instructions: [WireInstruction], file: UInt64,
                                  clientVersion: UInt64) throws -> String {
        try app.withAppWriteLock { unit in
            let version = try unit.serverVersion() + 1
            let stamp = WriteStamp(timestamp: WireHybridTimestamp(milliseconds: 1_000 + version * 10), originFileIdent: file)
            let integrated = try unit.integrate(instructions, IntegrationSettings(developmentMode: true, stamp: stamp, partition: nil))
            try unit.appendHistory(HistoryEntry(serverVersion: version, originFileIdent: file, originClientVersion: clientVersion,
                                                timestamp: stamp.timestamp, integratedAt: 7,
                                                changeset: Array("\(integrated.applied)".utf8)))
            try unit.recordPostImages(of: [task(1), task(2), task(3)], serverVersion: version)
            try unit.recordIntegrated(file, clientVersion: clientVersion)
            try unit.recordUpload(file, base: version - 1, version: version)
            return "v\(version) applied \(integrated.applied.count)"
        }
    }

    private static func predicate(_ text: String) throws -> QueryPredicate {
        try QueryParser.parse(text).normalized().predicate
    }

    func testTheSameUnitsGiveTheSameAnswersThroughEitherStorage() throws {
        var answers: [String: [String]] = [:]
        for (name, storage) in try storages() {
            var log: [String] = []
            XCTAssertFalse(storage.hasApp("app"), name)
            let app = try storage.app("app")
            XCTAssertTrue(storage.hasApp("app"), name)
            XCTAssertEqual(storage.appCount(), 1, name)
            XCTAssertTrue(try storage.app("app") === app, name)
            // As an engine in the shared topology does (``SyncApp``).
            try app.keepPostImages()

            let file = try app.write { unit in try unit.createClientFile(userId: "user-1") }
            XCTAssertEqual(try app.read { unit in try unit.clientFile(file.ident) }, file, name)
            log.append("restore ceiling \(String(describing: try app.read { unit in try unit.restoreCeiling(file.ident) }))")
            for (i, changeset) in Self.changesets().enumerated() {
                log.append(try Self.integrate(app, changeset, file: file.ident, clientVersion: UInt64(i + 1)))
            }
            // A unit that throws leaves nothing written.
            struct Abandon: Error {}
            XCTAssertThrowsError(try app.withAppWriteLock { unit in
                try unit.appendHistory(HistoryEntry(serverVersion: try unit.serverVersion() + 1, originFileIdent: file.ident,
                                                    originClientVersion: 9, timestamp: WireHybridTimestamp(milliseconds: 1),
                                                    integratedAt: 1, changeset: [1]))
                _ = try unit.integrate([.createObject(className: "Task", primaryKey: .int(9), values: [])],
                                       IntegrationSettings(developmentMode: true,
                                                           stamp: WriteStamp(timestamp: WireHybridTimestamp(milliseconds: 9_000),
                                                                             originFileIdent: file.ident), partition: nil))
                throw Abandon()
            }, name)

            try app.read { unit in
                log.append("version \(try unit.serverVersion()) floor \(try unit.historyFloor())")
                for version in UInt64(1)...3 {
                    log.append("entry \(version): \(String(describing: try unit.historyEntry(version)))")
                }
                let record = try XCTUnwrap(try unit.clientFile(file.ident), name)
                log.append("file integrated \(record.lastIntegratedClientVersion) base \(try unit.uploadBase(file.ident))")
                let refs = (1...9).map { Self.task(Int64($0)) }
                log.append("existing \(try unit.existing(refs).sorted { "\($0)" < "\($1)" })")
                log.append("images \(try unit.images(refs))")
                for query in ["TRUEPREDICATE", "count > 3", "title BEGINSWITH 't'", "tags == 'b'"] {
                    log.append("\(query): \(try unit.matching(try Self.predicate(query), in: "Task", among: nil))")
                }
                log.append("among: \(try unit.matching(try Self.predicate("count >= 0"), in: "Task", among: [Self.task(3), Self.task(2)]))")
                for version in UInt64(1)...2 {
                    let images = try XCTUnwrap(try unit.postImages(version), "\(name) post-images of \(version)")
                    log.append("post-images \(version): \(images.objects.map { "\($0.ref) \(String(describing: $0.image))" })")
                }
            }
            log.append("stored schema \(try app.storedSchema())")
            let configured = AppSchema(classes: [
                AppSchema.Class(schema: WireClassSchema(name: "Note", primaryKey: WirePrimaryKeySchema(name: "_id", type: .string)),
                                properties: [WirePropertySchema(name: "text", type: .string, collection: .none, isOptional: true)]),
            ])
            log.append("configured added \(try app.applyConfiguredSchema(configured))")
            log.append("configured again \(try app.applyConfiguredSchema(configured))")
            XCTAssertThrowsError(try app.applyConfiguredSchema(AppSchema(classes: [
                AppSchema.Class(schema: WireClassSchema(name: "Note", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int)),
                                properties: []),
            ])), name) { error in
                XCTAssertTrue("\(error)".contains("Note"), "\(name): \(error)")
            }
            log.append("stored schema after \(try app.storedSchema())")
            answers[name] = log
        }
        XCTAssertEqual(answers["embedded"]?.count, answers["postgres"]?.count)
        for (a, b) in zip(answers["embedded"] ?? [], answers["postgres"] ?? []) {
            XCTAssertEqual(b, a)
        }
        XCTAssertEqual(answers["embedded"]?.first { $0.hasPrefix("version") }, "version 2 floor 0")
    }

    /// A locked unit that appends a version announces it: another subscriber of the app
    /// is woken when it commits, with the feed's poll too slow to be what woke it.
    func testALockedUnitThatAppendsWakesTheAppsFeed() throws {
        let database = try pool(makeDatabase())
        let storage = PostgresStorage(database: database, feed: PostgresCommitFeed(database: database, pollInterval: .seconds(3_600)))
        defer { storage.close() }
        let app = try storage.app("app")
        let woken = DispatchSemaphore(value: 0)
        let subscription = app.commitFeed.subscribe { woken.signal() }
        defer { subscription.cancel() }
        let listening = Date().addingTimeInterval(10)
        while !storage.feed.isListening, Date() < listening { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(storage.feed.isListening)
        try app.withAppWriteLock { unit in
            try unit.appendHistory(HistoryEntry(serverVersion: try unit.serverVersion() + 1, originFileIdent: 1, originClientVersion: 1,
                                                timestamp: WireHybridTimestamp(milliseconds: 1), integratedAt: 1, changeset: []))
        }
        XCTAssertEqual(woken.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try app.commitFeed.committedVersion(), 1)
    }
}
