import Foundation

/// Where the sync workloads' server keeps its data, and how many processes serve it.
enum SyncSetup: String, CaseIterable {
    /// One process on the embedded ORCore store (the default deployment).
    case embedded
    /// One process on PostgreSQL.
    case postgres
    /// Two processes on one PostgreSQL database.
    case postgres2

    var processes: Int { self == .postgres2 ? 2 : 1 }
    var usesPostgres: Bool { self != .embedded }

    var title: String {
        switch self {
        case .embedded: "embedded"
        case .postgres: "PostgreSQL, 1 process"
        case .postgres2: "PostgreSQL, 2 processes"
        }
    }
}

/// The server processes of one setup, each a ``SyncServerProcess`` serving the app
/// ``appId`` (an app of its own per setup), over its own embedded store or one new
/// database of the run's PostgreSQL. Made and stopped on the main thread, read from
/// the workloads' tasks (its properties never change).
final class SyncDeployment: @unchecked Sendable {
    let setup: SyncSetup
    let appId: String
    let servers: [SyncServerProcess]
    /// The run's PostgreSQL, for the PostgreSQL setups.
    let postgres: BenchPostgres?

    init(_ setup: SyncSetup, postgres: BenchPostgres?) throws {
        self.setup = setup
        appId = "openrealm-bench-\(setup.rawValue)"
        var store: String?
        if setup.usesPostgres {
            guard let postgres else { throw BenchError("the \(setup.title) setup needs PostgreSQL") }
            store = try postgres.makeDatabase()
        }
        self.postgres = setup.usesPostgres ? postgres : nil
        var started: [SyncServerProcess] = []
        do {
            for _ in 0..<setup.processes { started.append(try SyncServerProcess(appId: appId, store: store)) }
        } catch {
            for server in started { server.stop() }
            throw error
        }
        servers = started
    }

    /// The process the second and third users talk to: the other one, when there are two.
    var other: SyncServerProcess { servers[servers.count - 1] }

    /// The CPU time the server processes have used so far (ns).
    func serverCPU() -> UInt64 { servers.reduce(0) { $0 + $1.cpuNanoseconds() } }

    /// The CPU time PostgreSQL has used so far (ns; 0 on the embedded store).
    func databaseCPU() -> UInt64 { postgres?.cpuNanoseconds() ?? 0 }

    /// The seconds the server processes have spent holding apps' write locks so far: the
    /// integration of uploaded changesets and the commits of their transactions (the
    /// servers' `openrealm_changeset_integration_seconds` and `openrealm_commit_seconds`).
    func writeLockSeconds() async throws -> Double {
        var total = 0.0
        for server in servers {
            total += try await server.metric("openrealm_changeset_integration_seconds_sum")
            total += try await server.metric("openrealm_commit_seconds_sum")
        }
        return total
    }

    /// The server processes' resident memory now (bytes).
    func residentBytes() -> Int { servers.reduce(0) { $0 + $1.residentBytes() } }

    /// With several processes, a moment for the others to take in what one committed
    /// (each catches up on a notification), so that their CPU counts in the phase that
    /// caused it.
    func waitForCatchUp() async throws {
        guard servers.count > 1 else { return }
        try await _Concurrency.Task.sleep(nanoseconds: 300_000_000)
    }

    func stop() {
        for server in servers { server.stop() }
    }
}
