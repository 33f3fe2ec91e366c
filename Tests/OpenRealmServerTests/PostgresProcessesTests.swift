import Foundation
import XCTest
import OpenRealmPostgresTestSupport
import OpenRealmTestSupport
import OpenRealmWire
@testable import OpenRealmServer

/// Three `openrealm-server serve --store postgres://…` processes on one database, sync
/// clients spread over them editing the same objects at once (creates, property sets,
/// counters, list edits, deletes): every client receives every other client's change
/// once and in order, the three processes serve the same state, and every acknowledged
/// upload is in the database exactly once with the server versions contiguous.
///
/// The storm is random from a seed printed at the start; `OPENREALM_TEST_SEED=<seed>`
/// runs the same one again. PostgreSQL only: runs in the suite's PostgreSQL pass
/// (`OPENREALM_TEST_STORE=postgres`).
final class PostgresProcessesTests: XCTestCase {
    private var binary: URL { BuiltProduct.directory(holding: "openrealm-server").appendingPathComponent("openrealm-server") }

    private static let objects: [Int64] = [1, 2, 3, 4, 5, 6]
    private static let clientCount = 6
    private static let steps = 15

    func testEditStormsOverThreeProcessesConvergeWithEveryAcknowledgedUploadStoredOnce() throws {
        guard TestStore.isPostgres else {
            throw XCTSkip("PostgreSQL only: runs in the suite's PostgreSQL pass (OPENREALM_TEST_STORE=postgres)")
        }
        let seed = ProcessInfo.processInfo.environment["OPENREALM_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("PostgresProcessesTests: seed \(seed) (OPENREALM_TEST_SEED=\(seed) repeats this storm)")

        let database = try TestDatabase()
        defer { database.drop() }
        let url = try database.url
        let directory = try TemporaryDirectory.make("openrealm-pg-processes", removedBy: addTeardownBlock)
        var processes: [ServerProcess] = []
        defer {
            for process in processes { process.stop() }
            // What went wrong in the processes, for a failure's reader.
            for (name, process) in zip(["a", "b", "c"], processes) {
                for line in process.output.split(separator: "\n") where line.contains(" warning ") || line.contains(" error ") {
                    print("process \(name) (port \(process.port)): \(line)")
                }
            }
        }
        for name in ["a", "b", "c"] {
            processes.append(try ServerProcess(binary, ["serve", "--port", "\(try freeLoopbackPort())", "--store", url],
                                               directory: directory, name: name))
        }
        for process in processes { try process.waitUntilServing() }
        let ports = processes.map(\.port)

        // The objects, made through the first process.
        do {
            let setup = try StormClient(port: ports[0])
            try setup.upload(clientVersion: 1, base: setup.serverVersion, ServerTestCase.taskSchema + Self.objects.flatMap { id in
                [ServerTestCase.task(id, title: "t\(id)", status: "open"),
                 .listInsert(object: ServerTestCase.path(id), property: "tags", index: 0, value: .string("x"))]
            })
            _ = try setup.waitForAcknowledgement(of: 1)
        }

        // Clients spread over the three processes, each from its own bootstrap.
        var clients = try (0..<Self.clientCount).map { try StormClient(port: ports[$0 % ports.count]) }
        let failures = Self.storm(clients, seed: seed)
        XCTAssertEqual(failures, [], "seed \(seed)")
        guard failures.isEmpty else { return }

        // Every client catches up, through whichever process it is on (their commit
        // feeds, or their polls), to the last version that is news to it: one of another
        // client's that touched the objects (a version that touched none, all its edits
        // on erased objects, is sent to no one).
        let latest = try XCTUnwrap(UInt64(try database.sql("SELECT server_version FROM openrealm_apps WHERE app_id = 'todo'")))
        let floor = try XCTUnwrap(UInt64(try database.sql("SELECT history_floor FROM openrealm_apps WHERE app_id = 'todo'")))
        let entries = try database.sql("""
            SELECT server_version, origin_file_ident, encode(changeset, 'hex') FROM openrealm_history
            WHERE app_id = 'todo' AND server_version > \(floor) ORDER BY server_version
            """).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false) }
        var touching: [(version: UInt64, origin: UInt64)] = []
        for entry in entries where entry.count == 3 {
            let instructions = try WireChangeset(decoding: Self.bytes(hex: entry[2])).instructions
            if instructions.contains(where: { $0.topLevelObject != nil }) {
                touching.append((UInt64(entry[0])!, UInt64(entry[1])!))
            }
        }
        var behind: [String] = []
        for (index, client) in clients.enumerated() {
            guard let last = touching.last(where: { $0.origin != client.fileIdent })?.version else { continue }
            do {
                try client.waitForServerVersion(last)
            } catch {
                behind.append("client \(index) (file \(client.fileIdent), port \(client.port)) is at server version \(client.serverVersion), not \(last)")
            }
        }
        XCTAssertEqual(behind, [], "seed \(seed): clients did not catch up")
        guard behind.isEmpty else { return }

