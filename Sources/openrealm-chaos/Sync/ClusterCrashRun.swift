import Foundation
import OpenRealmTestSupport

/// `crash --target server|postgres --store postgres`: three `openrealm-server` processes
/// serve one app from one PostgreSQL database the run starts (``PostgresProcess``), and
/// synced clients (RealmSwift, child processes) reach them through a balancing proxy
/// (``FaultProxy`` with three targets and no faults): each new connection goes to the
/// next server that accepts.
///
/// Each cycle waits until uploads flow, waits a random delay, then
/// - `server`: SIGKILLs one of the three at random (its clients' connections end, their
///   reconnects go to the other two); every client must get an upload acknowledged by
///   the others before the killed one starts again;
/// - `database`: shuts PostgreSQL down at once (`pg_ctl stop -m immediate`), leaves it
///   down a random while (uploads meanwhile fail and are retried), starts it again; the
///   three servers must still run, and every client must get an upload acknowledged after
///   the restart (the servers reconnected their pools and their LISTEN).
///
/// At the end the checks of ``ServerCrashRun``: every client settles and reports its
/// state, a fresh verifier downloads the servers', all must be equal, and each client's
/// log must read 1...n exactly with every acknowledged seq; and the app's history in
/// PostgreSQL must hold contiguous versions ending at the app's latest.
struct ClusterCrashRun {
    /// What a cycle kills.
    enum Victim {
        case server, database
    }

    let victim: Victim
    let cycles: Int
    let maxDelayMs: Int
    let seed: UInt64
    let clientCount: Int
    let intervalMs: Int
    let folder: URL
    let database: PostgresProcess
    let servers: [ServerProcess]
    let proxy: FaultProxy
    let executable: URL
    /// Fail when a log holds every seq once but out of order.
    let strictOrder: Bool

    /// Figures of the run.
    struct Figures {
        /// Server kills or database restarts.
        var kills = 0
        /// Kills by server index.
        var killsByServer: [Int] = []
        var uploadsAcknowledged = 0
        var commits = 0
        var notesVerified = 0
        /// Seconds from the start command to `/health` (server) or to `pg_ctl start`'s return (database).
        var restartSeconds: [Double] = []
        /// Seconds the database was down, per restart.
        var outageSeconds: [Double] = []
        /// Versions in the app's history in PostgreSQL at the end, and the latest.
        var historyVersions = 0
        var latestVersion = 0
        var syncErrors: [String] = []
        /// Clients whose log on the server holds every seq once but out of order.
        var reorderedLogs = 0
    }

    func run(_ figures: inout Figures) throws {
        figures.killsByServer = Array(repeating: 0, count: servers.count)
        try database.start()
        // One after the other: the first applies the schema migrations (the others would wait on its lock).
        for server in servers { try server.start() }
        try proxy.start()
        let baseURL = "http://127.0.0.1:\(proxy.port)"
        let names = (1...clientCount).map { "c\($0)" }
        for name in names + ["verifier"] {
            try servers[0].register(email: SyncChaos.email(of: name), password: SyncChaos.password, appId: SyncChaos.appId)
        }
        var random = SplitMix64(seed: seed)
        var clients: [SyncClientProcess] = []
        defer { for client in clients { client.finish() } }
        for name in names {
            let peers = names.filter { $0 != name }.joined(separator: ",")
            clients.append(try SyncClientProcess(
                executable: executable, name: name, baseURL: baseURL, root: folder.appendingPathComponent("client-\(name)"),
                seed: random.next(),
                extra: ["--background-uploads", "--upload-every", "2", "--interval-ms", String(intervalMs), "--peers", peers],
                errorLog: folder.appendingPathComponent("client-\(name).log")))
        }
        for client in clients { _ = try client.waitUntilReady(timeout: 120) }
        for cycle in 1...cycles {
            do {
                // Kill only while uploads flow.
                try waitForUploads(clients, every: false, what: "upload acknowledged before the kill")
                usleep(UInt32(Int.random(in: 0...maxDelayMs, using: &random) * 1000))
                switch victim {
                case .server:
                    let index = Int.random(in: 0..<servers.count, using: &random)
                    try servers[index].kill()
                    figures.kills += 1
                    figures.killsByServer[index] += 1
                    // The others serve every client meanwhile.
                    try waitForUploads(clients, every: true, down: index,
                                       what: "upload acknowledged by the other servers after server \(index + 1) was killed")
                    let started = Date()
                    try servers[index].start()
                    figures.restartSeconds.append(Date().timeIntervalSince(started))
                case .database:
                    let stopped = Date()
                    try database.stopImmediately()
                    figures.kills += 1
                    usleep(UInt32(Int.random(in: 200...2_000, using: &random) * 1000))
                    let started = Date()
                    try database.start()
                    figures.restartSeconds.append(Date().timeIntervalSince(started))
                    figures.outageSeconds.append(Date().timeIntervalSince(stopped))
                    try waitForUploads(clients, every: true, what: "upload acknowledged after PostgreSQL restarted")
                }
            } catch let error as ChaosFailure {
                throw ChaosFailure(error.code, "cycle \(cycle): \(error.message)")
            }
        }
        let outcome = try SyncSettlement.verify(clients, executable: executable, baseURL: baseURL, folder: folder, strictOrder: strictOrder)
        figures.uploadsAcknowledged = outcome.uploadsAcknowledged
        figures.commits = outcome.commits
        figures.syncErrors = outcome.syncErrors
        figures.reorderedLogs = outcome.reorderedLogs
        figures.notesVerified = outcome.notesVerified
        (figures.historyVersions, figures.latestVersion) = try checkHistory()
    }

