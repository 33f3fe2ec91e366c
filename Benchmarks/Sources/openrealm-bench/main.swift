// openrealm-bench: OpenRealm beside GRDB (SQLite, WAL) and raw LMDB doing the same
// work on the seeds' Task model, interleaved in one run over several rounds.
//
//   swift run -c release --package-path Benchmarks openrealm-bench [--quick]
//       [--json FILE] [--objects N] [--rounds R] [--dir DIR] [--no-memory]
//       [--no-sync | --sync-only] [--sync-stores embedded,postgres,postgres2] [--sync-clients N]
//       [--sides OpenRealm,LMDB]
//
// Each round starts from empty files: every side bulk-inserts the same N tasks, then
// each workload runs on each side in turn (the order of the sides rotates between
// rounds). The table shows medians over the rounds. Every side's answers (counts,
// sums, hits) are checked against the values the generator implies; a mismatch
// fails the run (exit status 1). Peak memory is measured per side in a child process
// running one round of that side alone.
//
// Then the sync workloads, OpenRealm only (`Sync/SyncWorkloads.swift`): openrealm-server
// child processes on loopback ports, synced realms of several users, and up to 1,000
// simulated wire-level clients, on each setup (`Sync/SyncDeployment.swift`: the embedded
// store, PostgreSQL with one process, with two processes; PostgreSQL setups when it is
// installed) side by side with the ratios; printed against the aims and written to the
// JSON file with null for the other sides.
import BenchModel
import Foundation

struct Options {
    var objects = 1_000_000
    var rounds = 3
    var quick = false
    var json: String?
    var directory: String?
    var memory = true
    var child: Side?
    var sync = true
    var local = true
    /// The sync setups (`--sync-stores`); nil: all of them with `--quick` when PostgreSQL
    /// is installed, the embedded store alone otherwise.
    var syncSetups: [SyncSetup]?
    /// The simulated clients of the fan-out (`--sync-clients`); nil: 200 quick, 1,000 otherwise.
    var syncClients: Int?
    /// The sides the local table runs (`--sides`, for profiling one or two of them).
    var sides: Set<Side> = Set(Side.allCases)

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var objectsGiven = false, roundsGiven = false
        var rest = arguments.dropFirst()
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
            return v
        }
        func positive(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), n > 0 else { throw BenchError("\(flag) needs a positive integer, not '\(text)'") }
            return n
        }
        while let arg = rest.popFirst() {
            switch arg {
            case "--quick": options.quick = true
            case "--objects": options.objects = try positive(arg); objectsGiven = true
            case "--rounds": options.rounds = try positive(arg); roundsGiven = true
            case "--json": options.json = try value(arg)
            case "--dir": options.directory = try value(arg)
            case "--no-memory": options.memory = false
            case "--no-sync": options.sync = false
            case "--sync-only": options.local = false
            case "--sync-clients": options.syncClients = try positive(arg)
            case "--sync-stores":
                let text = try value(arg)
                options.syncSetups = try text.split(separator: ",").map { name in
                    guard let setup = SyncSetup(rawValue: String(name)) else {
                        throw BenchError("--sync-stores takes names from \(SyncSetup.allCases.map(\.rawValue)), not '\(name)'")
                    }
                    return setup
                }
                if options.syncSetups?.isEmpty != false { throw BenchError("--sync-stores needs at least one setup") }
            case "--sides":
                let text = try value(arg)
                var chosen: Set<Side> = []
                for name in text.split(separator: ",") {
                    guard let side = Side.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                        throw BenchError("--sides takes names from \(Side.allCases.map(\.rawValue)), not '\(name)'")
                    }
                    chosen.insert(side)
                }
                guard !chosen.isEmpty else { throw BenchError("--sides needs at least one side") }
                options.sides = chosen
            case "--child":
                let name = try value(arg)
                guard let side = Side.allCases.first(where: { $0.rawValue == name }) else {
                    throw BenchError("--child needs one of \(Side.allCases.map(\.rawValue)), not '\(name)'")
                }
                options.child = side
            case "--help", "-h":
                print("usage: openrealm-bench [--quick] [--json FILE] [--objects N] [--rounds R] [--dir DIR] [--no-memory] [--no-sync | --sync-only] [--sync-stores embedded,postgres,postgres2] [--sync-clients N] [--sides OpenRealm,GRDB,LMDB]")
                exit(0)
            default: throw BenchError("unknown argument '\(arg)' (see --help)")
            }
        }
        if !options.local && !options.sync { throw BenchError("--no-sync and --sync-only leave nothing to run") }
        if options.quick {
            if !objectsGiven { options.objects = 100_000 }
            if !roundsGiven { options.rounds = 3 }
        }
        return options
    }

    var sizes: Sizes {
        Sizes(objects: objects,
              lookups: min(objects, quick ? 20_000 : 100_000),
              queries: 20,
              commits: quick ? 20 : 50,
              opens: quick ? 10 : 20)
    }
}

