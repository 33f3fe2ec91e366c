import CLMDBBench
import Foundation

/// Raw LMDB: the same records as plain keys and values, every loop in C
/// (`CLMDBBench`), default durability unless the faster row says otherwise.
final class LMDBSide: BenchSide {
    let side = Side.lmdb
    let path: String
    private var env: OpaquePointer?
    private let table: IdTable

    init(directory: String, table: IdTable) {
        path = directory + "/bench.lmdb"
        self.table = table
    }

    private func check(_ rc: Int32, _ what: String) throws {
        if rc != 0 { throw BenchError("LMDB \(what) of '\(path)' failed: \(String(cString: lb_error(rc)))") }
    }

    private func open() throws -> OpaquePointer {
        if let env { return env }
        var opened: OpaquePointer?
        try check(lb_open(path, &opened), "open")
        env = opened
        return opened!
    }

    func reset() throws {
        try tearDown()
        _ = try open()
    }

    func tearDown() throws {
        lb_close(env)
        env = nil
        unlink(path)
        unlink(path + "-lock")
    }

    func fileBytes() throws -> Int { fileSize(path) }

    private func count(_ env: OpaquePointer) throws -> Int {
        var n: UInt64 = 0
        try check(lb_task_count(env, &n), "count")
        return Int(n)
    }

    func run(_ workload: Workload, _ sizes: Sizes, round: Int) throws -> Measurement {
        let n = sizes.objects
        switch workload {
        case .bulkInsert:
            let env = try open()
            var rc: Int32 = 0
            let ns = timed { rc = lb_bulk_insert(env, 0, UInt64(n)) }
            try check(rc, "bulk insert")
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [try count(env)])

        case .open:
            lb_close(env)
            env = nil
            var samples: [Double] = []
            var found = 0
            for _ in 0..<sizes.opens {
                var opened: OpaquePointer?
                var rc: Int32 = 0
                var entries: UInt64 = 0
                let ns = timed {
                    rc = lb_open(path, &opened)
                    if rc == 0 { rc = lb_task_count(opened, &entries) }
                }
                lb_close(opened)
                try check(rc, "open")
                found = entries > 0 ? 1 : 0
                samples.append(Double(ns))
            }
            return Measurement(nsPerOp: median(samples), check: [found])

        case .iterate:
            let env = try open()
            var count: UInt64 = 0, progress: Int64 = 0, nameBytes: UInt64 = 0
            var rc: Int32 = 0
            let ns = timed { rc = lb_scan_two(env, &count, &progress, &nameBytes) }
            try check(rc, "scan")
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [Int(count), Int(progress), Int(nameBytes)])

        case .countUnindexed:
            let env = try open()
            var count: UInt64 = 0
            var rc: Int32 = 0
            let ns = timed { rc = lb_count_progress_at_least(env, 60, &count) }
            try check(rc, "scan count")
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [Int(count)])

        case .indexedEquality:
            let env = try open()
            let names = (0..<sizes.queries).map { "user \($0)" }
            var counts: [UInt64] = Array(repeating: 0, count: names.count)
            var rc: Int32 = 0
            let ns = timed {
                for (q, name) in names.enumerated() where rc == 0 {
                    rc = name.withCString { lb_count_assignee(env, $0, strlen($0), &counts[q]) }
                }
            }
            try check(rc, "index range")
            return Measurement(nsPerOp: Double(ns) / Double(sizes.queries), check: counts.map(Int.init))

        case .primaryKey:
            let env = try open()
            let indexes = table.lookupIndexes.map(UInt64.init)
            var found: UInt64 = 0, progress: Int64 = 0
            var rc: Int32 = 0
            let ns = timed { rc = lb_point_reads(env, indexes, indexes.count, &found, &progress) }
            try check(rc, "point reads")
            return Measurement(nsPerOp: Double(ns) / Double(indexes.count), check: [Int(found), Int(progress)])

        case .writeDurable, .writeFast:
            throw BenchError("\(workload.rawValue) runs in turns (commitTurns), not through run")
        }
    }

    /// The faster row sets `MDB_NOMETASYNC` on the environment, and clears it after.
    func beginCommits(_ workload: Workload) throws {
        try check(lb_set_nometasync(try open(), workload == .writeFast ? 1 : 0), "setting MDB_NOMETASYNC")
    }

    func commitOne(_ workload: Workload, round: Int, k: Int) throws -> Double {
        let env = try open()
        var rc: Int32 = 0
        let ns = timed { rc = lb_insert_one(env, UInt64(table.extraIndex(workload, round: round, k: k))) }
        try check(rc, "one-object commit")
        return Double(ns)
    }

    func endCommits(_ workload: Workload) throws -> [Int] {
        let env = try open()
        try check(lb_set_nometasync(env, 0), "clearing MDB_NOMETASYNC")
        return [try count(env)]
    }
}
