import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport
@testable import OpenRealmServer

/// The sync engine's units of work (history and client files, `Storage/SyncUnits.swift`)
/// asserted the same way on both stores: the same calls give the same answers on the
/// embedded store and on PostgreSQL.
final class SyncUnitContractTests: PostgresTestCase {
    /// A store as these tests use it: make a client file, run a locked unit.
    private struct Store {
        let name: String
        let newFile: (String) throws -> ClientFileRecord
        let locked: (_ body: (any HistoryTrimming & ClientFileWriting) throws -> Void) throws -> Void
    }

    private func stores(appId: String = "app") throws -> [Store] {
        let embedded = try AppStore(appId: appId, directory: directory.appendingPathComponent(UUID().uuidString))
        let app = PostgresApp(database: try pool(makeDatabase()), appId: appId)
        return [
            Store(name: "embedded", newFile: { try embedded.newClientFile(userId: $0) },
                  locked: { body in try embedded.environment.write { txn in try body(txn) } }),
            Store(name: "postgres", newFile: { try app.createClientFile(userId: $0) },
                  locked: { body in try app.withWriteLock("test") { unit, _ in try body(PostgresSyncUnit(unit, appId: app.appId)) } }),
        ]
    }

    func testHistoryEntriesReadBackAsWritten() throws {
        let entries = [
            HistoryEntry(serverVersion: 1, originFileIdent: 7, originClientVersion: 3,
                         timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_123, counter: 4), integratedAt: 1_700_000_000_200,
                         changeset: [1, 2, 3]),
            HistoryEntry(serverVersion: 2, originFileIdent: 0, originClientVersion: 0,
                         timestamp: WireHybridTimestamp(milliseconds: 0, counter: UInt32.max), integratedAt: 5,
                         changeset: [], compensation: [9, 9], uploadedListEdits: [0, 255], originServerVersion: 1),
            HistoryEntry(serverVersion: 3, originFileIdent: UInt64(Int64.max), originClientVersion: 1,
                         timestamp: WireHybridTimestamp(milliseconds: 1, counter: 0), integratedAt: 6,
                         changeset: Array(repeating: 0xAB, count: 70_000), originServerVersion: 0),
        ]
        for store in try stores() {
            try store.locked { unit in
                XCTAssertEqual(try unit.historyFloor(), 0, store.name)
                for entry in entries { try unit.appendHistory(entry) }
            }
            try store.locked { unit in
                for entry in entries { XCTAssertEqual(try unit.historyEntry(entry.serverVersion), entry, store.name) }
                XCTAssertNil(try unit.historyEntry(4), store.name)
                XCTAssertNil(try unit.historyEntry(UInt64.max), store.name)
            }
        }
    }

    func testClientFilesGiveTheSameAnswersOnBothStores() throws {
        // Uploads with random bases, drawn once and replayed on both stores: per upload,
        // nil for a base of 0 (the file's own new objects), else how far the base moves on.
        let steps: [UInt64?] = (0..<120).map { _ in Int.random(in: 0..<4) == 0 ? nil : UInt64.random(in: 0..<3) }
        var answers: [String: [String]] = [:]
        for store in try stores() {
            var log: [String] = []
            let file = try store.newFile("user-1")
            let other = try store.newFile("user-2")
            XCTAssertNotEqual(file.ident, other.ident, store.name)
            XCTAssertTrue((1...UInt64(Int64.max)).contains(file.salt), store.name)
            try store.locked { unit in
                let record = try XCTUnwrap(try unit.clientFile(file.ident), store.name)
                XCTAssertEqual(record, file, store.name)
                XCTAssertNil(try unit.clientFile(999_999), store.name)
                XCTAssertEqual(try unit.uploadBase(999_999), 0, store.name)
                XCTAssertNil(try unit.completedView(file.ident), store.name)
                XCTAssertEqual(try unit.bootstrapCopies(file.ident), BootstrapCopies(), store.name)
                log.append("base \(try unit.uploadBase(file.ident))")
                try unit.recordIntegrated(file.ident, clientVersion: 12)
                try unit.setCompletedView(file.ident, CompletedView(serverVersion: 4, record: "v1:Task:TRUEPREDICATE"))
                var copies = BootstrapCopies()
                copies.record(version: 5, sent: [WireObjectRef(className: "Task", primaryKey: .int(1))])
                try unit.setBootstrapCopies(copies, for: file.ident)
                try unit.recordProgress(file.ident, serverVersion: 3)
            }
            try store.locked { unit in
                XCTAssertEqual(try unit.clientFile(file.ident)?.lastIntegratedClientVersion, 12, store.name)
                XCTAssertEqual(try unit.completedView(file.ident), CompletedView(serverVersion: 4, record: "v1:Task:TRUEPREDICATE"), store.name)
                XCTAssertTrue(try unit.bootstrapCopies(file.ident).sentWhole(WireObjectRef(className: "Task", primaryKey: .int(1)), after: 4),
                              store.name)
                try unit.setBootstrapCopies(BootstrapCopies(), for: file.ident)
                XCTAssertEqual(try unit.bootstrapCopies(file.ident), BootstrapCopies(), store.name)
            }
            // The upload base follows one rule. Bases never decrease for one file, except 0.
            var version: UInt64 = 10
            var base: UInt64 = 0
            for round in 0..<6 {
                try store.locked { unit in
                    for step in steps[(round * 20)..<(round * 20 + 20)] {
                        version += 1
                        guard let step else { try unit.recordUpload(file.ident, base: 0, version: version); continue }
                        base = min(version - 1, base + step)
                        try unit.recordUpload(file.ident, base: base, version: version)
                    }
                }
                try store.locked { unit in log.append("round \(round) base \(try unit.uploadBase(file.ident))") }
            }
            answers[store.name] = log
        }
        XCTAssertEqual(answers["embedded"], answers["postgres"])
        XCTAssertEqual(answers["embedded"]?.count, 7)
    }

    /// The trim on both stores: files seen within the retention period and bound files
    /// are waited for (bound ones recorded as seen), a file away too long is not, and
    /// the floor and the entries left agree.
    func testTrimmingWaitsForTheSameFilesOnBothStores() throws {
        let now = AppStore.nowMilliseconds
        var answers: [String: [String]] = [:]
        for store in try stores() {
            var log: [String] = []
            let (a, b, away) = (try store.newFile("u"), try store.newFile("u"), try store.newFile("u"))
            try store.locked { unit in
                for version in UInt64(1)...10 {
                    try unit.appendHistory(HistoryEntry(serverVersion: version, originFileIdent: a.ident, originClientVersion: version,
                                                        timestamp: WireHybridTimestamp(milliseconds: 1, counter: 0), integratedAt: 1,
                                                        changeset: [UInt8(version)]))
                }
                try unit.recordUpload(a.ident, base: 6, version: 7)
                try unit.recordUpload(b.ident, base: 8, version: 9)
                try unit.recordSeen([away.ident], now: now - 10 * 86_400_000)
            }
            try store.locked { unit in
                log.append("floor \(try HistoryTrimmer.trim(unit, latest: 10, retentionSeconds: 3600, bound: [], now: now))")
                log.append("left \((UInt64(1)...10).filter { (try? unit.historyEntry($0)) != nil })")
                // The away file comes back bound: nothing more is trimmed, and it is seen.
                log.append("floor \(try HistoryTrimmer.trim(unit, latest: 10, retentionSeconds: 3600, bound: [away.ident], now: now))")
                let seen = try unit.trimCandidates().first { $0.ident == away.ident }?.lastSeenAt
                log.append("away seen now: \(seen == now)")
            }
            try store.locked { unit in
                // Every file moves past 9: the history up to 9 goes, 10 stays.
                try unit.recordUpload(a.ident, base: 9, version: 10)
                try unit.recordUpload(b.ident, base: 9, version: 10)
                try unit.recordUpload(away.ident, base: 9, version: 10)
            }
            try store.locked { unit in
                log.append("floor \(try HistoryTrimmer.trim(unit, latest: 10, retentionSeconds: 3600, bound: [], now: now))")
                log.append("floor read \(try unit.historyFloor()), left \((UInt64(1)...10).filter { (try? unit.historyEntry($0)) != nil })")
            }
            answers[store.name] = log
        }
        XCTAssertEqual(answers["embedded"], [
            "floor 6", "left [7, 8, 9, 10]", "floor 6", "away seen now: true", "floor 9", "floor read 9, left [10]",
        ])
        XCTAssertEqual(answers["postgres"], answers["embedded"])
    }

    /// A backlog of uploads of one file in one unit writes the file's record once, at
    /// the end, and reads within the unit see the record as recorded so far.
    func testUploadRecordsAreWrittenOncePerUnit() throws {
        let cluster = try PostgresCluster.shared()
        let location = try makeDatabase()
        let app = PostgresApp(database: try pool(location), appId: "app")
        let file = try app.createClientFile(userId: "u")
        try cluster.psql(location.database, """
            CREATE TABLE updates (n integer NOT NULL);
            INSERT INTO updates VALUES (0);
            CREATE FUNCTION count_update() RETURNS trigger AS 'BEGIN UPDATE updates SET n = n + 1; RETURN NEW; END' LANGUAGE plpgsql;
            CREATE TRIGGER counted BEFORE UPDATE ON openrealm_client_files FOR EACH ROW EXECUTE FUNCTION count_update();
            """)
        try app.withWriteLock("a backlog") { unit, _ in
            let sync = PostgresSyncUnit(unit, appId: app.appId)
            for version in UInt64(1)...50 {
                try sync.recordUpload(file.ident, base: 3, version: version + 3)
                XCTAssertEqual(try sync.uploadBase(file.ident), 3)
            }
        }
        XCTAssertEqual(try cluster.psql(location.database, "SELECT n FROM updates"), "1")
        try app.withWriteLock("read back") { unit, _ in
            XCTAssertEqual(try PostgresSyncUnit(unit, appId: app.appId).uploadBase(file.ident), 3)
        }
    }
}