/// The answers the generator implies, which every side must give.
struct Expected {
    let values: [Workload: [Int]]

    init(_ sizes: Sizes, ids: IdTable) {
        let n = sizes.objects
        var progress = 0, nameBytes = 0, atLeast60 = 0
        for i in 0..<n {
            let p = TaskSeed.progressMinutes(i)
            progress += p
            nameBytes += TaskSeed.taskName(i).utf8.count
            if p >= 60 { atLeast60 += 1 }
        }
        let hits = (0..<sizes.queries).map { q in
            (0..<n).lazy.filter { $0 % 100 == q && TaskSeed.assignee($0) != nil }.count
        }
        let lookupSum = ids.lookupIndexes.reduce(0) { $0 + TaskSeed.progressMinutes($1) }
        values = [
            .bulkInsert: [n],
            .open: [1],
            .iterate: [n, progress, nameBytes],
            .countUnindexed: [atLeast60],
            .indexedEquality: hits,
            .primaryKey: [ids.lookupIndexes.count, lookupSum],
            .writeDurable: [n + sizes.commits],
            .writeFast: [n + 2 * sizes.commits],
        ]
    }
}

func makeDirectory(_ options: Options) throws -> (String, Bool) {
    if let dir = options.directory {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (dir, false)
    }
    var template = Array((NSTemporaryDirectory() + "openrealm-bench-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
    return (String(cString: made), true)
}

func makeSides(_ dir: String, _ ids: IdTable) -> [any BenchSide] {
    [RealmSide(directory: dir, ids: ids), GRDBSide(directory: dir, table: ids), LMDBSide(directory: dir, table: ids)]
}

/// How many one-object commits a side makes before the next side's turn.
let commitSlice = 10

/// A commit workload: the sides take turns every `commitSlice` commits, since a durable
/// commit follows the disk's other writers, which change over seconds, and each side
/// should meet the same disk.
func commitTurns(_ order: [any BenchSide], _ workload: Workload, _ sizes: Sizes,
                 round: Int) throws -> [(side: any BenchSide, measurement: Measurement)] {
    for side in order { try side.beginCommits(workload) }
    var samples = Array(repeating: [Double](), count: order.count)
    for start in stride(from: 0, to: sizes.commits, by: commitSlice) {
        for (i, side) in order.enumerated() {
            for k in start..<min(start + commitSlice, sizes.commits) {
                samples[i].append(try side.commitOne(workload, round: round, k: k))
            }
        }
    }
    return try order.enumerated().map { i, side in
        (side, Measurement(nsPerOp: median(samples[i]), check: try side.endCommits(workload)))
    }
}

/// Runs the rounds; returns samples per workload and side, file sizes, and mismatches.
func runRounds(_ sides: [any BenchSide], _ options: Options, _ expected: Expected,
               log: Bool) throws -> (samples: [Workload: [Side: [Double]]], files: [Side: Int], mismatches: [String]) {
    var samples: [Workload: [Side: [Double]]] = [:]
    var files: [Side: Int] = [:]
    var mismatches: [String] = []
    let sizes = options.sizes
    for round in 0..<options.rounds {
        let order = (0..<sides.count).map { sides[($0 + round) % sides.count] }
        for workload in Workload.allCases {
            let measured = workload.isCommit
                ? try commitTurns(order, workload, sizes, round: round)
                : try order.map { side in
                    if workload == .bulkInsert { try side.reset() }
                    let m = try side.run(workload, sizes, round: round)
                    if workload == .bulkInsert { files[side.side] = try side.fileBytes() }
                    return (side: side, measurement: m)
                }
            for (side, m) in measured {
                samples[workload, default: [:]][side.side, default: []].append(m.nsPerOp)
                if m.check != expected.values[workload] {
                    mismatches.append("round \(round + 1), \(side.side.rawValue), \(workload.rawValue): got \(m.check), expected \(expected.values[workload]!)")
                }
            }
            if log {
                let line = order.map { "\($0.side.rawValue) \(format(samples[workload]![$0.side]!.last!))" }.joined(separator: ", ")
                FileHandle.standardError.write("round \(round + 1)/\(options.rounds) \(workload.key): \(line)\n".data(using: .utf8)!)
            }
        }
        for side in sides { try side.tearDown() }
    }
    return (samples, files, mismatches)
}

/// Peak memory of one side, measured in a child process running one round of it alone.
func childPeak(_ side: Side, _ options: Options) throws -> (peak: Int, base: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var arguments = ["--child", side.rawValue, "--objects", String(options.objects), "--rounds", "1"]
    if options.quick { arguments.append("--quick") }
    if let dir = options.directory { arguments += ["--dir", dir] }
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0,
          let line = text.split(separator: "\n").last(where: { $0.hasPrefix("memory ") }) else {
        throw BenchError("the memory run of \(side.rawValue) failed (status \(process.terminationStatus)): \(text)")
    }
    let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
    return (numbers[0], numbers[1])
}

func main() throws -> Int32 {
    let options = try Options.parse(CommandLine.arguments)
    let baseRSS = currentRSS()
    let sizes = options.sizes
    let (dir, ownDir) = try makeDirectory(options)
    defer { if ownDir { try? FileManager.default.removeItem(atPath: dir) } }
    let ids = IdTable(objects: sizes.objects, rounds: options.rounds, commits: sizes.commits, lookups: sizes.lookups)
    let expected = Expected(sizes, ids: ids)

    if let only = options.child {
        let sides = makeSides(dir, ids).filter { $0.side == only }
        let result = try runRounds(sides, options, expected, log: false)
        print("memory \(peakRSS()) \(baseRSS)")
        return result.mismatches.isEmpty ? 0 : 1
    }

    var workloads: [[String: Any]] = []
    var document: [String: Any] = ["rounds": options.rounds]
    var mismatches: [String] = []
    if options.local {
        mismatches = try runLocal(options, dir: dir, ids: ids, expected: expected, workloads: &workloads, document: &document)
    }
    if options.sync {
        var setups = options.syncSetups ?? SyncSetup.allCases
        if options.syncSetups == nil && !BenchPostgres.isInstalled {
            FileHandle.standardError.write("PostgreSQL is not installed: the sync workloads run on the embedded store only\n".data(using: .utf8)!)
            setups = [.embedded]
        } else if options.syncSetups == nil && !options.quick {
            // On PostgreSQL each of the 1,000 binds reads the 100,000-object class (docs/SCALING.md).
            FileHandle.standardError.write(("the sync workloads run on the embedded store; --sync-stores embedded,postgres,postgres2 "
                + "adds PostgreSQL (slow at this size: each bind reads the whole class)\n").data(using: .utf8)!)
            setups = [.embedded]
        }
        var sizes = SyncSizes(quick: options.quick)
        if let clients = options.syncClients { sizes.clients = clients }
        let results = try runSync(sizes, setups)
        printSync(results)
        workloads += syncJSON(results)
    }

    if let json = options.json {
        document["workloads"] = workloads
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: json))
    }

    if !mismatches.isEmpty {
        print("\nMISMATCH — the sides disagree with the expected answers:")
        for m in mismatches { print("  " + m) }
        return 1
    }
    return 0
}

