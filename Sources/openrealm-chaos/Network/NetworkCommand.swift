import ArgumentParser
import Foundation
import OpenRealmTestSupport

/// `openrealm-chaos network --seconds S [--clients N]`: synced clients (RealmSwift,
/// child processes) write concurrently through a ``FaultProxy`` that drops, delays,
/// stalls, truncates and resets their connections to an `openrealm-server` child.
///
/// When the faults stop, every client settles (uploads everything) and reports its
/// state; a fresh verifier client, connected to the server directly, reports the
/// server's. All must be equal, and each client's log on the server must read 1...n
/// exactly (no change lost or applied twice) and hold every acknowledged upload.
struct NetworkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "network",
        abstract: "Run clients through a fault-injecting proxy; check that all converge with nothing lost or applied twice."
    )

    @Option(help: "How long the faults last, in seconds.")
    var seconds: Int = 30

    @Option(help: "How many synced clients write concurrently.")
    var clients: Int = 3

    @Option(help: "Seed of the fault schedule and the clients' writes (random by default).")
    var seed: UInt64?

    @Option(help: "The clients' pause between transactions, in milliseconds.")
    var intervalMs: Int = 20

    @Flag(help: "Fail when a client's log holds every seq once but out of order (a known issue, reported otherwise).")
    var strictOrder = false

    @Option(help: ArgumentHelp("Self-test: 'duplicate' makes the first client append seq 1 to its log again, so the checks must fail.", visibility: .hidden))
    var selfTest: String?

    @OptionGroup var runOptions: RunOptions

    func run() throws {
        guard seconds >= 1 else { throw ValidationError("--seconds must be at least 1, not \(seconds).") }
        guard clients >= 1 && clients <= 64 else { throw ValidationError("--clients must be within 1...64, not \(clients).") }
        guard intervalMs >= 0 else { throw ValidationError("--interval-ms must not be negative, not \(intervalMs).") }
        guard let executable = Bundle.main.executableURL else { throw ChaosFailure(.usage, "Cannot find this executable's path.") }
        SystemLimits.raiseOpenFileLimit()
        SystemLimits.ignoreBrokenPipes()
        let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
        let folder = try runOptions.makeFolder(prefix: "openrealm-chaos-network")
        let serverProcess = try runOptions.makeServer(in: folder)
        defer { serverProcess.stop() }
        let proxy = FaultProxy(targetPort: serverProcess.port, seed: seed)
        defer { proxy.shutdown() }
        print("openrealm-chaos network: \(seconds) s of faults, \(clients) clients, seed \(seed)")
        let started = Date()
        var figures = Figures()
        var failure: ChaosFailure?
        do {
            try run(proxy: proxy, server: serverProcess, folder: folder, executable: executable, seed: seed, figures: &figures)
        } catch let error as ChaosFailure {
            failure = error
        } catch {
            failure = ChaosFailure(.network, "\(error)")
        }
        print("  server on port \(serverProcess.port), proxy on port \(proxy.port); files in \(folder.path)")
        let kinds = FaultKind.allCases.map { "\($0.rawValue) \(figures.faults[$0] ?? 0)" }.joined(separator: ", ")
        print("  faults injected: \(figures.faults.values.reduce(0, +)) (\(kinds)) over \(figures.connections) proxied connections")
        print("  commits: \(figures.commits), uploads acknowledged: \(figures.uploads), notes on the server: \(figures.notes)")
        print("  settle after the faults stopped: \(String(format: "%.1f", figures.settleSeconds)) s; sync errors reported: \(figures.syncErrors.count)"
              + (figures.syncErrors.isEmpty ? "" : " (first: \(figures.syncErrors[0]))"))
        print("  client logs on the server out of order (every seq once): \(figures.reorderedLogs) of \(clients)")
        print(String(format: "  elapsed: %.1f s", Date().timeIntervalSince(started)))
        if let failure {
            print("FAILED: \(failure)")
            print("  the files are kept in \(folder.path)")
            throw ExitCode.failure
        }
        print("  lost: 0, applied twice: 0, diverged: 0")
        print("  result: \(clients) clients and the server hold the same data")
        serverProcess.stop()
        runOptions.removeTemporaryFolder(folder)
    }

    /// Figures of a run.
    struct Figures {
        var faults: [FaultKind: Int] = [:]
        var connections = 0
        var commits = 0
        var uploads = 0
        var notes = 0
        var settleSeconds = 0.0
        var syncErrors: [String] = []
        var reorderedLogs = 0
    }

    private func run(proxy: FaultProxy, server: ServerProcess, folder: URL, executable: URL, seed: UInt64,
                     figures: inout Figures) throws {
        try server.start()
        try proxy.start()
        let names = (1...clients).map { "c\($0)" }
        for name in names + ["verifier"] {
            try server.register(email: SyncChaos.email(of: name), password: SyncChaos.password, appId: SyncChaos.appId)
        }
        var random = SplitMix64(seed: seed ^ 0x5EED)
        var processes: [SyncClientProcess] = []
        defer { for process in processes { process.finish() } }
        proxy.startFaults()
        for name in names {
            processes.append(try SyncClientProcess(
                executable: executable, name: name, baseURL: "http://127.0.0.1:\(proxy.port)",
                root: folder.appendingPathComponent("client-\(name)"), seed: random.next(),
                extra: ["--background-uploads", "--upload-every", "2", "--interval-ms", String(intervalMs),
                        "--peers", names.filter { $0 != name }.joined(separator: ",")],
                errorLog: folder.appendingPathComponent("client-\(name).log")))
        }
        // Logging in goes through the proxy too, so a fault may hit it: allow time.
        for process in processes { _ = try process.waitUntilReady(timeout: 180) }
        if selfTest == "duplicate" {
            // Waited for: on a loaded machine the client could otherwise take it only
            // after a short run ended, and the run would pass with nothing to find.
            processes[0].child.send("duplicate")
            _ = try processes[0].child.waitForLine("duplicated", timeout: 60, code: .writer) { $0 == "duplicated 1" ? true : nil }
        }
        let end = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < end {
            for process in processes where !process.child.isRunning {
                throw ChaosFailure(.writer, "\(process.name) exited: \(process.child.output.suffix(3)) \(process.child.errorTail)")
            }
            usleep(50_000)
        }
        figures.faults = try proxy.stopFaults()
        figures.connections = proxy.connectionCount()
        let settleStarted = Date()
        let settled = try SyncSettlement.settle(processes)
        figures.settleSeconds = Date().timeIntervalSince(settleStarted)
        let reports = try SyncSettlement.reports(processes)
        let serverState = try SyncSettlement.serverState(executable: executable, baseURL: server.baseURL, folder: folder).state
        figures.notes = serverState.notes
        for process in processes {
            figures.commits += process.highest("commit")
            figures.uploads += process.count("uploaded")
            figures.syncErrors += process.syncErrors
        }
        for process in processes {
            if try SyncChecks.exactlyOnce(serverState, client: process.name, acknowledged: process.highest("uploaded"),
                                          settled: settled[process.name] ?? 0, strictOrder: strictOrder) {
                figures.reorderedLogs += 1
            }
        }
        try SyncChecks.converged(reports, reference: ("the server (a fresh client)", serverState))
    }
}