        // The history: contiguous server versions up to the app's, one entry per
        // uploaded changeset (file, client version), every acknowledged one there.
        let shape = try database.sql("""
            SELECT min(server_version), max(server_version), count(*) FROM openrealm_history WHERE app_id = 'todo'
            """).split(separator: "|").compactMap { UInt64($0) }
        XCTAssertEqual(shape.count, 3)
        if shape.count == 3 {
            XCTAssertEqual(shape[1], latest, "seed \(seed): the last history entry is not the app's version")
            XCTAssertEqual(shape[2], shape[1] - shape[0] + 1, "seed \(seed): the server versions have gaps")
            XCTAssertLessThanOrEqual(shape[0], floor + 1, "seed \(seed): entries above the floor are missing")
        }
        XCTAssertEqual(try database.sql("""
            SELECT count(*) FROM (SELECT origin_file_ident, origin_client_version FROM openrealm_history
                                  WHERE app_id = 'todo' AND origin_client_version > 0
                                  GROUP BY 1, 2 HAVING count(*) > 1) AS duplicated
            """), "0", "seed \(seed): a client changeset has more than one history entry")
        for client in clients {
            XCTAssertEqual(try database.sql("""
                SELECT count(DISTINCT origin_client_version) FROM openrealm_history
                WHERE app_id = 'todo' AND origin_file_ident = \(client.fileIdent)
                    AND origin_client_version BETWEEN 1 AND \(Self.steps) AND server_version > \(floor)
                """), "\(Self.steps)", "seed \(seed): file \(client.fileIdent)'s acknowledged changesets are not all stored")
            XCTAssertEqual(try database.sql("""
                SELECT last_integrated_client_version FROM openrealm_client_files WHERE app_id = 'todo' AND ident = \(client.fileIdent)
                """), "\(Self.steps)")
        }

        // Every client received every other client's version that touched the objects,
        // once each and in order — so each ends with the server's state.
        for (index, client) in clients.enumerated() {
            let received = client.received.filter { $0.origin != client.fileIdent }.map(\.version)
            XCTAssertEqual(received, received.sorted(), "seed \(seed): client \(index) received versions out of order")
            XCTAssertEqual(Set(received).count, received.count, "seed \(seed): client \(index) received a version twice")
            let expected = touching.filter { $0.version > max(client.startVersion, floor) && $0.origin != client.fileIdent }.map(\.version)
            XCTAssertEqual(received.filter { $0 > floor }, expected, "seed \(seed): client \(index) (port \(client.port)) missed or got extra versions")
        }

        // The three processes serve one state.
        var states: [[Int64: [String]]] = []
        for port in ports {
            states.append(Self.state(try StormClient(port: port).bootstrap))
        }
        XCTAssertFalse(states[0].isEmpty)
        XCTAssertEqual(states[0], states[1], "seed \(seed): processes a and b serve different states")
        XCTAssertEqual(states[0], states[2], "seed \(seed): processes a and c serve different states")
        // A process shutting down waits for its sync connections to end: the clients go first.
        clients = []
        for process in processes {
            XCTAssertEqual(process.stop(), 0, process.output)
        }
    }

    /// Each client uploads ``steps`` changesets of random edits, pipelined: each goes
    /// before the previous one is acknowledged, so that others' changesets are
    /// integrated between a client's own. Returns what failed.
    private static func storm(_ clients: [StormClient], seed: UInt64) -> [String] {
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: clients.count) { index in
            let client = clients[index]
            var rng = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
            do {
                for step in 1...steps {
                    try client.upload(clientVersion: UInt64(step), base: client.serverVersion,
                                      randomEdits(&rng, client: index, step: step))
                    if step > 1 { _ = try client.waitForAcknowledgement(of: UInt64(step - 1)) }
                }
                _ = try client.waitForAcknowledgement(of: UInt64(steps))
            } catch {
                failures.add("client \(index) (port \(client.port)): \(error)")
            }
        }
        return failures.all
    }

    /// One to three random edits of the shared objects.
    private static func randomEdits(_ rng: inout SplitMix64, client: Int, step: Int) -> [WireInstruction] {
        var edits: [WireInstruction] = []
        for k in 0..<Int(rng.next() % 3 + 1) {
            let id = objects[Int(rng.next() % UInt64(objects.count))]
            let path = ServerTestCase.path(id)
            let mark = "c\(client)s\(step)k\(k)"
            switch rng.next() % 12 {
            case 0...2: edits.append(.set(object: path, property: "title", value: .string(mark)))
            case 3...4: edits.append(.addInteger(object: path, property: "score", delta: Int64(rng.next() % 9) - 4))
            case 5...6: edits.append(.listInsert(object: path, property: "tags", index: rng.next() % 3, value: .string(mark)))
            case 7...8: edits.append(.listErase(object: path, property: "tags", index: rng.next() % 2))
            case 9: edits.append(.set(object: path, property: "status", value: .string(["open", "done"][Int(rng.next() % 2)])))
            case 10: edits.append(.eraseObject(path))
            default: edits.append(ServerTestCase.task(id, title: mark, status: "open"))
            }
        }
        return edits
    }

    /// A bootstrap's objects: per id, its title, status, score and tags.
    private static func state(_ instructions: [WireInstruction]) -> [Int64: [String]] {
        var state: [Int64: [String]] = [:]
        for instruction in instructions {
            switch instruction {
            case .createObject("Task", .int(let id), let values):
                func value(_ name: String) -> String { values.first { $0.name == name }?.value.description ?? "-" }
                state[id, default: []] = [value("title"), value("status"), value("score")] + (state[id] ?? []).dropFirst(3)
            case .listInsert(let path, "tags", let index, let value):
                if case .int(let id) = path.root.primaryKey { state[id, default: ["-", "-", "-"]].append("\(index):\(value)") }
            default:
                break
            }
        }
        return state
    }

    private static func bytes(hex: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}