/// The local workloads on the three sides: prints the table; returns the mismatches.
func runLocal(_ options: Options, dir: String, ids: IdTable, expected: Expected,
              workloads: inout [[String: Any]], document: inout [String: Any]) throws -> [String] {
    let sizes = options.sizes
    let sides = makeSides(dir, ids).filter { options.sides.contains($0.side) }
    let start = now()
    let result = try runRounds(sides, options, expected, log: true)
    let mainPeak = peakRSS()
    var memory: [Side: (peak: Int, base: Int)] = [:]
    if options.memory {
        for side in Side.allCases where options.sides.contains(side) { memory[side] = try childPeak(side, options) }
    }
    let med: (Workload, Side) -> Double = { median(result.samples[$0]?[$1] ?? []) }
    print("\nopenrealm-bench: \(format(Double(sizes.objects))) objects, \(options.rounds) rounds, medians (\(String(format: "%.0f", Double(now() - start) / 1e9)) s)\n")
    let header = ["workload", "OpenRealm", "GRDB", "LMDB", "OR/GRDB", "OR/LMDB", "aim"]
    var rows: [[String]] = []
    for w in Workload.allCases {
        let o = med(w, .openrealm), g = med(w, .grdb), l = med(w, .lmdb)
        rows.append([w.rawValue, format(o), format(g), format(l), formatRatio(o, g), formatRatio(o, l), w.aim])
    }
    let f = result.files
    let perObject: (Side) -> Double = { f[$0].map { Double($0) / Double(sizes.objects) } ?? .nan }
    rows.append(["file size after bulk insert (bytes/object)", format(perObject(.openrealm)), format(perObject(.grdb)),
                 format(perObject(.lmdb)), formatRatio(perObject(.openrealm), perObject(.grdb)),
                 formatRatio(perObject(.openrealm), perObject(.lmdb)), "≤ GRDB"])
    if !memory.isEmpty {
        let peak: (Side) -> Double = { (memory[$0].map { Double($0.peak) } ?? .nan) / 1_048_576 }
        rows.append(["peak memory, one side alone (MiB)", format(peak(.openrealm)), format(peak(.grdb)), format(peak(.lmdb)),
                     formatRatio(peak(.openrealm), peak(.grdb)), formatRatio(peak(.openrealm), peak(.lmdb)), "–"])
    }
    print("| " + header.joined(separator: " | ") + " |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for row in rows { print("| " + row.joined(separator: " | ") + " |") }
    print("")
    print("files: OpenRealm \(formatBytes(f[.openrealm] ?? 0)), GRDB \(formatBytes(f[.grdb] ?? 0)) (after wal_checkpoint(TRUNCATE)), LMDB \(formatBytes(f[.lmdb] ?? 0))")
    if let m = memory[.openrealm] {
        print("memory: process at start \(formatBytes(m.base)); peak of this run with all three open \(formatBytes(mainPeak))")
    }
    print("Durable commits follow the disk's other writers: compare them pairwise within one run.")
    let observeObjects = min(sizes.objects, 100_000)
    let latency = try ObserveLatency.measure(objects: observeObjects, samples: options.quick ? 100 : 300, directory: options.directory ?? NSTemporaryDirectory())
    print(String(format: "commit → Results.observe callback, one change in %d objects: median %.0f µs, p99 %.0f µs over %d commits (aim: median < 1 ms)",
                 observeObjects, latency.median / 1000, latency.p99 / 1000, latency.samples))

    // A side not run (`--sides`) is null.
    let number: (Double) -> Any = { $0.isFinite ? $0 : NSNull() }
    workloads += Workload.allCases.map { w in
        ["name": w.key, "openrealm_ns": number(med(w, .openrealm)), "grdb_ns": number(med(w, .grdb)),
         "lmdb_ns": number(med(w, .lmdb)), "objects": sizes.objects]
    }
    workloads.append(["name": "file_bytes_per_object", "openrealm_ns": number(perObject(.openrealm)),
                      "grdb_ns": number(perObject(.grdb)), "lmdb_ns": number(perObject(.lmdb)), "objects": sizes.objects])
    if !memory.isEmpty {
        document["peak_memory_bytes"] = Dictionary(uniqueKeysWithValues: memory.map { ($0.key.rawValue, $0.value.peak) })
    }
    return result.mismatches
}

/// Runs the sync workloads of each setup in turn, on the main actor while the main
/// thread runs its run loop (a realm belongs to the thread that opened it; the run loop
/// drains the main queue on the main thread itself). The PostgreSQL setups share one
/// PostgreSQL of the run's own, a new database each.
func runSync(_ sizes: SyncSizes, _ setups: [SyncSetup]) throws -> [(SyncSetup, SyncFigures)] {
    let postgres = setups.contains(where: \.usesPostgres) ? try BenchPostgres() : nil
    defer { postgres?.stop() }
    var results: [(SyncSetup, SyncFigures)] = []
    for setup in setups {
        FileHandle.standardError.write("sync workloads on \(setup.title):\n".data(using: .utf8)!)
        let deployment = try SyncDeployment(setup, postgres: postgres)
        defer { deployment.stop() }
        final class Outcome: @unchecked Sendable { var value: Result<SyncFigures, Error>? }
        let outcome = Outcome()
        _Concurrency.Task { @MainActor in
            do {
                outcome.value = .success(try await SyncWorkloads.run(sizes, deployment) { line in
                    FileHandle.standardError.write(("  " + line + "\n").data(using: .utf8)!)
                })
            } catch {
                outcome.value = .failure(error)
            }
        }
        while outcome.value == nil { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05)) }
        results.append((setup, try outcome.value!.get()))
    }
    return results
}