    /// Waits until one client (`every`: each client) has an upload acknowledged after
    /// now, checking that every server but `down` still runs. A client that waits out a
    /// reconnect backoff is nudged (`reconnect`) after a second without progress.
    private func waitForUploads(_ clients: [SyncClientProcess], every: Bool, down: Int? = nil, what: String) throws {
        let before = clients.map { $0.count("uploaded") }
        let deadline = Date().addingTimeInterval(120)
        var nudge = Date().addingTimeInterval(1)
        while true {
            let progressed = zip(clients, before).map { $0.count("uploaded") > $1 }
            if every ? progressed.allSatisfy({ $0 }) : progressed.contains(true) { return }
            if Date() > nudge {
                for (client, done) in zip(clients, progressed) where !done { client.child.send("reconnect") }
                nudge = Date().addingTimeInterval(1)
            }
            for client in clients where !client.child.isRunning {
                throw ChaosFailure(.writer, "\(client.name) exited: \(client.child.output.suffix(3)) \(client.child.errorTail)")
            }
            for (index, server) in servers.enumerated() where index != down && !(server.child?.isRunning ?? false) {
                throw ChaosFailure(.server, "server \(index + 1) exited by itself: \(server.child?.errorTail ?? "")")
            }
            guard Date() < deadline else {
                let waiting = zip(clients, progressed).filter { !$1 }.map { $0.0.name }
                throw ChaosFailure(.lostUpload, "no \(what) within 120 s (clients waiting: \(waiting.joined(separator: ", "))).")
            }
            usleep(2_000)
        }
    }

    /// The app's history in PostgreSQL: its versions must run without a gap from the
    /// first kept one to the app's latest (versions are contiguous and committed in
    /// order, whichever process integrated them). Returns how many and the latest.
    private func checkHistory() throws -> (Int, Int) {
        let app = SyncChaos.appId.replacingOccurrences(of: "'", with: "''")
        let row = try database.psql("""
            SELECT count(*), coalesce(min(h.server_version), 0), coalesce(max(h.server_version), 0), a.server_version
            FROM openrealm_apps a LEFT JOIN openrealm_history h ON h.app_id = a.app_id
            WHERE a.app_id = '\(app)' GROUP BY a.server_version
            """)
        let fields = row.split(separator: "|").compactMap { Int($0) }
        guard fields.count == 4 else {
            throw ChaosFailure(.database, "cannot read the app's history from PostgreSQL (psql answered '\(row)').")
        }
        let (count, first, last, latest) = (fields[0], fields[1], fields[2], fields[3])
        guard count > 0, last - first + 1 == count, last == latest else {
            throw ChaosFailure(.lostUpload, "the app's history in PostgreSQL holds \(count) versions from \(first) to \(last), "
                + "the app's latest is \(latest): not contiguous.")
        }
        return (count, latest)
    }
}
