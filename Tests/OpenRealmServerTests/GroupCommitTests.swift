import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Uploads that wait for the app together (from several connections) are integrated in
/// one write transaction, one server version and history entry per changeset, fanned
/// out in server version order, each exactly once.
final class GroupCommitTests: ServerTestCase {
    private func tagUpload(_ writer: Int, versions: ClosedRange<Int>, base: UInt64) -> WireUpload {
        WireUpload(session: 1, changesets: versions.map { v in
            WireUploadChangeset(clientVersion: UInt64(v), lastIntegratedServerVersion: base,
                                timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + UInt64(writer * 100 + v)),
                                instructions: [.listInsert(object: Self.path(1), property: "tags", index: UInt64(v - 1),
                                                           value: .string("w\(writer)-\(v)"))])
        })
    }

    private func waitForAcknowledgement(_ client: TestSyncClient, of clientVersion: UInt64) throws -> UInt64 {
        try client.waitFor("the acknowledgement of client version \(clientVersion)") { message -> UInt64? in
            if case .error(let e) = message { XCTFail("refused: \(e.message)") }
            if case .download(let d) = message, d.changesets.isEmpty, d.progress.lastIntegratedClientVersion >= clientVersion {
                return d.progress.serverVersion
            }
            return nil
        }
    }

    /// Where commits are counted from: the embedded store's committed version (nothing
    /// on PostgreSQL, where ``commits(_:since:versions:)`` reads the history's rows).
    private func commitMark(_ app: SyncApp) throws -> UInt64 {
        database == nil ? try app.store.environment.committedVersion() : 0
    }

    /// The write transactions that committed `versions`: the embedded store's commits
    /// since `mark`; on PostgreSQL the transactions that wrote the versions' history rows.
    private func commits(_ app: SyncApp, since mark: UInt64, versions: ClosedRange<UInt64>) throws -> UInt64 {
        guard let database else { return try app.store.environment.committedVersion() - mark }
        let count = try database.sql("SELECT count(DISTINCT xmin::text) FROM openrealm_history WHERE app_id = 'todo' "
            + "AND server_version BETWEEN \(versions.lowerBound) AND \(versions.upperBound)")
        return try XCTUnwrap(UInt64(count), count)
    }

    func testQueuedUploadsOfSeveralClientsAreCommittedTogetherInOrder() throws {
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        try upload(setup, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let (reader, _) = try boundClient()
        try subscribeToAllTasks(reader)
        let writers = try (0..<3).map { _ in try boundClient().0 }
        for writer in writers { try subscribeToAllTasks(writer) }
        let app = try server.auth.apps.app("todo")
        let base = app.serverVersion
        let last = base + 9

        let release = try holdAppLock()
        defer { release() }
        let commitsBefore = try commitMark(app)
        for (i, writer) in writers.enumerated() {
            try writer.send(.upload(tagUpload(i, versions: 1...3, base: base)))
            try waitUntil("upload \(i) is queued") { app.uploads.count == i + 1 }
        }
        release()
        for writer in writers {
            XCTAssertEqual(try waitForAcknowledgement(writer, of: 3), last, "acknowledged once all nine are integrated")
        }
        XCTAssertEqual(try commits(app, since: commitsBefore, versions: (base + 1)...last), 1,
                       "the three uploads were committed in one transaction")

        // One history entry per changeset, in queue order, server versions without a gap.
        var origins: [(UInt64, UInt64)] = []
        for version in (base + 1)...last {
            let entry = try XCTUnwrap(try app.storage.read { try $0.historyEntry(version) }, "no history entry \(version)")
            origins.append((entry.originFileIdent, entry.originClientVersion))
        }
        let expected = writers.indices.flatMap { w in (1...3).map { (UInt64(w), UInt64($0)) } }
        XCTAssertEqual(origins.map(\.1), expected.map(\.1))
        XCTAssertEqual(Set(origins.map(\.0)).count, 3)
        XCTAssertEqual(try app.storage.read { try $0.historyEntry(last + 1) }, nil)

        // The reader got each version once, in server version order.
        var versions: [UInt64] = []
        while versions.count < 9 {
            let version = try reader.waitFor("download \(versions.count + 1) of 9") { message -> UInt64? in
                if case .download(let d) = message, let c = d.changesets.first { return c.serverVersion } else { return nil }
            }
            versions.append(version)
        }
        XCTAssertEqual(versions, Array((base + 1)...last))

        // A re-upload is skipped (exactly once): no new version, nothing fanned out.
        try writers[0].send(.upload(tagUpload(0, versions: 1...3, base: base)))
        XCTAssertEqual(try waitForAcknowledgement(writers[0], of: 3), last)
        XCTAssertEqual(app.serverVersion, last)
        try reader.send(.mark(WireMark(session: 1, requestId: 1)))
        _ = try reader.waitFor("the mark") { message -> Bool? in
            if case .download(let d) = message, !d.changesets.isEmpty { XCTFail("downloaded \(d.changesets) again") }
            if case .mark = message { return true } else { return nil }
        }
    }

    /// A download fanned out for one changeset of a group acknowledges only what was
    /// integrated before that changeset: a client told that its own later changeset was
    /// integrated would forget it, and not transform the earlier changesets of others
    /// that still reach it against it (the lists diverge).
    func testAFannedOutDownloadAcknowledgesOnlyWhatPrecedesItsChangeset() throws {
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        try upload(setup, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let writers = try (0..<2).map { _ in try boundClient().0 }
        for writer in writers { try subscribeToAllTasks(writer) }
        let app = try server.auth.apps.app("todo")
        let base = app.serverVersion

        let release = try holdAppLock()
        defer { release() }
        for (i, writer) in writers.enumerated() {
            try writer.send(.upload(tagUpload(i, versions: 1...2, base: base)))
            try waitUntil("upload \(i) is queued") { app.uploads.count == i + 1 }
        }
        release()
        // Writer 0's changesets are base + 1 and base + 2, integrated before any of
        // writer 1's: their downloads to writer 1 acknowledge none of its uploads.
        var seen: [UInt64: UInt64] = [:]
        while seen.count < 2 {
            let (version, acknowledged) = try writers[1].waitFor("writer 0's changesets") { message -> (UInt64, UInt64)? in
                if case .download(let d) = message, let c = d.changesets.first {
                    XCTAssertEqual(c.lastIntegratedClientVersion, 0)
                    return (c.serverVersion, d.progress.lastIntegratedClientVersion)
                }
                return nil
            }
            seen[version] = acknowledged
        }
        XCTAssertEqual(seen, [base + 1: 0, base + 2: 0])
        XCTAssertEqual(try waitForAcknowledgement(writers[1], of: 2), base + 4)
        // Writer 1's changesets came after both of writer 0's.
        for version in (base + 3)...(base + 4) {
            let acknowledged = try writers[0].waitFor("writer 1's changeset \(version)") { message -> UInt64? in
                if case .download(let d) = message, let c = d.changesets.first, c.serverVersion == version {
                    return d.progress.lastIntegratedClientVersion
                }
                return nil
            }
            XCTAssertEqual(acknowledged, 2)
        }
    }

    /// A bad upload in a group fails its own session only: the group is integrated
    /// again upload by upload.
    func testABadUploadInAGroupFailsItsSessionOnly() throws {
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        try upload(setup, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let (good, _) = try boundClient()
        try subscribeToAllTasks(good)
        let (bad, _) = try boundClient()
        try subscribeToAllTasks(bad)
        let app = try server.auth.apps.app("todo")
        let base = app.serverVersion
        let release = try holdAppLock()
        defer { release() }
        try good.send(.upload(tagUpload(0, versions: 1...2, base: base)))
        try waitUntil("the good upload is queued") { app.uploads.count == 1 }
        var backwards = tagUpload(1, versions: 1...2, base: base)
        backwards.changesets.reverse()
        try bad.send(.upload(backwards))
        try waitUntil("the bad upload is queued") { app.uploads.count == 2 }
        release()
        XCTAssertEqual(try waitForAcknowledgement(good, of: 2), base + 2)
        let error = try bad.waitFor("the bad upload's error") { message -> WireErrorMessage? in
            if case .error(let e) = message { return e } else { return nil }
        }
        XCTAssertEqual(error.code, .badProgress)
        XCTAssertTrue(error.isFatal)
        XCTAssertEqual(app.serverVersion, base + 2)
    }

    /// A backlog larger than ``UploadIntegration/uploadPartChangesets`` is integrated in
    /// parts: each part is its own durable commit and acknowledgement, so a server
    /// stopped in the middle keeps the parts already done, and other clients' uploads
    /// are not held behind the whole backlog.
    func testALargeUploadIsIntegratedInDurableParts() throws {
        let (setup, _) = try boundClient()
        try subscribeToAllTasks(setup)
        try upload(setup, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")])
        let (writer, _) = try boundClient()
        try subscribeToAllTasks(writer)
        let app = try server.auth.apps.app("todo")
        let base = app.serverVersion
        let count = UploadIntegration.uploadPartChangesets * 3 + 5
        let commitsBefore = try commitMark(app)
        try writer.send(.upload(tagUpload(0, versions: 1...count, base: base)))

        // An acknowledgement per part, each acknowledging a whole part more.
        var acknowledged: [UInt64] = []
        while acknowledged.last != UInt64(count) {
            let clientVersion = try writer.waitFor("acknowledgement \(acknowledged.count + 1)") { message -> UInt64? in
                if case .error(let e) = message { XCTFail("refused: \(e.message)") }
                if case .download(let d) = message, d.changesets.isEmpty,
                   d.progress.lastIntegratedClientVersion > (acknowledged.last ?? 0) {
                    return d.progress.lastIntegratedClientVersion
                }
                return nil
            }
            acknowledged.append(clientVersion)
        }
        let part = UInt64(UploadIntegration.uploadPartChangesets)
        XCTAssertEqual(acknowledged, [part, 2 * part, 3 * part, UInt64(count)])
        XCTAssertGreaterThanOrEqual(try commits(app, since: commitsBefore, versions: (base + 1)...(base + UInt64(count))), 4,
                                    "a commit per part")
        XCTAssertEqual(app.serverVersion, base + UInt64(count), "every changeset integrated once")
        XCTAssertEqual(UploadIntegration.parts(of: WireUpload(session: 1, changesets: [])).count, 1,
                       "an empty upload stays one, to be acknowledged")
    }
}

/// A group commit that fails puts every session's view back from its journal of
/// changes (no copy of the view is kept): what entered leaves, what left comes back,
/// in any interleaving; a committed group keeps its changes.
final class ViewJournalTests: ServerTestCase {
    func testAFailedGroupPutsTheViewBackAndACommittedOneKeepsIt() throws {
        let app = try server.auth.apps.app("todo")
        let session = ServerSession(number: 1, app: app, userId: "u", file: ClientFileRecord(
            ident: 7, salt: 1, userId: "u", lastIntegratedClientVersion: 0), bindServerVersion: 0, output: { _ in })
        func ref(_ i: Int) -> WireObjectRef { WireObjectRef(className: "Task", primaryKey: .int(Int64(i))) }
        let start = Set((0..<50).map(ref))
        session.viewObjects = start
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            session.beginViewJournal()
            for _ in 0..<200 {
                let r = ref(Int.random(in: 0..<100, using: &rng))
                if Bool.random(using: &rng) { session.enterView(r) } else { session.leaveView(r) }
            }
            XCTAssertNotEqual(session.viewObjects, start)
            session.rollBackView()
            XCTAssertEqual(session.viewObjects, start)
            // Once rolled back, nothing is journaled until the next group begins.
            session.rollBackView()
            XCTAssertEqual(session.viewObjects, start)
        }
        session.beginViewJournal()
        session.enterView(ref(99))
        session.leaveView(ref(0))
        session.endViewJournal()
        session.rollBackView()
        XCTAssertEqual(session.viewObjects, start.union([ref(99)]).subtracting([ref(0)]))
    }
}
