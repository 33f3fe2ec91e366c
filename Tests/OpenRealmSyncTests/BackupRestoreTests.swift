import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift
import OpenRealmTestSupport

/// A server restored from a backup, with real clients: one that synced past the backup
/// gets a client reset — even once the restored server has committed as many versions
/// again, so that its version numbers alone no longer tell — and one that did not
/// carries on without one.
final class BackupRestoreTests: SyncTestCase {
    var backupDirectory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        // The backup makes its directory: it must not exist yet.
        backupDirectory = try TemporaryDirectory.make("openrealm-sync-backup", removedBy: addTeardownBlock)
            .appendingPathComponent("backup")
    }

    nonisolated(nonsending) func open(_ user: User, _ seen: ClientResetTests.Seen) async throws -> Realm {
        var config = user.flexibleSyncConfiguration(clientResetMode: .manual(errorHandler: { error, _ in seen.sawError(error) }),
                                                    initialSubscriptions: { subs in subs.append(QuerySubscription<Task>(name: "all")) })
        config.objectTypes = [Task.self, Team.self]
        return try await Realm(configuration: config, downloadBeforeOpen: .always)
    }

    func names(_ realm: Realm) -> [String] {
        realm.refresh()
        return realm.objects(Task.self).map(\.taskName).sorted()
    }

    nonisolated(nonsending) func write(_ realm: Realm, _ name: String) async throws {
        try realm.write { realm.add(Task(value: ["taskName": name])) }
        let session = try XCTUnwrap(realm.syncSession)
        try await within(120, "the upload of \(name)") { try await session.wait(for: .upload) }
    }

    /// Stops the server, puts the backup in place of its data directory, starts it again
    /// (the same port), and has a new client write until the restored server's version
    /// reaches `version`.
    @MainActor
    func restoreAndCatchUp(to version: UInt64) async throws -> Realm {
        stopServer()
        try restore(backupDirectory, into: dataDirectory)
        try startServer()
        let writer = try await open(try await newUser("writer"), ClientResetTests.Seen())
        var n = 0
        while try serverVersion(server, appId: appId) < version {
            n += 1
            XCTAssertLessThan(n, 50, "the restored server does not advance")
            try await write(writer, "restored-\(n)")
        }
        return writer
    }

    @MainActor
    func testAClientThatSyncedPastTheBackupIsToldToReset() async throws {
        let seen = ClientResetTests.Seen()
        let a = try await open(try await newUser("a"), seen)
        try await write(a, "before")
        try backUp(dataDirectory, to: backupDirectory)
        try await write(a, "after")
        let lost = try serverVersion(server, appId: appId)
        try await suspendSession(of: a)

        // The restored server forgets "after", then commits past every version a saw.
        let writer = try await restoreAndCatchUp(to: lost + 1)
        XCTAssertFalse(names(writer).contains("after"))

        a.syncSession!.resume()
        try await waitUntil("the reset to be reported", timeout: 60) { !seen.errors.isEmpty }
        XCTAssertEqual(seen.errors.first?.code, .clientResetError)
        XCTAssertEqual(seen.errors.first?.serverCode, .clientResetRequired)
        XCTAssertTrue(seen.errors.first?.message.contains("restored from a backup") ?? false, "\(seen.errors)")
        XCTAssertTrue(names(a).contains("after"), "the file keeps what the server lost, for the app to recover")
    }

    @MainActor
    func testAClientThatDidNotSyncPastTheBackupCarriesOn() async throws {
        let seen = ClientResetTests.Seen()
        let b = try await open(try await newUser("b"), seen)
        try await write(b, "before")
        try await suspendSession(of: b)
        try backUp(dataDirectory, to: backupDirectory)
        let atBackup = try serverVersion(server, appId: appId)

        let writer = try await restoreAndCatchUp(to: atBackup + 3)
        let sb = try XCTUnwrap(b.syncSession)
        sb.resume()
        try await within(120, "b's download") { try await sb.wait(for: .download) }
        XCTAssertTrue(names(b).contains("restored-1"), "\(names(b))")
        try await write(b, "b-after")
        // A second bind, now past the backup's version, is an ordinary one.
        try await suspendSession(of: b)
        try await write(writer, "while-b-was-away")
        sb.resume()
        try await within(120, "b's second download") { try await sb.wait(for: .download) }
        XCTAssertTrue(names(b).contains("while-b-was-away"), "\(names(b))")
        XCTAssertEqual(seen.errors.map(\.code), [], "no reset, no error")
        let sw = try XCTUnwrap(writer.syncSession)
        try await within(120, "the writer's download") { try await sw.wait(for: .download) }
        XCTAssertTrue(names(writer).contains("b-after"))
    }
}