/// The sync figures of every setup side by side, with each PostgreSQL setup's ratio to
/// the embedded store's (time: more is slower; rate: less is slower), and the aims,
/// judged on the embedded store (the default deployment).
func printSync(_ results: [(SyncSetup, SyncFigures)]) {
    let ms: (Double) -> String = { $0.isFinite ? String(format: "%.2f ms", $0 / 1e6) : "–" }
    let rate: (Double) -> String = { $0.isFinite ? format($0) + "/s" : "–" }
    let micro: (Double) -> String = { $0.isFinite ? String(format: "%.1f µs", $0 / 1e3) : "–" }
    let kb: (Double) -> String = { $0.isFinite ? String(format: "%.1f KB", $0 / 1000) : "–" }
    let mark: (Bool) -> String = { $0 ? "met" : "MISSED" }
    let base = results.first { $0.0 == .embedded }?.1
    let others = results.filter { $0.0 != .embedded }
    let columns = results.map(\.0.title) + (base == nil ? [] : others.map { "\($0.0.title) / embedded" })
    print("\nSync (OpenRealm only; openrealm-server in child processes on loopback):\n")
    print("| sync workload | " + columns.joined(separator: " | ") + " | aim |")
    print("|---|" + columns.map { _ in "---:|" }.joined() + "---|")
    func row(_ name: String, _ value: (SyncFigures) -> Double, _ show: (Double) -> String, aim: String, met: ((Double) -> Bool)? = nil) {
        var cells = results.map { show(value($0.1)) }
        if let base { cells += others.map { formatRatio(value($0.1), value(base)) } }
        let judged = base.flatMap { b in met.map { " (\(mark($0(value(b)))))" } } ?? ""
        print("| \(name) | " + cells.joined(separator: " | ") + " | \(aim)\(judged) |")
    }
    let f = results[0].1
    row("write on A → Results.observe on B, median (\(f.latencySamples) writes)", \.latencyMedian, ms, aim: "< 5 ms") { $0 < 5e6 }
    row("write on A → Results.observe on B, p99", \.latencyP99, ms, aim: "< 20 ms") { $0 < 20e6 }
    row("bootstrap of \(format(Double(f.bootstrapObjects))) objects on subscribe", \.bootstrapPerSecond, rate, aim: "≥ 50,000/s") { $0 >= 50_000 }
    row("sustained upload of changed objects (\(format(Double(f.uploadObjects)))), acknowledged", \.uploadChangedPerSecond, rate,
        aim: "≥ 50,000/s") { $0 >= 50_000 }
    row("sustained upload of new objects (\(format(Double(f.uploadObjects)))), acknowledged", \.uploadNewPerSecond, rate,
        aim: "≥ 50,000/s") { $0 >= 50_000 }
    row("server CPU per uploaded object, new (all server processes)", \.uploadNewServerCPU, micro, aim: "–")
    row("PostgreSQL CPU per uploaded object, new", \.uploadNewDatabaseCPU, micro, aim: "–")
    row("server CPU per uploaded object, changed", \.uploadChangedServerCPU, micro, aim: "–")
    row("PostgreSQL CPU per uploaded object, changed", \.uploadChangedDatabaseCPU, micro, aim: "–")
    row("clients' process CPU per uploaded object, new + changed", { $0.uploadNewClientCPU + $0.uploadChangedClientCPU }, micro, aim: "–")
    row("time under the app's write lock per uploaded object, new", \.uploadNewLockTime, micro, aim: "–")
    row("time under the app's write lock per uploaded object, changed", \.uploadChangedLockTime, micro, aim: "–")
    row("one app's ceiling, new objects (1 / time under the lock)", { 1e9 / $0.uploadNewLockTime }, rate, aim: "–")
    row("one app's ceiling, changed objects", { 1e9 / $0.uploadChangedLockTime }, rate, aim: "–")
    row("server, \(f.clients) clients: delivery of a change, median (\(f.fanoutDeliveries) deliveries)", \.fanoutMedian, ms, aim: "–")
    row("server, \(f.clients) clients: delivery of a change, p99", \.fanoutP99, ms, aim: "< 50 ms") { $0 < 50e6 }
    row("server memory per idle client (all server processes)", \.idleClientBytes, kb, aim: "< 100 KB") { $0 < 100_000 }
    row("server memory per idle client, second half of them", \.marginalClientBytes, kb, aim: "–")
    if !others.isEmpty {
        print("\nOn PostgreSQL a server process commits each upload group in one transaction under the app's row lock; "
            + "with two processes, A writes through one and B, C and half the crowd are served by the other, which learns "
            + "of A's versions from the history (docs/SCALING.md).")
    }
}

