// openrealm-bench: OpenRealm beside GRDB (SQLite, WAL) and raw LMDB doing the same
// work on the seeds' Task model, interleaved in one run over several rounds.
//
//   swift run -c release --package-path Benchmarks openrealm-bench [--quick]
//       [--json FILE] [--objects N] [--rounds R] [--dir DIR] [--no-memory]
//       [--no-sync | --sync-only] [--sides OpenRealm,LMDB]
//
// Each round starts from empty files: every side bulk-inserts the same N tasks, then
// each workload runs on each side in turn (the order of the sides rotates between
// rounds). The table shows medians over the rounds. Every side's answers (counts,
// sums, hits) are checked against the values the generator implies; a mismatch
// fails the run (exit status 1). Peak memory is measured per side in a child process
// running one round of that side alone.
//
// Then the sync workloads, OpenRealm only (`Sync/SyncWorkloads.swift`): an
// openrealm-server child process on a loopback port, synced realms of several users,
// and up to 1,000 simulated wire-level clients; their figures are printed against the
// issue's aims and written to the JSON file with null for the other sides.
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
                print("usage: openrealm-bench [--quick] [--json FILE] [--objects N] [--rounds R] [--dir DIR] [--no-memory] [--no-sync | --sync-only] [--sides OpenRealm,GRDB,LMDB]")
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
        let figures = try runSync(SyncSizes(quick: options.quick))
        printSync(figures)
        workloads += syncJSON(figures)
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

/// Runs the sync workloads on the main actor while the main thread runs its run loop
/// (a realm belongs to the thread that opened it; the run loop drains the main queue
/// on the main thread itself).
func runSync(_ sizes: SyncSizes) throws -> SyncFigures {
    final class Outcome: @unchecked Sendable { var value: Result<SyncFigures, Error>? }
    let outcome = Outcome()
    _Concurrency.Task { @MainActor in
        do {
            outcome.value = .success(try await SyncWorkloads.run(sizes) { line in
                FileHandle.standardError.write((line + "\n").data(using: .utf8)!)
            })
        } catch {
            outcome.value = .failure(error)
        }
    }
    while outcome.value == nil { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05)) }
    return try outcome.value!.get()
}

func printSync(_ f: SyncFigures) {
    let ms: (Double) -> String = { String(format: "%.2f ms", $0 / 1e6) }
    let rate: (Double) -> String = { format($0) + " objects/s" }
    let mark: (Bool) -> String = { $0 ? "met" : "MISSED" }
    print("\nSync (OpenRealm only; openrealm-server in a child process on loopback):\n")
    print("| sync workload | OpenRealm | aim | |")
    print("|---|---:|---|---|")
    print("| write on A → Results.observe on B, median (\(f.latencySamples) writes) | \(ms(f.latencyMedian)) | < 5 ms | \(mark(f.latencyMedian < 5e6)) |")
    print("| write on A → Results.observe on B, p99 | \(ms(f.latencyP99)) | < 20 ms | \(mark(f.latencyP99 < 20e6)) |")
    print("| bootstrap of \(format(Double(f.bootstrapObjects))) objects on subscribe | \(rate(f.bootstrapPerSecond)) | ≥ 50,000/s | \(mark(f.bootstrapPerSecond >= 50_000)) |")
    print("| sustained upload of changed objects (\(format(Double(f.uploadObjects)))), acknowledged | \(rate(f.uploadChangedPerSecond)) | ≥ 50,000/s | \(mark(f.uploadChangedPerSecond >= 50_000)) |")
    print("| sustained upload of new objects (\(format(Double(f.uploadObjects)))), acknowledged | \(rate(f.uploadNewPerSecond)) | ≥ 50,000/s | \(mark(f.uploadNewPerSecond >= 50_000)) |")
    print("| server, \(f.clients) clients: delivery of a change, p99 (\(f.fanoutDeliveries) deliveries) | \(ms(f.fanoutP99)) (median \(ms(f.fanoutMedian))) | < 50 ms | \(mark(f.fanoutP99 < 50e6)) |")
    print("| server memory per idle client | \(String(format: "%.1f KB", f.idleClientBytes / 1000)) (marginal \(String(format: "%.1f KB", f.marginalClientBytes / 1000))) | < 100 KB | \(mark(f.idleClientBytes < 100_000)) |")
    print(String(format: "\nCPU per uploaded object (the clients' process / the server): new %.1f / %.1f µs, changed %.1f / %.1f µs",
                 f.uploadNewClientCPU / 1e3, f.uploadNewServerCPU / 1e3, f.uploadChangedClientCPU / 1e3, f.uploadChangedServerCPU / 1e3))
}

/// The sync figures in the JSON shape of the local ones (ns per operation or per
/// object, bytes for memory; the other sides null).
func syncJSON(_ f: SyncFigures) -> [[String: Any]] {
    func entry(_ name: String, _ value: Double, _ objects: Int) -> [String: Any] {
        ["name": name, "openrealm_ns": value.isFinite ? value : NSNull(), "grdb_ns": NSNull(), "lmdb_ns": NSNull(), "objects": objects]
    }
    return [
        entry("sync_write_to_observe_median", f.latencyMedian, f.latencySamples),
        entry("sync_write_to_observe_p99", f.latencyP99, f.latencySamples),
        entry("sync_bootstrap_per_object", 1e9 / f.bootstrapPerSecond, f.bootstrapObjects),
        entry("sync_upload_changed_per_object", 1e9 / f.uploadChangedPerSecond, f.uploadObjects),
        entry("sync_upload_new_per_object", 1e9 / f.uploadNewPerSecond, f.uploadObjects),
        entry("server_fanout_delivery_p99", f.fanoutP99, f.clients),
        entry("server_fanout_delivery_median", f.fanoutMedian, f.clients),
        entry("server_idle_client_bytes", f.idleClientBytes, f.clients),
    ]
}

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--sync-server" {
    SyncServerProcess.serve(dataDirectory: CommandLine.arguments[2])
}

do {
    exit(try main())
} catch {
    FileHandle.standardError.write("openrealm-bench: \(error)\n".data(using: .utf8)!)
    exit(2)
}
