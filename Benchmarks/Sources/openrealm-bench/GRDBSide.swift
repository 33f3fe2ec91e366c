import BenchModel
import Foundation
import GRDB

/// A task as a GRDB user declares it: a Codable record.
struct TaskRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "task"
    var id: Data
    var taskName: String
    var assignee: String?
    var completed: Bool
    var progressMinutes: Int
    var dueDate: Date

    init(_ i: Int, id: Data) {
        self.id = id
        taskName = TaskSeed.taskName(i)
        assignee = TaskSeed.assignee(i)
        completed = TaskSeed.completed(i)
        progressMinutes = TaskSeed.progressMinutes(i)
        dueDate = TaskSeed.dueDate(i)
    }
}

/// GRDB 7 over SQLite in WAL mode (`DatabasePool`), the same schema and index as the
/// realm (a BLOB primary key, an index on `assignee`), `synchronous = FULL` so that
/// a commit is as durable as LMDB's; the faster row switches to GRDB's default
/// `synchronous = NORMAL`.
final class GRDBSide: BenchSide {
    let side = Side.grdb
    let path: String
    private var pool: DatabasePool?
    private let lookupIds: [Data]
    private let table: IdTable

    init(directory: String, table: IdTable) {
        path = directory + "/bench.sqlite"
        self.table = table
        lookupIds = table.lookupIndexes.map { Data(TaskSeed.idBytes($0)) }
    }

    private static func configuration() -> Configuration { Configuration() }

    private func open() throws -> DatabasePool {
        if let pool { return pool }
        let opened = try DatabasePool(path: path, configuration: Self.configuration())
        // A DatabasePool sets synchronous = NORMAL on its writer (after prepareDatabase
        // runs), so FULL is set here, on the writer connection, where commits happen.
        try opened.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        pool = opened
        return opened
    }

    func reset() throws {
        try tearDown()
        let pool = try open()
        try pool.write { db in
            try db.create(table: "task") { t in
                t.primaryKey("id", .blob)
                t.column("taskName", .text).notNull()
                t.column("assignee", .text).indexed()
                t.column("completed", .boolean).notNull()
                t.column("progressMinutes", .integer).notNull()
                t.column("dueDate", .datetime).notNull()
            }
        }
        // The durability the comparison relies on: FULL (2) on the writer connection.
        let synchronous = try pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        guard synchronous == 2 else { throw BenchError("GRDB's writer runs with synchronous=\(synchronous ?? -1), not FULL (2)") }
    }

    func tearDown() throws {
        try pool?.close()
        pool = nil
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    func fileBytes() throws -> Int {
        // The database after a checkpoint that empties the log: its steady size.
        try open().writeWithoutTransaction { db in
            _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return fileSize(path) + fileSize(path + "-wal")
    }

    func run(_ workload: Workload, _ sizes: Sizes, round: Int) throws -> Measurement {
        let n = sizes.objects
        switch workload {
        case .bulkInsert:
            let pool = try open()
            // Ids as Data, made outside the timed loop as the other sides' are.
            let idData = (0..<n).map { Data(TaskSeed.idBytes($0)) }
            let ns = try timed {
                try pool.write { db in
                    for i in 0..<n { try TaskRecord(i, id: idData[i]).insert(db) }
                }
            }
            let count = try pool.read { try TaskRecord.fetchCount($0) }
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [count])

        case .open:
            try pool?.close()
            pool = nil
            var samples: [Double] = []
            var count = 0
            for _ in 0..<sizes.opens {
                var opened: DatabasePool?
                let ns = try timed {
                    let p = try DatabasePool(path: path, configuration: Self.configuration())
                    count = try p.read { try $0.tableExists("task") } ? 1 : 0
                    opened = p
                }
                try opened?.close()
                samples.append(Double(ns))
            }
            return Measurement(nsPerOp: median(samples), check: [count])

        case .iterate:
            let pool = try open()
            var count = 0, progress = 0, nameBytes = 0
            let ns = try timed {
                let all = try pool.read { try TaskRecord.fetchAll($0) }
                for task in all {
                    progress &+= task.progressMinutes
                    nameBytes &+= task.taskName.utf8.count
                    count += 1
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [count, progress, nameBytes])

        case .countUnindexed:
            let pool = try open()
            var count = 0
            let ns = try timed {
                count = try pool.read { try TaskRecord.filter(Column("progressMinutes") >= 60).fetchCount($0) }
            }
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [count])

        case .indexedEquality:
            let pool = try open()
            var counts: [Int] = []
            let names = (0..<sizes.queries).map { "user \($0)" }
            let ns = try timed {
                try pool.read { db in
                    for name in names {
                        counts.append(try TaskRecord.filter(Column("assignee") == name).fetchCount(db))
                    }
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(sizes.queries), check: counts)

        case .primaryKey:
            let pool = try open()
            var found = 0, progress = 0
            let keys = lookupIds
            let ns = try timed {
                try pool.read { db in
                    for key in keys {
                        if let task = try TaskRecord.fetchOne(db, key: key) {
                            progress &+= task.progressMinutes
                            found += 1
                        }
                    }
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(keys.count), check: [found, progress])

        case .writeDurable, .writeFast:
            throw BenchError("\(workload.rawValue) runs in turns (commitTurns), not through run")
        }
    }

    /// The faster row switches the writer connection to `synchronous = NORMAL` (GRDB's
    /// default in WAL mode) and back.
    func beginCommits(_ workload: Workload) throws {
        let pool = try open()
        if workload == .writeFast { try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") } }
    }

    func commitOne(_ workload: Workload, round: Int, k: Int) throws -> Double {
        let pool = try open()
        let i = table.extraIndex(workload, round: round, k: k)
        let record = TaskRecord(i, id: Data(TaskSeed.idBytes(i)))
        return Double(try timed { try pool.write { try record.insert($0) } })
    }

    func endCommits(_ workload: Workload) throws -> [Int] {
        let pool = try open()
        if workload == .writeFast { try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") } }
        return [try pool.read { try TaskRecord.fetchCount($0) }]
    }
}