/// The sync figures in the JSON shape of the local ones (ns per operation or per
/// object, bytes for memory; the other sides null). The embedded store's names are
/// plain; a PostgreSQL setup's carry its name (`_postgres`, `_postgres2`).
func syncJSON(_ results: [(SyncSetup, SyncFigures)]) -> [[String: Any]] {
    results.flatMap { setup, f -> [[String: Any]] in
        let suffix = setup == .embedded ? "" : "_\(setup.rawValue)"
        func entry(_ name: String, _ value: Double, _ objects: Int) -> [String: Any] {
            ["name": name + suffix, "openrealm_ns": value.isFinite ? value : NSNull(), "grdb_ns": NSNull(), "lmdb_ns": NSNull(),
             "objects": objects]
        }
        return [
            entry("sync_write_to_observe_median", f.latencyMedian, f.latencySamples),
            entry("sync_write_to_observe_p99", f.latencyP99, f.latencySamples),
            entry("sync_bootstrap_per_object", 1e9 / f.bootstrapPerSecond, f.bootstrapObjects),
            entry("sync_upload_changed_per_object", 1e9 / f.uploadChangedPerSecond, f.uploadObjects),
            entry("sync_upload_new_per_object", 1e9 / f.uploadNewPerSecond, f.uploadObjects),
            entry("sync_upload_new_server_cpu_per_object", f.uploadNewServerCPU, f.uploadObjects),
            entry("sync_upload_new_database_cpu_per_object", f.uploadNewDatabaseCPU, f.uploadObjects),
            entry("sync_upload_changed_server_cpu_per_object", f.uploadChangedServerCPU, f.uploadObjects),
            entry("sync_upload_changed_database_cpu_per_object", f.uploadChangedDatabaseCPU, f.uploadObjects),
            entry("sync_upload_new_write_lock_per_object", f.uploadNewLockTime, f.uploadObjects),
            entry("sync_upload_changed_write_lock_per_object", f.uploadChangedLockTime, f.uploadObjects),
            entry("server_fanout_delivery_p99", f.fanoutP99, f.clients),
            entry("server_fanout_delivery_median", f.fanoutMedian, f.clients),
            entry("server_idle_client_bytes", f.idleClientBytes, f.clients),
        ]
    }
}

if (4...5).contains(CommandLine.arguments.count) && CommandLine.arguments[1] == "--sync-server" {
    let arguments = CommandLine.arguments
    SyncServerProcess.serve(dataDirectory: arguments[2], appId: arguments[3], store: arguments.count == 5 ? arguments[4] : nil)
}

do {
    exit(try main())
} catch {
    FileHandle.standardError.write("openrealm-bench: \(error)\n".data(using: .utf8)!)
    exit(2)
}
