import ArgumentParser
import Foundation

/// `openrealm-chaos abuse --seconds S`: the resource attacks of a hostile client, for S
/// seconds, against an `openrealm-server` child in development mode (loopback, a
/// temporary data directory), while a few ordinary clients make round trips:
///
/// - compressed bombs and large compressed queries (``CompressedFrameAttack``),
/// - clients that subscribe to large objects and never read (``NonReadingClientAttack``),
/// - oversized HTTP heads (``OversizedHeadAttack``) and trickled bodies (``TrickledBodyAttack``),
/// - new apps by the hundred (``AppCreationFlood``),
/// - binds by the hundred on one connection, and connections by the hundred
///   (``SessionFloodAttack``).
///
/// Every attack is bounded in count and rate (its figures are printed) and ends with
/// the run. The run samples the server's peak memory (`VmHWM`) and open descriptors,
/// and the ordinary clients' round-trip latency, and prints them with what each attack
/// met. It fails when the server died, its peak memory passed `--max-memory-mb`, an
/// ordinary round trip failed (or none completed after the attacks), their p99 passed
/// `--max-p99-ms`, or `/health` went unanswered.
struct AbuseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abuse",
        abstract: "Attack the server's resources (bombs, non-reading clients, HTTP holds, floods) beside ordinary clients; check it stays up, bounded and serving."
    )

    @Option(help: "How long the attacks last, in seconds.")
    var seconds: Int = 30

    @Option(help: "How many ordinary clients make round trips throughout.")
    var ordinaryClients: Int = 3

    @Option(help: "The pause between an ordinary client's round trips, in milliseconds.")
    var ordinaryIntervalMs: Int = 50

    @Option(help: "Fail when the server's peak resident memory (VmHWM) passes this many MiB.")
    var maxMemoryMb: Int = 1024

    @Option(help: "Fail when the ordinary clients' p99 round trip passes this many milliseconds.")
    var maxP99Ms: Int = 1000

    @Option(help: "Non-reading clients open at once.")
    var nonReaders: Int = 4

    @Option(help: "Trickled request bodies open at once.")
    var tricklers: Int = 20

    @Option(help: "The most app ids the app-creation flood tries.")
    var maxApps: Int = 500

    @Option(help: "The attacks to run, comma-separated: \(Self.attackKeys.joined(separator: ",")) (default: all).")
    var attacks: String = Self.attackKeys.joined(separator: ",")

    @Option(help: "Passed to the server: the most bytes queued for one sync connection (default: the server's).")
    var syncMaxOutboundBytes: Int?

    @Option(help: "Passed to the server: seconds a queued frame may wait to be written (default: the server's).")
    var syncDrainTimeout: Double?

    @Option(help: "Passed to the server: seconds a request body may take (default: the server's).")
    var httpBodyTimeout: Double?

    /// The app the ordinary clients use and most attacks aim at.
    static let appId = "abuse"

    @OptionGroup var runOptions: RunOptions

    func run() throws {
        guard seconds >= 1 && seconds <= 3_600 else { throw ValidationError("--seconds must be within 1...3600, not \(seconds).") }
        guard ordinaryClients >= 1 && ordinaryClients <= 32 else {
            throw ValidationError("--ordinary-clients must be within 1...32, not \(ordinaryClients).")
        }
        guard ordinaryIntervalMs >= 0 && ordinaryIntervalMs <= 10_000 else {
            throw ValidationError("--ordinary-interval-ms must be within 0...10000, not \(ordinaryIntervalMs).")
        }
        guard maxMemoryMb >= 1 else { throw ValidationError("--max-memory-mb must be at least 1, not \(maxMemoryMb).") }
        guard maxP99Ms >= 1 else { throw ValidationError("--max-p99-ms must be at least 1, not \(maxP99Ms).") }
        guard nonReaders >= 0 && nonReaders <= 64 else { throw ValidationError("--non-readers must be within 0...64, not \(nonReaders).") }
        guard tricklers >= 0 && tricklers <= 1_000 else { throw ValidationError("--tricklers must be within 0...1000, not \(tricklers).") }
        guard maxApps >= 0 && maxApps <= 100_000 else { throw ValidationError("--max-apps must be within 0...100000, not \(maxApps).") }
        let unknown = attacks.split(separator: ",").map(String.init).filter { !Self.attackKeys.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError("--attacks: unknown \(unknown.joined(separator: ", ")); choose from \(Self.attackKeys.joined(separator: ", ")).")
        }
        let fileLimit = SystemLimits.raiseOpenFileLimit()
        SystemLimits.ignoreBrokenPipes()
        let folder = try runOptions.makeFolder(prefix: "openrealm-chaos-abuse")
        let serverProcess = try runOptions.makeServer(in: folder, developmentMode: true, extraArguments: serverArguments)
        defer { serverProcess.stop() }
        print("openrealm-chaos abuse: \(seconds) s of attacks on a development-mode server, \(ordinaryClients) ordinary clients; "
              + "bounds: peak memory \(maxMemoryMb) MiB, ordinary p99 \(maxP99Ms) ms (open-file limit \(fileLimit))")
        let started = Date()
        let stats = OrdinaryStats()
        var run = Run()
        var failure: ChaosFailure?
        do {
            try attack(server: serverProcess, stats: stats, run: &run)
        } catch let error as ChaosFailure {
            failure = error
        } catch {
            failure = ChaosFailure(.network, "\(error)")
        }
        report(run, stats: stats, port: serverProcess.port)
        print(String(format: "  elapsed: %.1f s", Date().timeIntervalSince(started)))
        failure = failure ?? check(run, stats: stats)
        if let failure {
            print("FAILED: \(failure)")
            print("  the files are kept in \(folder.path)")
            throw ExitCode.failure
        }
        print("  result: the server stayed up, within \(maxMemoryMb) MiB, and served the ordinary clients throughout (p99 within \(maxP99Ms) ms)")
        serverProcess.stop()
        runOptions.removeTemporaryFolder(folder)
    }

    /// The `serve` options given on this command line.
    private var serverArguments: [String] {
        var arguments: [String] = []
        if let syncMaxOutboundBytes { arguments += ["--sync-max-outbound-bytes", String(syncMaxOutboundBytes)] }
        if let syncDrainTimeout { arguments += ["--sync-drain-timeout", String(syncDrainTimeout)] }
        if let httpBodyTimeout { arguments += ["--http-body-timeout", String(httpBodyTimeout)] }
        return arguments
    }

    /// The names `--attacks` takes, in the order the attacks are listed.
    static let attackKeys = ["bombs", "large-queries", "non-readers", "heads", "trickles", "apps", "binds", "connections"]

    /// The attacks `--attacks` names, with their bounds (count, rate, concurrency).
    private func selectedAttacks() throws -> [Attack] {
        let keys = Set(attacks.split(separator: ",").map(String.init))
        return try Self.attackKeys.filter(keys.contains).map { key -> Attack in
            switch key {
            case "bombs": return try CompressedFrameAttack(kind: .bomb, limit: 10_000, perSecond: 5)
            case "large-queries": return try CompressedFrameAttack(kind: .largeQuery, limit: 1_000, perSecond: 1)
            case "non-readers": return NonReadingClientAttack(concurrent: nonReaders, limit: nonReaders * 16)
            case "heads": return OversizedHeadAttack(limit: 10_000, perSecond: 20)
            case "trickles": return TrickledBodyAttack(concurrent: tricklers, limit: tricklers * 10)
            case "apps": return AppCreationFlood(limit: maxApps, perSecond: 20)
            case "binds": return SessionFloodAttack(shape: .bindsOnOneConnection, limit: 5_000, perSecond: 50)
            default: return SessionFloodAttack(shape: .manyConnections, limit: 2_000, perSecond: 50)
            }
        }
    }

    /// What a run measured besides the ordinary clients' ``OrdinaryStats``.
    struct Run {
        var target: AbuseTarget?
        var attackNames: [String] = []
        var unfinishedAttacks: [String] = []
        var server = ServerSampler.Figures()
        var serverExited = ""
        var counters: ServerCounters?
        var health: (polls: Int, failures: [String], slowestSeconds: Double) = (0, [], 0)
        var attacksEnded: Date?
        var clientsServedAfter = 0
    }

    private func attack(server: ServerProcess, stats: OrdinaryStats, run: inout Run) throws {
        try server.start()
        let http = server.http
        let tokens = try (0...ordinaryClients).map { _ in try login(http) }
        try AbuseSchema.setUp(port: server.port, appId: Self.appId, token: tokens[0])
        let sampler = ServerSampler(pid: server.pid)
        let health = HealthMonitor(port: server.port, timeout: 5)
        var clients: [OrdinaryClient] = []
        defer {
            for client in clients { client.stop() }
            run.health = health.stop()
            run.server = sampler.stop()
            if server.child?.isRunning == false { run.serverExited = server.child?.errorTail ?? "" }
        }
        for index in 1...ordinaryClients {
            let client = OrdinaryClient(index: index, port: server.port, appId: Self.appId, token: tokens[index],
                                        interval: Double(ordinaryIntervalMs) / 1000, stats: stats)
            clients.append(client)
            client.start()
        }
        let subscribeDeadline = Date().addingTimeInterval(30)
        while !clients.allSatisfy(\.subscribed) {
            if let first = stats.failures.first { throw ChaosFailure(.service, "an ordinary client failed before the attacks: \(first)") }
            guard Date() < subscribeDeadline else { throw ChaosFailure(.service, "the ordinary clients did not subscribe within 30 s.") }
            usleep(10_000)
        }

        let attacks = try selectedAttacks()
        let target = AbuseTarget(port: server.port, appId: Self.appId, token: tokens[0], end: Date().addingTimeInterval(Double(seconds)))
        run.target = target
        run.attackNames = attacks.map(\.name)
        let done = attacks.map { attack -> DispatchSemaphore in
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                attack.run(against: target)
                finished.signal()
            }
            return finished
        }
        // Watch: a dead server, memory past the bound or a failed ordinary client end the
        // attacks early (the checks after the report name the cause).
        while target.isRunning {
            let figures = sampler.figures
            if figures.died || server.child?.isRunning != true || figures.peakResident > maxMemoryMb << 20 || !stats.failures.isEmpty {
                target.stop()
            }
            usleep(100_000)
        }
        for (attack, finished) in zip(attacks, done) where finished.wait(timeout: .now() + 30) == .timedOut {
            run.unfinishedAttacks.append(attack.name)
        }
        run.attacksEnded = Date()
        // The ordinary clients must still be served once the attacks are over.
        let afterDeadline = Date().addingTimeInterval(OrdinaryClient.roundTripTimeout)
        while Date() < afterDeadline && stats.failures.isEmpty && server.child?.isRunning == true {
            run.clientsServedAfter = clients.filter { ($0.lastRoundTrip ?? .distantPast) > run.attacksEnded! }.count
            if run.clientsServedAfter == clients.count { break }
            usleep(10_000)
        }
        if server.child?.isRunning == true { run.counters = ServerCounters(http: http) }
    }

    /// An anonymous login to the run's app; returns the access token.
    private func login(_ http: LoopbackHTTP) throws -> String {
        let reply = try http.request("POST", "/api/client/v2.0/app/\(Self.appId)/auth/providers/anon-user/login", json: [:], timeout: 30)
        guard reply.status == 200, let token = reply.json["access_token"] as? String else {
            throw ChaosFailure(.server, "an anonymous login answered \(reply.status): \(reply.body)")
        }
        return token
    }

    private func report(_ run: Run, stats: OrdinaryStats, port: Int) {
        let milliseconds = { (value: Double?) in value.map { String(format: "%.1f ms", $0) } ?? "n/a" }
        print("  server on port \(port)")
        print("  ordinary clients: \(stats.uploads + stats.marks) round trips (\(stats.uploads) uploads acknowledged, \(stats.marks) marks echoed), "
              + "\(stats.failures.count) failed; latency p50 \(milliseconds(stats.percentile(0.5))), p99 \(milliseconds(stats.percentile(0.99))), "
              + "max \(milliseconds(stats.percentile(1)))")
        for failure in stats.failures.prefix(3) { print("    \(failure)") }
        print("  /health: \(run.health.polls) polls, \(run.health.failures.count) unanswered, slowest \(String(format: "%.3f", run.health.slowestSeconds)) s")
        let server = run.server
        print("  server memory: peak \(ServerCounters.mebibytes(Double(server.peakResident))) (VmHWM); resident \(ServerCounters.mebibytes(Double(server.rssStart))) "
              + "before the attacks, \(ServerCounters.mebibytes(Double(server.rssEnd))) after")
        print("  server descriptors: peak \(server.filesPeak), \(server.filesStart) before the attacks, \(server.filesEnd) after (\(server.samples) samples)")
        if let target = run.target {
            for name in run.attackNames {
                print("  \(name): \(target.tally.summary(name))")
                for (outcome, _) in target.tally.outcomes(name) where !Self.expected.contains(where: outcome.hasPrefix) {
                    if let detail = target.tally.firstDetail(name, outcome) { print("    first '\(outcome)': \(detail.prefix(300))") }
                }
            }
        }
        if let counters = run.counters, !counters.isEmpty {
            let closed = { (reason: String) in Int(counters["openrealm_slow_connections_closed_total{reason=\"\(reason)\"}"]) }
            print("  the server's counters: slow connections closed \(closed("queue_full")) (queue full) + \(closed("drain_timeout")) (drain deadline); "
                  + "outbound queue peak \(ServerCounters.mebibytes(counters["openrealm_outbound_queue_peak_bytes"])), "
                  + "inbound queue peak \(ServerCounters.mebibytes(counters["openrealm_inbound_queue_peak_bytes"])); "
                  + "query budget waits \(Int(counters["openrealm_query_budget_waits_total"])); "
                  + "sessions bound \(Int(counters["openrealm_sessions_total"])), connections \(Int(counters["openrealm_connections_total"]))")
        }
        if !run.unfinishedAttacks.isEmpty { print("  attacks that did not end within 30 s of the run: \(run.unfinishedAttacks.joined(separator: ", "))") }
    }

    /// Outcomes whose first message is not worth printing.
    private static let expected = ["bound", "created", "answered", "closed by the server", "cut off by the server", "open at the end"]

    /// The first check that fails, or nil.
    private func check(_ run: Run, stats: OrdinaryStats) -> ChaosFailure? {
        if run.server.died || !run.serverExited.isEmpty {
            return ChaosFailure(.server, "the server exited during the attacks: \(run.serverExited)")
        }
        let bound = maxMemoryMb << 20
        if run.server.peakResident > bound {
            return ChaosFailure(.memory, "the server's peak resident memory (VmHWM) was \(ServerCounters.mebibytes(Double(run.server.peakResident))), "
                                + "over --max-memory-mb \(maxMemoryMb)")
        }
        if let first = stats.failures.first {
            return ChaosFailure(.service, "\(stats.failures.count) ordinary client(s) failed a round trip; the first: \(first)")
        }
        if run.attacksEnded != nil && run.clientsServedAfter < ordinaryClients {
            return ChaosFailure(.service, "only \(run.clientsServedAfter) of \(ordinaryClients) ordinary clients completed a round trip "
                                + "within \(Int(OrdinaryClient.roundTripTimeout)) s after the attacks")
        }
        if let p99 = stats.percentile(0.99), p99 > Double(maxP99Ms) {
            return ChaosFailure(.service, String(format: "the ordinary clients' p99 round trip was %.1f ms, over --max-p99-ms %d", p99, maxP99Ms))
        }
        if let first = run.health.failures.first {
            return ChaosFailure(.health, "/health went unanswered \(run.health.failures.count) time(s); first: \(first)")
        }
        if !run.unfinishedAttacks.isEmpty {
            return ChaosFailure(.network, "attacks did not end: \(run.unfinishedAttacks.joined(separator: ", "))")
        }
        return nil
    }
}
