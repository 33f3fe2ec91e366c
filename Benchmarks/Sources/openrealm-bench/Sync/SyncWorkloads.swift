import BenchModel
import Dispatch
import Foundation
import OpenRealm
import OpenRealmSync
import OpenRealmWire

/// The sizes of the sync workloads.
struct SyncSizes {
    /// Write on A → observer on B: the number of timed writes.
    var latencySamples: Int
    /// Objects uploaded by A (new, then each changed once), and bootstrapped by C.
    var uploadObjects: Int
    /// Objects per write transaction of the sustained upload.
    var uploadBatch: Int
    /// Simulated clients connected at once for the fan-out.
    var clients: Int
    /// Changes fanned out to every client.
    var fanoutChanges: Int

    init(quick: Bool) {
        latencySamples = quick ? 50 : 200
        uploadObjects = quick ? 20_000 : 100_000
        uploadBatch = 1_000
        clients = quick ? 200 : 1_000
        fanoutChanges = quick ? 10 : 20
    }
}

/// What the sync workloads measured (nanoseconds unless said).
struct SyncFigures {
    var latencyMedian = Double.nan, latencyP99 = Double.nan
    var latencySamples = 0
    var uploadNewPerSecond = Double.nan, uploadChangedPerSecond = Double.nan
    /// CPU time per uploaded object, of the clients' process, of the server processes
    /// and of PostgreSQL (ns; NaN on the embedded store).
    var uploadNewClientCPU = Double.nan, uploadNewServerCPU = Double.nan, uploadNewDatabaseCPU = Double.nan
    var uploadChangedClientCPU = Double.nan, uploadChangedServerCPU = Double.nan, uploadChangedDatabaseCPU = Double.nan
    /// Time under the app's write lock per uploaded object (integration and commit, ns):
    /// what bounds one app's upload rate however many processes serve it.
    var uploadNewLockTime = Double.nan, uploadChangedLockTime = Double.nan
    var uploadObjects = 0
    var bootstrapPerSecond = Double.nan
    var bootstrapObjects = 0
    var fanoutMedian = Double.nan, fanoutP99 = Double.nan
    var fanoutDeliveries = 0
    var clients = 0
    /// Server memory per idle client: (resident after − before connecting) / clients.
    var idleClientBytes = Double.nan
    /// The same from half the clients to all of them (fixed costs excluded).
    var marginalClientBytes = Double.nan
}

/// The sync workloads, OpenRealm only: `openrealm-server` child processes on free
/// loopback ports (``SyncDeployment``: one on the embedded store, or one or two on one
/// PostgreSQL database), users of one app logged in with email/password, synced realms
/// opened with `user.flexibleSyncConfiguration()`, and a crowd of wire-level clients.
/// With two processes, A talks to the first and B and C to the second, and the crowd is
/// spread over both.
///
/// 1. A writes one property of one object; B's `Results.observe` reports it.
/// 2. A uploads `uploadObjects` new tasks in transactions of `uploadBatch`, then changes
///    each of them once, as fast as it can commit; throughput is objects acknowledged by
///    the server per second, from the first commit to the acknowledgement of the last.
/// 3. C subscribes to every task: objects per second until the subscription is complete
///    and the objects are in C's realm.
/// 4. `clients` simulated clients (``WireClient``) bind and subscribe; the servers'
///    resident memory before and after gives the memory per idle client; then A creates
///    tasks that every client's query matches, and each arrival is timed from the start
///    of A's write.
@MainActor
enum SyncWorkloads {
    static func run(_ sizes: SyncSizes, _ deployment: SyncDeployment, log: (String) -> Void) async throws -> SyncFigures {
        let root = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("openrealm-bench-clients-\(getpid())-\(deployment.setup.rawValue)")
        defer { try? FileManager.default.removeItem(at: root) }
        let appId = deployment.appId
        // A session connects to the app's base URL of the moment it connects: A's stays on
        // the first process when B's and C's go to the other.
        func useServer(_ server: SyncServerProcess) -> App {
            App(id: appId, configuration: AppConfiguration(baseURL: server.baseURL, rootDirectory: root))
        }
        var app = useServer(deployment.servers[0])
        var figures = SyncFigures()

        let alice = try await logIn(app, "alice")
        let aliceRealm = try await openSubscribed(alice)
        defer { _ = aliceRealm }

        // 1. A → B.
        app = useServer(deployment.other)
        let bob = try await logIn(app, "bob")
        try await measureLatency(figures: &figures, sizes, alice: aliceRealm, bob: bob)
        log(String(format: "sync A → B: median %.2f ms, p99 %.2f ms", figures.latencyMedian / 1e6, figures.latencyP99 / 1e6))
        try await bob.logOut()

        // 2. Sustained upload.
        try await measureUpload(figures: &figures, sizes, alice: aliceRealm, deployment: deployment)
        log(String(format: "sync upload: new %.0f objects/s, changed %.0f objects/s; CPU per object: new %.1f µs client, %.1f µs server, %.1f µs PostgreSQL; changed %.1f µs client, %.1f µs server, %.1f µs PostgreSQL",
                   figures.uploadNewPerSecond, figures.uploadChangedPerSecond,
                   figures.uploadNewClientCPU / 1e3, figures.uploadNewServerCPU / 1e3, figures.uploadNewDatabaseCPU / 1e3,
                   figures.uploadChangedClientCPU / 1e3, figures.uploadChangedServerCPU / 1e3, figures.uploadChangedDatabaseCPU / 1e3))

        // 3. Bootstrap.
        let carol = try await logIn(app, "carol")
        try await measureBootstrap(figures: &figures, carol: carol, expected: aliceRealm.objects(Task.self).count)
        log(String(format: "sync bootstrap: %.0f objects/s", figures.bootstrapPerSecond))
        try await carol.logOut()

        // 4. Many clients.
        guard let token = alice.accessToken else { throw BenchError("alice has no access token") }
        try await measureFanout(figures: &figures, sizes, deployment: deployment, token: token, alice: aliceRealm)
        log(String(format: "server fan-out to %d clients: median %.2f ms, p99 %.2f ms; %.1f KB per idle client",
                   figures.clients, figures.fanoutMedian / 1e6, figures.fanoutP99 / 1e6, figures.idleClientBytes / 1000))

        try await alice.logOut()
        return figures
    }

