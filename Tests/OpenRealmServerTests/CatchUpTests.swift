import Foundation
import Logging
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Two engines over one store (``SharedAppStores``: two registries in one process, as
/// two server processes over one database), each with clients of its own: what one
/// engine commits reaches the other's clients in server version order, with view
/// membership as it was at each version (``SyncApp/catchUp()``, ``RecordedMembership``).
/// On PostgreSQL (``TestStore``) the two engines are two stores on one database, each with
/// its own pool and commit feed, as two processes.
final class CatchUpTests: XCTestCase {
    typealias Outbox = SyncConnectionTests.Outbox

    /// One engine: its registry and auth over the shared stores.
    struct Engine {
        let apps: AppRegistry
        let auth: AuthService
        var app: SyncApp { get throws { try apps.app("todo") } }
    }

    /// A client: its connection to one engine, session 1, and what it received. Used
    /// from one thread at a time (its outbox is filled from others).
    final class Client: @unchecked Sendable {
        let connection: SyncConnection
        let outbox = Outbox()
        var clientVersion: UInt64 = 0

        init(_ engine: Engine, token: String) throws {
            let outbox = self.outbox
            connection = SyncConnection(auth: engine.auth, apps: engine.apps, appId: "todo", logger: Logger(label: "test"),
                                        output: outbox.append)
            connection.receive(frame: try WireEncoder().encode(.bind(WireBind(session: 1, appId: "todo", accessToken: token))))
            guard case .ident? = outbox.messages.last else { throw Unexpected("no ident: \(outbox.messages)") }
        }

        /// Subscribes to Note with `query` (query version `version`) and waits for the bootstrap.
        @discardableResult
        func subscribe(_ query: String, version: UInt64 = 1) throws -> WireDownload {
            let start = outbox.messages.count
            connection.receive(frame: try WireEncoder().encode(.query(WireQuery(
                session: 1, queryVersion: version, queries: [WireClassQuery(className: "Note", query: query)]))))
            // The reply is sent before receive returns; other engines' versions may follow it.
            for case .download(let d) in outbox.messages.dropFirst(start) where d.bootstrap == .lastBatch && d.queryVersion == version {
                return d
            }
            throw Unexpected("no bootstrap: \(outbox.messages.dropFirst(start))")
        }

        /// Uploads one changeset based on what the client was sent, and returns the
        /// acknowledgement.
        @discardableResult
        func upload(_ instructions: [WireInstruction]) throws -> WireDownload {
            clientVersion += 1
            let start = outbox.messages.count
            connection.receive(frame: try WireEncoder().encode(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
                clientVersion: clientVersion, lastIntegratedServerVersion: latestServerVersion,
                timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + clientVersion), instructions: instructions)]))))
            // The acknowledgement is sent before receive returns; other engines' versions may follow it.
            for case .download(let ack) in outbox.messages.dropFirst(start)
            where ack.changesets.isEmpty && ack.progress.lastIntegratedClientVersion == clientVersion {
                return ack
            }
            throw Unexpected("no acknowledgement of client version \(clientVersion): \(outbox.messages.dropFirst(start))")
        }

        /// The downloads received.
        var downloads: [WireDownload] {
            outbox.messages.compactMap { if case .download(let d) = $0 { return d } else { return nil } }
        }

        /// The server version the last download brought the client to.
        var latestServerVersion: UInt64 { downloads.last?.progress.serverVersion ?? 0 }

        /// The changesets received after the bootstrap, as (server version, instructions).
        var changesets: [(version: UInt64, instructions: [WireInstruction])] {
            downloads.filter { $0.bootstrap == .none }.flatMap { d in d.changesets.map { ($0.serverVersion, $0.instructions) } }
        }

        /// Waits until the client was sent server version `version` (10 s deadline).
        func waitForServerVersion(_ version: UInt64) throws {
            let deadline = Date().addingTimeInterval(10)
            while latestServerVersion < version {
                guard Date() < deadline else {
                    throw Unexpected("timed out waiting for server version \(version); the client has \(latestServerVersion)")
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    var directory: URL!
    var database: TestDatabase?
    var a: Engine!
    var b: Engine!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-catchup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = try SigningKey.loadOrCreate(in: directory)
        let shared = SharedAppStores(dataDirectory: directory)
        let database = TestStore.isPostgres ? try TestDatabase() : nil
        self.database = database
        func engine() throws -> Engine {
            let storage: any ServerStorage
            if let database { storage = try database.openStorage() } else { storage = EmbeddedStorage(dataDirectory: directory, sharing: shared) }
            let apps = AppRegistry(storage: storage, configured: .development(appId: "todo"))
            return Engine(apps: apps, auth: AuthService(apps: apps, signingKeys: TokenKeys(key: key), hasher: PasswordHasher(rounds: 1024)))
        }
        a = try engine()
        b = try engine()
        flakyEngine = {
            let storage = FlakyStorage(try engine().apps.storage)
            let apps = AppRegistry(storage: storage, configured: .development(appId: "todo"))
            return (Engine(apps: apps, auth: AuthService(apps: apps, signingKeys: TokenKeys(key: key), hasher: PasswordHasher(rounds: 1024))),
                    storage)
        }
    }

    /// A third engine whose store's reads can be made to fail (``FlakyStorage``).
    var flakyEngine: (() throws -> (Engine, FlakyStorage))!

    override func tearDownWithError() throws {
        a = nil
        b = nil
        database?.drop()
        database = nil
        try? FileManager.default.removeItem(at: directory)
    }

    static let schema: [WireInstruction] = [
        .addClass(WireClassSchema(name: "Note", primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: "Note", property: WirePropertySchema(name: "text", type: .string)),
        .addProperty(className: "Note", property: WirePropertySchema(name: "n", type: .int)),
    ]

    static func note(_ id: Int64, text: String, n: Int64) -> WireInstruction {
        .createObject(className: "Note", primaryKey: .int(id), values: [WirePropertyValue("text", .string(text)), WirePropertyValue("n", .int(n))])
    }

    static func set(_ id: Int64, _ property: String, _ value: WireValue) -> WireInstruction {
        .set(object: WireObjectPath(className: "Note", primaryKey: .int(id)), property: property, value: value)
    }

    static func erase(_ id: Int64) -> WireInstruction { .eraseObject(WireObjectPath(className: "Note", primaryKey: .int(id))) }

    /// A writer on engine A seeing every note, a reader on engine B seeing the notes whose
    /// text is 'x'; the schema uploaded.
    func writerAndReader() throws -> (writer: Client, reader: Client) {
        let token = try a.auth.anonymousLogin(appId: "todo").access_token
        let writer = try Client(a, token: token)
        try writer.subscribe("TRUEPREDICATE")
        try writer.upload(Self.schema)
        let reader = try Client(b, token: token)
        try reader.subscribe("text == 'x'")
        return (writer, reader)
    }

    /// The feed wakes an engine once per version: when that catch-up fails (the database
    /// away for a moment), the engine tries again by itself, and its sessions get the
    /// version without waiting for another commit.
    func testAnEngineWhoseCatchUpFailedTriesAgainWithoutAnotherCommit() throws {
        let (engine, storage) = try flakyEngine()
        let token = try a.auth.anonymousLogin(appId: "todo").access_token
        let writer = try Client(a, token: token)
        try writer.subscribe("TRUEPREDICATE")
        try writer.upload(Self.schema)
        let reader = try Client(engine, token: token)
        try reader.subscribe("TRUEPREDICATE")

        storage.failReads(1)
        let ack = try writer.upload([Self.note(1, text: "x", n: 1)])
        try reader.waitForServerVersion(ack.progress.serverVersion)
        XCTAssertEqual(storage.failedReads, 1, "the first catch-up failed")
        XCTAssertEqual(reader.changesets.last?.instructions, [Self.note(1, text: "x", n: 1)])
    }

    func testAnUploadThroughOneEngineReachesASubscribedClientOfTheOther() throws {
        let (writer, reader) = try writerAndReader()
        let ack = try writer.upload([Self.note(1, text: "x", n: 1), Self.note(2, text: "y", n: 2)])
        // Engine B is woken by A's commit; nothing else happens on B.
        try reader.waitForServerVersion(ack.progress.serverVersion)
        XCTAssertEqual(reader.changesets.map(\.version), [ack.progress.serverVersion])
        XCTAssertEqual(reader.changesets.last?.instructions, [Self.note(1, text: "x", n: 1)],
                       "the reader's view holds note 1 only")
        try b.app.withSyncLock { XCTAssertEqual(try b.app.serverVersion, ack.progress.serverVersion) }
    }

    /// Engine B delivers late (its lock held while A commits four versions): each version
    /// is decided from what the object was then. Live reads would see text 'x' and n 5
    /// throughout: note 1 sent with n 5 at the first version, never erased, never re-sent.
    func testMembershipOfALateDeliveryIsTheVersionsOwn() throws {
        let (writer, reader) = try writerAndReader()
        let appB = try b.app
        appB.syncLock.lock()
        let start = appB.serverVersion
        let versions = try [
            [Self.note(1, text: "x", n: 1)],      // enters the reader's view
            [Self.set(1, "text", .string("y"))],  // leaves it
            [Self.set(1, "n", .int(3))],          // outside: nothing
            [Self.set(1, "text", .string("x"))],  // enters again, as it is now
            [Self.set(1, "n", .int(5))],          // inside: forwarded
        ].map { try writer.upload($0).progress.serverVersion }
        XCTAssertEqual(appB.serverVersion, start, "engine B delivered while its lock was held")
        appB.syncLock.unlock()
        try reader.waitForServerVersion(versions[4])
        let got = reader.changesets
        XCTAssertEqual(got.map(\.version), [versions[0], versions[1], versions[3], versions[4]])
        XCTAssertEqual(got.map(\.instructions), [
            [Self.note(1, text: "x", n: 1)],
            [Self.erase(1)],
            [Self.note(1, text: "x", n: 3)],
            [Self.set(1, "n", .int(5))],
        ])
    }

    /// An engine never woken (a lost wake-up) still delivers the other's versions before
    /// its own: its upload gets the next version, after the reader was sent A's.
    func testAnEngineCatchesUpBeforeItsOwnIntegrationAndViewChange() throws {
        let (writer, reader) = try writerAndReader()
        let appB = try b.app
        appB.stopWakeUps()
        let first = try writer.upload([Self.note(1, text: "x", n: 1)]).progress.serverVersion
        let second = try writer.upload([Self.note(2, text: "x", n: 2), Self.set(1, "text", .string("y"))]).progress.serverVersion
        XCTAssertLessThan(appB.serverVersion, first, "engine B was woken")

        // The reader's own upload: B catches up inside its write, then integrates.
        let ack = try reader.upload([Self.note(3, text: "x", n: 3)])
        XCTAssertEqual(ack.progress.serverVersion, second + 1)
        XCTAssertEqual(reader.changesets.map(\.version), [first, second])
        XCTAssertEqual(reader.changesets.map(\.instructions), [
            [Self.note(1, text: "x", n: 1)],
            [Self.note(2, text: "x", n: 2), Self.erase(1)],
        ])
        let storage = try a.app.storage
        func origin(_ version: UInt64) throws -> UInt64? { try storage.read { try $0.historyEntry(version)?.originFileIdent } }
        XCTAssertEqual(try origin(second), try origin(first))
        XCTAssertNotEqual(try origin(second + 1), try origin(second))

        // A's next version, then a view change on B: its bootstrap follows A's version.
        let third = try writer.upload([Self.set(2, "n", .int(20))]).progress.serverVersion
        let bootstrap = try reader.subscribe("n >= 3", version: 2)
        XCTAssertEqual(bootstrap.progress.serverVersion, third + 1)
        XCTAssertEqual(reader.changesets.last?.version, third, "A's version was delivered before the bootstrap")
        XCTAssertEqual(reader.changesets.last?.instructions, [Self.set(2, "n", .int(20))])
    }

    /// The writer's engine sends the reader's changes to its own clients too: both ways.
    /// Versions trimmed before an engine delivered them: its sessions with a view are
    /// closed (their clients bind again from what they hold), and the engine goes on
    /// rather than failing every later catch-up and integration.
    func testAnEngineThatCannotDeliverAVersionClosesItsViewsSessionsAndGoesOn() throws {
        let (writer, reader) = try writerAndReader()
        let bApp = try b.app, aApp = try a.app
        let before = reader.latestServerVersion
        // B is held while A commits two versions and the history under them is trimmed.
        let last = try bApp.withSyncLock { () -> UInt64 in
            try writer.upload([Self.note(1, text: "x", n: 1)])
            let ack = try writer.upload([Self.note(2, text: "x", n: 2)])
            _ = try aApp.withSyncLock {
                try aApp.storage.trimHistory(retentionSeconds: 1, bound: [], now: StorageConventions.nowMilliseconds + 3_600_000)
            }
            XCTAssertNil(try aApp.storage.read { try $0.historyEntry(ack.progress.serverVersion - 1) }, "the history was trimmed")
            return ack.progress.serverVersion
        }
        let deadline = Date().addingTimeInterval(10)
        while !reader.outbox.closed {
            guard Date() < deadline else { return XCTFail("the reader's connection was not closed") }
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertEqual(reader.latestServerVersion, before, "the reader was sent no version past the gap")
        bApp.withSyncLock { XCTAssertEqual(bApp.serverVersion, last) }

        // B goes on: a client of B subscribes and uploads, and a client of A sees it.
        let token = try b.auth.anonymousLogin(appId: "todo").access_token
        let other = try Client(b, token: token)
        XCTAssertEqual(try other.subscribe("TRUEPREDICATE").changesets.first?.instructions.count, 2, "both notes in the bootstrap")
        let ack = try other.upload([Self.note(3, text: "x", n: 3)])
        try writer.waitForServerVersion(ack.progress.serverVersion)
        XCTAssertEqual(writer.changesets.last?.instructions, [Self.note(3, text: "x", n: 3)])
    }

    func testBothEnginesDeliverTheOthersVersionsInOrder() throws {
        let (writer, reader) = try writerAndReader()
        var expected: [UInt64] = []
        for i in 1...6 {
            let client = i % 2 == 0 ? reader : writer
            expected.append(try client.upload([Self.note(Int64(i), text: "x", n: Int64(i))]).progress.serverVersion)
        }
        try writer.waitForServerVersion(expected.last!)
        try reader.waitForServerVersion(expected.last!)
        // Each client was sent exactly the other's versions, in order.
        XCTAssertEqual(writer.changesets.map(\.version), expected.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
        XCTAssertEqual(reader.changesets.map(\.version), expected.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        XCTAssertEqual(reader.changesets.flatMap(\.instructions), [1, 3, 5].map { Self.note($0, text: "x", n: $0) })
    }

    /// Writers on both engines at once: an observer on each engine is sent every
    /// version that changed objects exactly once, in increasing order, whichever engine
    /// committed it (wake-ups and the catch-up inside each write race here).
    func testConcurrentWritersOnBothEnginesReachEveryObserverOnceInOrder() throws {
        let token = try a.auth.anonymousLogin(appId: "todo").access_token
        let setup = try Client(a, token: token)
        try setup.subscribe("TRUEPREDICATE")
        try setup.upload(Self.schema)
        let observers = try [a, b].map { engine -> Client in
            let client = try Client(engine!, token: token)
            try client.subscribe("TRUEPREDICATE")
            return client
        }
        let writers = try [a, b].map { engine -> Client in
            let client = try Client(engine!, token: token)
            try client.subscribe("TRUEPREDICATE")
            return client
        }
        let perWriter = 25
        /// Per writer, the versions of its acknowledged uploads, and what failed.
        final class Outcome: @unchecked Sendable {
            var acknowledged: [UInt64] = []
            var failure: String?
        }
        let outcomes = [Outcome(), Outcome()]
        DispatchQueue.concurrentPerform(iterations: 2) { w in
            // Each writer's outcome is written by its own iteration alone.
            for i in 0..<perWriter {
                do {
                    let id = Int64(1000 * (w + 1) + i)
                    outcomes[w].acknowledged.append(try writers[w].upload([Self.note(id, text: "x", n: Int64(i))]).progress.serverVersion)
                } catch {
                    outcomes[w].failure = "\(error)"
                    return
                }
            }
        }
        XCTAssertNil(outcomes[0].failure)
        XCTAssertNil(outcomes[1].failure)
        let acknowledged = outcomes.map(\.acknowledged)
        let all = (acknowledged[0] + acknowledged[1]).sorted()
        XCTAssertEqual(Set(all).count, 2 * perWriter, "two uploads were acknowledged with one version")
        for observer in observers {
            try observer.waitForServerVersion(all.last!)
            XCTAssertEqual(observer.changesets.map(\.version), all)
        }
        // Each writer was sent exactly the other's versions.
        try writers[0].waitForServerVersion(all.last!)
        try writers[1].waitForServerVersion(all.last!)
        XCTAssertEqual(writers[0].changesets.map(\.version), acknowledged[1])
        XCTAssertEqual(writers[1].changesets.map(\.version), acknowledged[0])
    }

    /// Post-images are kept only when the store is shared: an engine alone writes the
    /// store as before (no `__post_images` table).
    func testAnEngineAloneKeepsNoPostImages() throws {
        try skipOnPostgres("whether an engine alone writes post-images is the embedded store's choice (PostgreSQL always shares)")
        let alone = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-alone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: alone) }
        let apps = AppRegistry(storage: EmbeddedStorage(dataDirectory: alone), configured: .development(appId: "todo"))
        let auth = AuthService(apps: apps, signingKeys: TokenKeys(key: try SigningKey.loadOrCreate(in: directory)), hasher: PasswordHasher(rounds: 1024))
        let client = try Client(Engine(apps: apps, auth: auth), token: try auth.anonymousLogin(appId: "todo").access_token)
        try client.subscribe("TRUEPREDICATE")
        let version = try client.upload(Self.schema + [Self.note(1, text: "x", n: 1)]).progress.serverVersion
        let app = try apps.app("todo")
        XCTAssertEqual(app.topology, .singleProcess)
        try app.store.environment.read { txn in
            XCTAssertNil(try txn.findClass(StoreTransaction.postImagesTable))
            XCTAssertNil(try txn.postImages(version))
        }

        // Shared: the entry's objects are kept as the version left them.
        let (writer, _) = try writerAndReader()
        let shared = try writer.upload([Self.note(7, text: "x", n: 7)]).progress.serverVersion
        try writer.upload([Self.set(7, "n", .int(8))])
        let images = try a.app.store.environment.read { txn in try txn.postImages(shared) }
        XCTAssertEqual(images?.objects.map(\.ref), [WireObjectRef(className: "Note", primaryKey: .int(7))])
        XCTAssertEqual(images?.objects.first?.image?.properties,
                       [ObjectImage.Property("text", .single(.string("x"))), ObjectImage.Property("n", .single(.int(7)))])
    }
}

/// A reply the test did not expect (the test fails with it).
private struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A storage whose apps' read units fail while armed (``failReads(_:)``): the database
/// away for a moment, as an engine's catch-up meets it.
final class FlakyStorage: ServerStorage, @unchecked Sendable {
    let inner: any ServerStorage
    private let lock = NSLock()
    private var toFail = 0
    private var failed = 0

    init(_ inner: any ServerStorage) { self.inner = inner }

    /// Makes the next `count` read units fail.
    func failReads(_ count: Int) { lock.withLock { toFail = count } }
    /// How many read units failed so far.
    var failedReads: Int { lock.withLock { failed } }

    fileprivate func readShouldFail() -> Bool {
        lock.withLock {
            guard toFail > 0 else { return false }
            toFail -= 1
            failed += 1
            return true
        }
    }

    var topology: StorageTopology { inner.topology }
    var signingKeys: any SigningKeyStore { inner.signingKeys }
    func app(_ appId: String) throws -> any AppStorage { FlakyAppStorage(try inner.app(appId), owner: self) }
    func hasApp(_ appId: String) -> Bool { inner.hasApp(appId) }
    func appCount() -> Int { inner.appCount() }
}

final class FlakyAppStorage: AppStorage, @unchecked Sendable {
    let inner: any AppStorage
    let owner: FlakyStorage

    init(_ inner: any AppStorage, owner: FlakyStorage) {
        self.inner = inner
        self.owner = owner
    }

    var appId: String { inner.appId }
    var accounts: any AccountStore { inner.accounts }
    var rateLimits: any RateLimitStore { inner.rateLimits }
    var commitFeed: any CommitFeed { inner.commitFeed }
    var syncMode: any SyncModeStore { inner.syncMode }
    func keepPostImages() throws { try inner.keepPostImages() }
    func storedSchema() throws -> AppSchema { try inner.storedSchema() }
    func applyConfiguredSchema(_ schema: AppSchema) throws -> [String] { try inner.applyConfiguredSchema(schema) }

    func read<T>(_ body: (any AppReadUnit) throws -> T) throws -> T {
        if owner.readShouldFail() { throw ServerError("the database is away (a test's fault)") }
        return try inner.read(body)
    }

    func write<T>(_ body: (any AppWriteUnit) throws -> T) throws -> T { try inner.write(body) }
    func withAppWriteLock<T>(_ body: (any AppLockedUnit) throws -> T) throws -> T { try inner.withAppWriteLock(body) }
}
