import ArgumentParser
import Foundation
import OpenRealmTestSupport

/// `openrealm-chaos crash [--target local|client|server|postgres] [--store embedded|postgres]
/// --cycles N`: kills a process with SIGKILL at random points and checks that nothing was
/// lost.
///
/// `local` (the default) kills a local-realm writer and checks after each kill that
/// nothing it reported as committed was lost and no partial transaction is visible;
/// `client` kills a synced client (``ClientCrashRun``), `server` the sync server
/// (``ServerCrashRun``; with `--store postgres` one of three servers on one PostgreSQL
/// database, ``ClusterCrashRun``), `postgres` restarts that database under the three.
///
/// Cycles alternate between a file opened with `durability = .full` and one opened with
/// `.skipMetaSync` (unless `--durability` picks one): a process crash must lose nothing
/// in either mode. Each file is reused across its cycles, so every writer starts from a
/// file recovered after the previous kill.
struct CrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash",
        abstract: "Kill a local-realm writer, a synced client, a server or PostgreSQL at random points; check nothing is lost."
    )

    /// What `crash` kills.
    enum Target: String, CaseIterable, ExpressibleByArgument {
        case local, client, server, postgres
    }

    /// What the servers of `--target server|postgres` serve.
    enum Store: String, CaseIterable, ExpressibleByArgument {
        case embedded, postgres
    }

    @Option(help: "What to kill: local (a local-realm writer), client (a synced client), server, or postgres (restart the database under three servers; implies --store postgres).")
    var target: Target = .local

    @Option(help: "server target: embedded (one server on its data directory) or postgres (three servers on one PostgreSQL database of the run's own, behind a balancing proxy; needs PostgreSQL's initdb and pg_ctl).")
    var store: Store?

    @Option(help: "Number of kill cycles.")
    var cycles: Int = 20

    @Option(help: "Seed of the kill delays and the writers' random writes (random by default).")
    var seed: UInt64?

    @Option(help: "Longest wait, in milliseconds, between the writer being ready and the kill.")
    var maxDelayMs: Int = 250

    @Option(help: "both, full or skipMetaSync.")
    var durability: String = "both"

    @Option(help: "server target: how many synced clients write while the server is killed.")
    var clients: Int = 2

    @Option(help: "server target: the clients' pause between transactions, in milliseconds.")
    var intervalMs: Int = 20

    @Flag(help: "client/server targets: fail when a client's log holds every seq once but out of order (a known issue, reported otherwise).")
    var strictOrder = false

    @Option(help: ArgumentHelp("Self-test: damage the run so that its checks must fail (client: duplicate, server: erase).", visibility: .hidden))
    var selfTest: String?

    @OptionGroup var runOptions: RunOptions

    func run() throws {
        guard cycles > 0 else { throw ValidationError("--cycles must be at least 1, not \(cycles).") }
        guard maxDelayMs >= 0 else { throw ValidationError("--max-delay-ms must not be negative, not \(maxDelayMs).") }
        if target == .postgres && store == .embedded {
            throw ValidationError("--target postgres restarts the PostgreSQL store: it does not run with --store embedded.")
        }
        if store == .postgres && (target == .local || target == .client) {
            throw ValidationError("--store postgres applies to --target server and postgres, not \(target.rawValue).")
        }
        if target == .postgres || store == .postgres {
            if let selfTest { throw ValidationError("--self-test \(selfTest) runs on the embedded store only.") }
            try runCluster()
            return
        }
        if target != .local {
            try runSynced()
            return
        }
        let modes: [DurabilityChoice]
        switch durability {
        case "both": modes = [.full, .skipMetaSync]
        default:
            guard let mode = DurabilityChoice(rawValue: durability) else {
                throw ValidationError("--durability must be both, full or skipMetaSync, not '\(durability)'.")
            }
            modes = [mode]
        }
        guard let executable = Bundle.main.executableURL else {
            throw ChaosFailure(.writer, "Cannot find this executable's path to start the writer.")
        }
        let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
        let folder = try runOptions.makeFolder(prefix: "openrealm-chaos")
        var random = SplitMix64(seed: seed)
        var files = modes.map { CrashFile(durability: $0, path: folder.appendingPathComponent("crash-\($0.rawValue).realm").path) }
        print("openrealm-chaos crash: \(cycles) cycles, seed \(seed), kill within 0–\(maxDelayMs) ms of the writer being ready")
        print("  files in \(folder.path)")
        let started = Date()
        var failure: ChaosFailure?
        // A file left by an earlier run (with --directory) is checked before it is reused.
        for index in files.indices where failure == nil && FileManager.default.fileExists(atPath: files[index].path) {
            do {
                let outcome = try CrashVerifier.check(path: files[index].path, durability: files[index].durability,
                                                      startTxn: nil, reported: [], known: [:])
                files[index].lastTxn = outcome.lastTxn
            } catch let error as ChaosFailure {
                failure = ChaosFailure(error.code, "before the first cycle: \(error.message)")
            } catch {
                failure = ChaosFailure(.engineCheck, "before the first cycle: \(error)")
            }
        }
        for cycle in 0..<cycles where failure == nil {
            let index = cycle % files.count
            do {
                try runCycle(&files[index], executable: executable, random: &random)
            } catch let error as ChaosFailure {
                failure = ChaosFailure(error.code, "cycle \(cycle + 1): \(error.message)")
            } catch {
                failure = ChaosFailure(.writer, "cycle \(cycle + 1): \(error)")
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        for file in files { print(file.summary) }
        print(String(format: "  total: %d kills, %d commits verified, %.1f s", files.map(\.kills).reduce(0, +),
                     files.map(\.commitsVerified).reduce(0, +), elapsed))
        if let failure {
            print("FAILED: \(failure)")
            print("  the files are kept in \(folder.path)")
            throw ExitCode.failure
        }
        print("  result: nothing lost, no partial transaction, orc_env_check passed after every kill")
        runOptions.removeTemporaryFolder(folder)
    }

    /// What the synced runs share before they start anything: the options checked, this
    /// executable's path (the clients run it), raised limits, the seed and the run's folder.
    private func prepareSyncedRun() throws -> (executable: URL, seed: UInt64, folder: URL) {
        guard clients >= 1 else { throw ValidationError("--clients must be at least 1, not \(clients).") }
        guard intervalMs >= 0 else { throw ValidationError("--interval-ms must not be negative, not \(intervalMs).") }
        guard let executable = Bundle.main.executableURL else {
            throw ChaosFailure(.writer, "Cannot find this executable's path to start the clients.")
        }
        SystemLimits.raiseOpenFileLimit()
        SystemLimits.ignoreBrokenPipes()
        let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
        return (executable, seed, try runOptions.makeFolder(prefix: "openrealm-chaos"))
    }

    /// `--store postgres`: `--target server` or `--target postgres` (``ClusterCrashRun``).
    private func runCluster() throws {
        let (executable, seed, folder) = try prepareSyncedRun()
        let database = try PostgresProcess(folder: folder)
        defer { database.stop() }
        var servers: [ServerProcess] = []
        for index in 1...3 {
            servers.append(try runOptions.makeServer(in: folder, storeURL: database.storeURL, name: "server\(index)"))
        }
        defer { for server in servers { server.stop() } }
        let proxy = FaultProxy(targetPorts: servers.map(\.port), seed: seed)
        defer { proxy.shutdown() }
        let victim: ClusterCrashRun.Victim = target == .postgres ? .database : .server
        print("openrealm-chaos crash --target \(target.rawValue) --store postgres: \(cycles) cycles, seed \(seed), "
            + (victim == .server ? "kill within 0–\(maxDelayMs) ms" : "immediate shutdown within 0–\(maxDelayMs) ms, 0.2–2 s down"))
        print("  PostgreSQL in \(database.directory.path); servers on ports \(servers.map { String($0.port) }.joined(separator: ", "))")
        let started = Date()
        var failure: ChaosFailure?
        var figures = ClusterCrashRun.Figures()
        let run = ClusterCrashRun(victim: victim, cycles: cycles, maxDelayMs: maxDelayMs, seed: seed, clientCount: clients,
                                  intervalMs: intervalMs, folder: folder, database: database, servers: servers, proxy: proxy,
                                  executable: executable, strictOrder: strictOrder)
        do { try run.run(&figures) } catch let error as ChaosFailure { failure = error } catch { failure = ChaosFailure(.server, "\(error)") }
        let restarts = figures.restartSeconds.sorted()
        let medianRestart = restarts.isEmpty ? 0 : restarts[restarts.count / 2]
        let outages = figures.outageSeconds.sorted()
        print("  proxy on port \(proxy.port), \(proxy.connectionCount()) connections balanced over the three servers")
        switch victim {
        case .server:
            print("  server kills: \(figures.kills) (by server: \(figures.killsByServer.map(String.init).joined(separator: "/"))), clients: \(clients)")
            print(String(format: "  restart to /health: median %.2f s, max %.2f s", medianRestart, restarts.last ?? 0))
        case .database:
            print("  PostgreSQL restarts (immediate shutdown): \(figures.kills), clients: \(clients), servers exited: 0")
            print(String(format: "  outage: median %.2f s, max %.2f s; pg_ctl start: median %.2f s", outages.isEmpty ? 0 : outages[outages.count / 2],
                         outages.last ?? 0, medianRestart))
        }
        print("  commits: \(figures.commits), uploads acknowledged: \(figures.uploadsAcknowledged), notes verified on the server: \(figures.notesVerified)")
        print("  history in PostgreSQL: \(figures.historyVersions) versions, contiguous, latest \(figures.latestVersion)")
        print("  client logs on the server out of order (every seq once): \(figures.reorderedLogs) of \(clients)")
        print("  sync errors reported by clients: \(figures.syncErrors.count)\(figures.syncErrors.isEmpty ? "" : " (first: \(figures.syncErrors[0]))")")
        print(String(format: "  elapsed: %.1f s", Date().timeIntervalSince(started)))
        if let failure {
            print("  lost: see below")
            print("FAILED: \(failure)")
            print("  the files are kept in \(folder.path) (PostgreSQL's log: postgres/postgres.log)")
            throw ExitCode.failure
        }
        print("  lost: 0, applied twice: 0, diverged: 0")
        print("  result: nothing lost, every acknowledged upload on the servers exactly once, clients converged")
        for server in servers { server.stop() }
        proxy.shutdown()
        database.stop()
        runOptions.removeTemporaryFolder(folder)
    }

    /// One cycle on `file`: start a writer, kill it after a random delay, check the file.
    private func runCycle(_ file: inout CrashFile, executable: URL, random: inout SplitMix64) throws {
        let writer = try WriterProcess(executable: executable, path: file.path, durability: file.durability, seed: random.next())
        let startTxn: Int
        do {
            startTxn = try writer.waitUntilReady(timeout: 30)
        } catch {
            _ = try? writer.kill()
            throw error
        }
        guard startTxn == file.lastTxn else {
            _ = try? writer.kill()
            throw ChaosFailure(.lostCommit, "\(file.path): the writer found txn \(startTxn) last, the previous check found \(file.lastTxn).")
        }
        usleep(UInt32(Int.random(in: 0...maxDelayMs, using: &random) * 1000))
        let reported = try writer.kill()
        file.kills += 1
        let outcome = try CrashVerifier.check(path: file.path, durability: file.durability, startTxn: startTxn,
                                              reported: reported, known: file.known)
        for commit in reported { file.known[commit.txn] = commit.digest }
        file.commitsVerified += reported.count
        if outcome.unreportedCommit { file.unreportedCommits += 1 }
        file.lastTxn = outcome.lastTxn
    }

    /// `--target client` or `--target server`.
    private func runSynced() throws {
        let (executable, seed, folder) = try prepareSyncedRun()
        let serverProcess = try runOptions.makeServer(in: folder)
        defer { serverProcess.stop() }
        print("openrealm-chaos crash --target \(target.rawValue): \(cycles) cycles, seed \(seed), kill within 0–\(maxDelayMs) ms")
        print("  server \(serverProcess.executable.path) on port \(serverProcess.port); files in \(folder.path)")
        let started = Date()
        var failure: ChaosFailure?
        var lines: [String] = []
        if target == .client {
            var figures = ClientCrashRun.Figures()
            let run = ClientCrashRun(cycles: cycles, maxDelayMs: maxDelayMs, seed: seed, folder: folder, server: serverProcess,
                                     executable: executable, injectDuplicate: selfTest == "duplicate", strictOrder: strictOrder)
            do { try run.run(&figures) } catch let error as ChaosFailure { failure = error } catch { failure = ChaosFailure(.writer, "\(error)") }
            lines = [
                "  client kills: \(figures.kills), commits reported: \(figures.commits), uploads confirmed by wait(for: .upload): \(figures.uploadsConfirmed)",
                "  highest seq confirmed uploaded: \(figures.highestUploaded), client settled at seq \(figures.settledSeq), "
                    + "kills between commit and report: \(figures.killsBetweenCommitAndReport)",
                "  restarts whose log list lacked appends not yet back from the server: \(figures.restartsWithLogLag)",
                "  client log on the server out of order (every seq once): \(figures.reordered ? "yes" : "no")",
                "  sync errors reported by the client: \(figures.syncErrors.count)\(figures.syncErrors.isEmpty ? "" : " (first: \(figures.syncErrors[0]))")",
            ]
        } else {
            var figures = ServerCrashRun.Figures()
            let run = ServerCrashRun(cycles: cycles, maxDelayMs: maxDelayMs, seed: seed, clientCount: clients, intervalMs: intervalMs,
                                     folder: folder, server: serverProcess, executable: executable, tamperStore: selfTest == "erase", strictOrder: strictOrder)
            do { try run.run(&figures) } catch let error as ChaosFailure { failure = error } catch { failure = ChaosFailure(.server, "\(error)") }
            let restarts = figures.restartSeconds.sorted()
            let medianRestart = restarts.isEmpty ? 0 : restarts[restarts.count / 2]
            lines = [
                "  server kills: \(figures.kills), store checks passed (orc_env_check): \(figures.storeChecks), clients: \(clients)",
                "  commits: \(figures.commits), uploads acknowledged: \(figures.uploadsAcknowledged), notes verified on the server: \(figures.notesVerified)",
                String(format: "  restart to /health: median %.2f s, max %.2f s", medianRestart, restarts.last ?? 0),
                "  client logs on the server out of order (every seq once): \(figures.reorderedLogs) of \(clients)",
                "  sync errors reported by clients: \(figures.syncErrors.count)\(figures.syncErrors.isEmpty ? "" : " (first: \(figures.syncErrors[0]))")",
            ]
        }
        for line in lines { print(line) }
        print(String(format: "  elapsed: %.1f s", Date().timeIntervalSince(started)))
        if let failure {
            print("  lost: see below")
            print("FAILED: \(failure)")
            print("  the files are kept in \(folder.path)")
            throw ExitCode.failure
        }
        print("  lost: 0, applied twice: 0, diverged: 0")
        print("  result: nothing lost, every acknowledged upload on the server exactly once, clients converged")
        serverProcess.stop()
        runOptions.removeTemporaryFolder(folder)
    }
}

/// One realm file of a crash run and its figures.
struct CrashFile {
    let durability: DurabilityChoice
    let path: String
    /// The last transaction the previous check found in the file.
    var lastTxn = 0
    /// Every digest the writers reported, by txn; each check compares all of them.
    var known: [Int: String] = [:]
    var kills = 0
    var commitsVerified = 0
    /// Kills that landed after a commit but before its report line.
    var unreportedCommits = 0

    var summary: String {
        "  durability \(durability.rawValue): \(kills) kills, \(commitsVerified) reported commits verified, "
            + "\(unreportedCommits) kills between commit and report (commit found), last txn \(lastTxn)"
    }
}