/// A wire-level sync client of one process: logged in anonymously there, bound on
/// session 1, subscribed to every Task; it remembers the server versions it received
/// changesets of and the latest progress.
private final class StormClient: @unchecked Sendable {
    let port: Int
    let fileIdent: UInt64
    /// The server version its bootstrap brought it to.
    let startVersion: UInt64
    /// Its bootstrap's instructions.
    let bootstrap: [WireInstruction]
    /// The changesets it received after its bootstrap: server version and origin file.
    private(set) var received: [(version: UInt64, origin: UInt64)] = []
    /// The latest server version it was brought to (the base of its next upload).
    private(set) var serverVersion: UInt64
    private let connection: TestSyncClient

    init(port: Int) throws {
        self.port = port
        let login = try TestHTTP(port: port).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        guard login.status == 200, let token = login.body["access_token"] as? String else {
            throw TestSocket.Failure(description: "anonymous login on port \(port) failed: \(login.status) \(login.body)")
        }
        let connection = try TestSyncClient(port: port, appId: "todo")
        self.connection = connection
        try connection.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token)))
        fileIdent = try connection.waitFor("ident") { if case .ident(let i) = $0 { return i.fileIdentity.ident } else { return nil } }
        try connection.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
        var instructions: [WireInstruction] = []
        startVersion = try connection.waitFor("the bootstrap", timeout: 30) { m -> UInt64? in
            guard case .download(let d) = m, d.bootstrap != .none else { return nil }
            instructions += d.changesets.flatMap(\.instructions)
            return d.bootstrap == .lastBatch ? d.progress.serverVersion : nil
        }
        bootstrap = instructions
        serverVersion = startVersion
    }

    func upload(clientVersion: UInt64, base: UInt64, _ instructions: [WireInstruction]) throws {
        try connection.send(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: base,
            timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000 + clientVersion * 16 + UInt64(port % 16)),
            instructions: instructions)])))
    }

    /// Reads until the acknowledgement of `clientVersion`; an error fails.
    func waitForAcknowledgement(of clientVersion: UInt64) throws -> Bool {
        try read("the acknowledgement of client version \(clientVersion)") { $0.lastIntegratedClientVersion >= clientVersion }
    }

    /// Reads until the progress reaches `version` (at once when it has).
    func waitForServerVersion(_ version: UInt64) throws {
        guard serverVersion < version else { return }
        _ = try read("server version \(version)") { $0.serverVersion >= version }
    }

    private func read(_ what: String, until done: (WireDownloadProgress) -> Bool) throws -> Bool {
        var refusal: WireErrorMessage?
        _ = try connection.waitFor("\(what) from port \(port)", timeout: 20) { m -> Bool? in
            if case .error(let e) = m {
                refusal = e
                return false
            }
            guard case .download(let d) = m else { return nil }
            for c in d.changesets { received.append((c.serverVersion, c.originFileIdent)) }
            serverVersion = max(serverVersion, d.progress.serverVersion)
            return done(d.progress) ? true : nil
        }
        if let refusal {
            throw TestSocket.Failure(description: "port \(port) answered \(what) with \(refusal.code): \(refusal.message)")
        }
        return true
    }
}

/// Failures gathered from concurrent clients.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ failure: String) { lock.withLock { stored.append(failure) } }
    var all: [String] { lock.withLock { stored } }
}