    // MARK: Users and realms

    static func logIn(_ app: App, _ name: String) async throws -> User {
        let email = "\(name)@openrealm-bench.example"
        try await app.emailPasswordAuth.registerUser(email: email, password: "\(name)-password")
        return try await app.login(credentials: .emailPassword(email: email, password: "\(name)-password"))
    }

    /// A synced realm of `user` subscribed to every task, its bootstrap done.
    static func openSubscribed(_ user: User) async throws -> Realm {
        var configuration = user.flexibleSyncConfiguration()
        configuration.objectTypes = [Task.self]
        let realm = try await Realm(configuration: configuration)
        _ = try await realm.objects(Task.self).subscribe(name: "all tasks", waitForSync: .always, timeout: 600)
        return realm
    }

    /// Waits for `condition` (checked every millisecond) up to `seconds`.
    static func waitUntil(_ what: String, seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = now() + UInt64(seconds * 1e9)
        while !condition() {
            if now() > deadline { throw BenchError("timed out after \(seconds) s waiting for \(what)") }
            try await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// A pause of 0–25 ms, so that writes fall at random phases of the clients' timers.
    static func randomPause() async throws {
        try await _Concurrency.Task.sleep(nanoseconds: UInt64.random(in: 0...25_000_000))
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    // MARK: 1. A → B

    static func measureLatency(figures: inout SyncFigures, _ sizes: SyncSizes, alice: Realm, bob: User) async throws {
        let base = 50_000_000
        try alice.write {
            for i in base..<(base + 100) { alice.add(TaskSeed.task(i, id: TaskSeed.objectId(i))) }
        }
        try await alice.syncSession!.wait(for: .upload)
        let bobRealm = try await openSubscribed(bob)
        guard bobRealm.objects(Task.self).count == 100 else {
            throw BenchError("bob holds \(bobRealm.objects(Task.self).count) tasks after subscribing, not 100")
        }
        let arrivals = ArrivalLog()
        let token = bobRealm.objects(Task.self).observe(on: DispatchQueue(label: "openrealm-bench.bob")) { change in
            if case .update(_, _, _, let modifications) = change, !modifications.isEmpty { arrivals.record(now()) }
        }
        defer { token.invalidate() }
        let target = alice.object(ofType: Task.self, forPrimaryKey: TaskSeed.objectId(base))!
        var latencies: [Double] = []
        for k in 0..<sizes.latencySamples {
            try await randomPause()
            let before = arrivals.count
            let start = now()
            try alice.write { target.progressMinutes = 1_000 + k }
            try await waitUntil("bob's observer (write \(k))", seconds: 10) { arrivals.count > before }
            latencies.append(Double(arrivals.last - start))
        }
        latencies.sort()
        figures.latencyMedian = percentile(latencies, 0.5)
        figures.latencyP99 = percentile(latencies, 0.99)
        figures.latencySamples = latencies.count
    }

    // MARK: 2. Upload

    static func measureUpload(figures: inout SyncFigures, _ sizes: SyncSizes, alice: Realm,
                              deployment: SyncDeployment) async throws {
        let n = sizes.uploadObjects, batch = sizes.uploadBatch
        let ids = (0..<n).map(TaskSeed.objectId)
        let session = alice.syncSession!
        // Per phase, the time and the CPU each side used (the client's includes its
        // process's other threads, such as the sync client's; the servers', every
        // process's, as the others catch up).
        func phase(_ body: () async throws -> Void) async throws
            -> (seconds: Double, client: Double, server: Double, database: Double, lock: Double) {
            let locked = try await deployment.writeLockSeconds()
            let start = now(), client = cpuTime(), served = deployment.serverCPU(), stored = deployment.databaseCPU()
            try await body()
            try await session.wait(for: .upload)
            let seconds = Double(now() - start) / 1e9
            try await deployment.waitForCatchUp()
            let database = deployment.postgres == nil ? Double.nan : Double(deployment.databaseCPU() - stored) / Double(n)
            let cpu = (Double(cpuTime() - client) / Double(n), Double(deployment.serverCPU() - served) / Double(n))
            let lock = (try await deployment.writeLockSeconds() - locked) * 1e9 / Double(n)
            return (seconds, cpu.0, cpu.1, database, lock)
        }
        let created = try await phase {
            for first in stride(from: 0, to: n, by: batch) {
                try alice.write {
                    for i in first..<min(n, first + batch) { alice.add(TaskSeed.task(i, id: ids[i])) }
                }
                await _Concurrency.Task.yield()
            }
        }
        figures.uploadNewPerSecond = Double(n) / created.seconds
        (figures.uploadNewClientCPU, figures.uploadNewServerCPU, figures.uploadNewDatabaseCPU) = (created.client, created.server, created.database)
        figures.uploadNewLockTime = created.lock

        let changed = try await phase {
            for first in stride(from: 0, to: n, by: batch) {
                try alice.write {
                    for i in first..<min(n, first + batch) {
                        alice.object(ofType: Task.self, forPrimaryKey: ids[i])!.progressMinutes += 1
                    }
                }
                await _Concurrency.Task.yield()
            }
        }
        figures.uploadChangedPerSecond = Double(n) / changed.seconds
        (figures.uploadChangedClientCPU, figures.uploadChangedServerCPU, figures.uploadChangedDatabaseCPU) = (changed.client, changed.server, changed.database)
        figures.uploadChangedLockTime = changed.lock
        figures.uploadObjects = n
    }

    // MARK: 3. Bootstrap

    static func measureBootstrap(figures: inout SyncFigures, carol: User, expected: Int) async throws {
        let start = now()
        let realm = try await openSubscribed(carol)
        let count = realm.objects(Task.self).count
        let elapsed = now() - start
        guard count == expected else { throw BenchError("carol's bootstrap brought \(count) tasks, not \(expected)") }
        figures.bootstrapPerSecond = Double(count) / (Double(elapsed) / 1e9)
        figures.bootstrapObjects = count
    }

    // MARK: 4. Fan-out

    static func measureFanout(figures: inout SyncFigures, _ sizes: SyncSizes, deployment: SyncDeployment,
                              token: String, alice: Realm) async throws {
        let recorder = FanoutRecorder()
        let query = WireClassQuery(className: "Task", query: "progressMinutes == -1")
        try await settle()
        let before = deployment.residentBytes()
        var clients: [WireClient] = []
        var half = 0
        let wave = 50
        for first in stride(from: 0, to: sizes.clients, by: wave) {
            for k in first..<min(sizes.clients, first + wave) {
                let server = deployment.servers[k % deployment.servers.count]
                clients.append(WireClient.connect(host: "127.0.0.1", port: server.port, appId: deployment.appId, accessToken: token,
                                                  query: query, recorder: recorder))
            }
            let target = min(sizes.clients, first + wave)
            try await waitUntil("\(target) clients to bind and bootstrap", seconds: 120) {
                recorder.ready + recorder.failed.count >= target
            }
            if let failure = recorder.failed.first { throw BenchError("a simulated client failed: \(failure)") }
            if target >= sizes.clients / 2 && half == 0 {
                try await settle()
                half = deployment.residentBytes()
            }
        }
        defer { for client in clients { client.close() } }
        try await settle()
        let after = deployment.residentBytes()
        figures.clients = sizes.clients
        figures.idleClientBytes = Double(after - before) / Double(sizes.clients)
        figures.marginalClientBytes = Double(after - half) / Double(sizes.clients - sizes.clients / 2)

        var latencies: [Double] = []
        _ = recorder.takeArrivals()
        for k in 0..<sizes.fanoutChanges {
            try await randomPause()
            let start = now()
            try alice.write {
                let task = TaskSeed.task(60_000_000 + k, id: TaskSeed.objectId(60_000_000 + k))
                task.progressMinutes = -1
                alice.add(task)
            }
            try await waitUntil("change \(k) to reach \(sizes.clients) clients", seconds: 60) {
                recorder.arrivalCount >= sizes.clients || !recorder.failed.isEmpty
            }
            if let failure = recorder.failed.first { throw BenchError("a simulated client failed: \(failure)") }
            latencies += recorder.takeArrivals().map { Double($0 - start) }
        }
        latencies.sort()
        figures.fanoutMedian = percentile(latencies, 0.5)
        figures.fanoutP99 = percentile(latencies, 0.99)
        figures.fanoutDeliveries = latencies.count
    }

    /// Half a second for the server to finish what it was doing before memory is read.
    static func settle() async throws {
        try await _Concurrency.Task.sleep(nanoseconds: 500_000_000)
    }
}

/// Arrival times of observer callbacks, written on the observer's queue.
final class ArrivalLog: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [UInt64] = []
    func record(_ time: UInt64) { lock.withLock { times.append(time) } }
    var count: Int { lock.withLock { times.count } }
    var last: UInt64 { lock.withLock { times.last ?? 0 } }
}
