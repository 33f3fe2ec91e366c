import ArgumentParser
import Foundation

/// `openrealm-chaos load --clients N --seconds S`: N simulated clients (the sync
/// protocol over NIO WebSockets, in this process) log in, subscribe to their room's
/// notes and write for S seconds while a few real RealmSwift clients (child processes)
/// write too, against an `openrealm-server` child.
///
/// Prints the delivery latency (a write on one client to its download on the others of
/// its room) at p50 and p99, the server's memory per client (its RSS from /proc before
/// and after the clients connected, divided by N), and the errors. Fails on any error,
/// a write not delivered to every other member of its room, a real client that does not
/// converge with the server, or a `/health` poll that went unanswered.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load the server with many simulated clients; print delivery latency, memory per client and errors."
    )

    @Option(help: "How many simulated clients.")
    var clients: Int = 1_000

    @Option(help: "How long the clients write, in seconds.")
    var seconds: Int = 30

    @Option(help: "Clients per room (each subscribes to its room's notes and gets its writes).")
    var roomSize: Int = 10

    @Option(help: "Writes per second, over all simulated clients.")
    var writesPerSecond: Int = 50

    @Option(help: "How many real RealmSwift clients (child processes) write as well.")
    var realClients: Int = 3

    @OptionGroup var runOptions: RunOptions

    func run() throws {
        guard clients >= 2 && clients <= 20_000 else { throw ValidationError("--clients must be within 2...20000, not \(clients).") }
        guard seconds >= 1 else { throw ValidationError("--seconds must be at least 1, not \(seconds).") }
        guard roomSize >= 2 else { throw ValidationError("--room-size must be at least 2, not \(roomSize).") }
        guard writesPerSecond >= 1 && writesPerSecond <= 10_000 else {
            throw ValidationError("--writes-per-second must be within 1...10000, not \(writesPerSecond).")
        }
        guard realClients >= 0 && realClients <= 16 else { throw ValidationError("--real-clients must be within 0...16, not \(realClients).") }
        guard let executable = Bundle.main.executableURL else { throw ChaosFailure(.usage, "Cannot find this executable's path.") }
        let fileLimit = SystemLimits.raiseOpenFileLimit()
        SystemLimits.ignoreBrokenPipes()
        guard fileLimit < 0 || fileLimit > clients + 200 else {
            throw ChaosFailure(.usage, "The open-file limit is \(fileLimit); \(clients) clients need more (raise the hard limit).")
        }
        let folder = try runOptions.makeFolder(prefix: "openrealm-chaos-load")
        let serverProcess = try runOptions.makeServer(in: folder)
        defer { serverProcess.stop() }
        print("openrealm-chaos load: \(clients) simulated clients in rooms of \(roomSize), \(realClients) RealmSwift clients, "
              + "\(seconds) s at \(writesPerSecond) writes/s (open-file limit \(fileLimit))")
        let started = Date()
        let stats = LoadStats()
        var figures = Figures()
        var failure: ChaosFailure?
        do {
            try run(server: serverProcess, folder: folder, executable: executable, stats: stats, figures: &figures)
        } catch let error as ChaosFailure {
            failure = error
        } catch {
            failure = ChaosFailure(.network, "\(error)")
        }
        let p50 = stats.latencyPercentile(0.5).map { String(format: "%.1f ms", $0) } ?? "n/a"
        let p99 = stats.latencyPercentile(0.99).map { String(format: "%.1f ms", $0) } ?? "n/a"
        print("  connected and subscribed: \(stats.subscribed) of \(clients) in \(String(format: "%.1f", figures.connectSeconds)) s "
              + "(logins \(String(format: "%.1f", figures.loginSeconds)) s)")
        print("  writes: \(stats.writes), deliveries: \(stats.deliveries) of \(stats.expectedDeliveries) expected")
        print("  delivery latency: p50 \(p50), p99 \(p99)")
        let perClient = clients > 0 ? Double(figures.rssAfter - figures.rssBefore) / Double(clients) / 1024 : 0
        print(String(format: "  server memory: RSS %.1f MiB before the clients, %.1f MiB after (%.1f KiB per client), peak %.1f MiB",
                     Double(figures.rssBefore) / 1_048_576, Double(figures.rssAfter) / 1_048_576, perClient,
                     Double(figures.rssPeak) / 1_048_576))
        print("  server open files with the clients connected: \(figures.serverFiles)")
        print("  /health: \(figures.healthPolls) polls, \(figures.healthFailures.count) unanswered, slowest \(String(format: "%.3f", figures.healthSlowest)) s")
        let errorKinds = stats.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("  errors: \(stats.errorCount)\(errorKinds.isEmpty ? "" : " (\(errorKinds))")")
        for line in stats.firstErrors { print("    \(line)") }
        if realClients > 0 {
            print("  RealmSwift clients: \(figures.realCommits) commits, \(figures.realUploads) uploads acknowledged, converged: \(figures.realConverged)")
        }
        print(String(format: "  elapsed: %.1f s", Date().timeIntervalSince(started)))
        if failure == nil, let first = figures.healthFailures.first {
            failure = ChaosFailure(.health, "/health went unanswered \(figures.healthFailures.count) time(s); first: \(first)")
        }
        if failure == nil, stats.errorCount > 0 {
            failure = ChaosFailure(.network, "\(stats.errorCount) client error(s); first: \(stats.firstErrors.first ?? "")")
        }
        if failure == nil, stats.deliveries < stats.expectedDeliveries {
            failure = ChaosFailure(.lostUpload, "\(stats.expectedDeliveries - stats.deliveries) deliveries of \(stats.expectedDeliveries) never arrived.")
        }
        if failure == nil, stats.deliveries > stats.expectedDeliveries {
            failure = ChaosFailure(.duplicate, "\(stats.deliveries) deliveries arrived for \(stats.expectedDeliveries) expected.")
        }
        if let failure {
            print("FAILED: \(failure)")
            print("  the files are kept in \(folder.path)")
            throw ExitCode.failure
        }
        print("  result: every write delivered once to every other member of its room; /health answered throughout; no errors")
        serverProcess.stop()
        runOptions.removeTemporaryFolder(folder)
    }

    /// Figures of a run besides ``LoadStats``.
    struct Figures {
        var loginSeconds = 0.0
        var connectSeconds = 0.0
        var rssBefore = 0
        var rssAfter = 0
        var rssPeak = 0
        var serverFiles = 0
        var healthPolls = 0
        var healthFailures: [String] = []
        var healthSlowest = 0.0
        var realCommits = 0
        var realUploads = 0
        var realConverged = false
    }

    private func run(server: ServerProcess, folder: URL, executable: URL, stats: LoadStats, figures: inout Figures) throws {
        try server.start()
        let health = HealthMonitor(port: server.port, timeout: 5)
        defer {
            let result = health.stop()
            figures.healthPolls = result.polls
            figures.healthFailures = result.failures
            figures.healthSlowest = result.slowestSeconds
        }
        var simulated: [SimulatedClient] = []
        defer { for client in simulated { client.stop() } }

        // Logins (anonymous, one user per simulated client).
        let loginStart = Date()
        let tokens = try login(count: clients, http: server.http)
        figures.loginSeconds = Date().timeIntervalSince(loginStart)

        // The first client declares the schema; the memory baseline is taken after it.
        let first = SimulatedClient(index: 0, room: 0, token: tokens[0], stats: stats, declaresSchema: true)
        simulated.append(first)
        first.start(port: server.port)
        try waitUntil("the first client to declare the schema and subscribe", timeout: 60, stats: stats) { first.subscribed }
        figures.rssBefore = SystemLimits.residentBytes(of: server.pid) ?? 0

        let connectStart = Date()
        for index in 1..<clients {
            let client = SimulatedClient(index: index, room: index / roomSize, token: tokens[index], stats: stats, declaresSchema: false)
            simulated.append(client)
            client.start(port: server.port)
            // Connect in steps so the listen backlog is never the bottleneck.
            if index % 100 == 0 {
                try waitUntil("clients up to \(index) to subscribe", timeout: 120, stats: stats) { stats.subscribed >= index }
            }
        }
        try waitUntil("all \(clients) clients to subscribe", timeout: 300, stats: stats) { stats.subscribed >= clients }
        figures.connectSeconds = Date().timeIntervalSince(connectStart)
        usleep(500_000)
        figures.rssAfter = SystemLimits.residentBytes(of: server.pid) ?? 0
        figures.rssPeak = figures.rssAfter
        figures.serverFiles = SystemLimits.openFiles(of: server.pid) ?? 0

        // A few real RealmSwift clients write alongside.
        let names = (0..<realClients).map { "real\($0 + 1)" }
        var real: [SyncClientProcess] = []
        defer { for process in real { process.finish() } }
        for name in names + (realClients > 0 ? ["verifier"] : []) {
            try server.register(email: SyncChaos.email(of: name), password: SyncChaos.password, appId: SyncChaos.appId)
        }
        for name in names {
            real.append(try SyncClientProcess(executable: executable, name: name, baseURL: server.baseURL,
                                              root: folder.appendingPathComponent("client-\(name)"), seed: UInt64.random(in: 0...UInt64.max),
                                              extra: ["--background-uploads", "--upload-every", "2", "--interval-ms", "50",
                                                      "--peers", names.filter { $0 != name }.joined(separator: ",")],
                                              errorLog: folder.appendingPathComponent("client-\(name).log")))
        }
        for process in real { _ = try process.waitUntilReady(timeout: 120) }

        // The write phase: a paced driver picks a random client for each write.
        var random = SystemRandomNumberGenerator()
        let interval = 1.0 / Double(writesPerSecond)
        let writeStart = Date()
        var nextWrite = writeStart
        let roomSizes = Dictionary(grouping: simulated, by: \.room).mapValues(\.count)
        while Date().timeIntervalSince(writeStart) < Double(seconds) {
            let client = simulated[Int.random(in: 0..<simulated.count, using: &random)]
            stats.wrote(receivers: (roomSizes[client.room] ?? 1) - 1)
            client.write()
            nextWrite += interval
            let wait = nextWrite.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            if let rss = SystemLimits.residentBytes(of: server.pid) { figures.rssPeak = max(figures.rssPeak, rss) }
            for process in real where !process.child.isRunning {
                throw ChaosFailure(.writer, "\(process.name) exited: \(process.child.output.suffix(3)) \(process.child.errorTail)")
            }
            guard server.child?.isRunning == true else { throw ChaosFailure(.server, "the server exited during the write phase.") }
        }
        try waitUntil("every write to reach its room", timeout: 60, stats: stats) { stats.deliveries >= stats.expectedDeliveries }

        // The real clients settle and must match the server.
        if realClients > 0 {
            let settled = try SyncSettlement.settle(real)
            let reports = try SyncSettlement.reports(real)
            let serverState = try SyncSettlement.serverState(executable: executable, baseURL: server.baseURL, folder: folder).state
            for process in real {
                figures.realCommits += process.highest("commit")
                figures.realUploads += process.count("uploaded")
                try SyncChecks.exactlyOnce(serverState, client: process.name, acknowledged: process.highest("uploaded"),
                                           settled: settled[process.name] ?? 0)
            }
            try SyncChecks.converged(reports, reference: ("the server (a fresh client)", serverState))
            figures.realConverged = true
        }
    }

    /// Logs `count` anonymous users in on 8 threads; returns their access tokens.
    private func login(count: Int, http: LoopbackHTTP) throws -> [String] {
        final class Tokens: @unchecked Sendable {
            var values: [String?]
            var failure: String?
            let lock = NSLock()
            init(_ count: Int) { values = Array(repeating: nil, count: count) }
        }
        let tokens = Tokens(count)
        let threads = 8
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in stride(from: thread, to: count, by: threads) {
                var attempt = 0
                while true {
                    attempt += 1
                    let reply = try? http.request("POST", "/api/client/v2.0/app/\(SyncChaos.appId)/auth/providers/anon-user/login",
                                                  json: [:], timeout: 30)
                    if let reply, reply.status == 200, let token = reply.json["access_token"] as? String {
                        tokens.lock.withLock { tokens.values[index] = token }
                        break
                    }
                    // A login refused for its rate is retried after a pause; others fail the run.
                    if let reply, reply.status == 429, attempt < 20 {
                        usleep(250_000)
                        continue
                    }
                    tokens.lock.withLock { tokens.failure = "login \(index): \(reply.map { "HTTP \($0.status) \($0.body)" } ?? "no answer")" }
                    return
                }
            }
        }
        if let failure = tokens.failure { throw ChaosFailure(.network, failure) }
        return tokens.values.map { $0 ?? "" }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval, stats: LoadStats, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                throw ChaosFailure(.network, "timed out after \(Int(timeout)) s waiting for \(what) (\(stats.subscribed) subscribed, "
                                   + "\(stats.deliveries) of \(stats.expectedDeliveries) deliveries, \(stats.errorCount) errors)")
            }
            usleep(5_000)
        }
    }
}
