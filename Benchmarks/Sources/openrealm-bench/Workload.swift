/// The workloads of the table, in the order they run in each round.
enum Workload: String, CaseIterable {
    case bulkInsert = "bulk insert, one write transaction (ns/object)"
    case open = "open a file of N objects (ns/open)"
    case iterate = "iterate all, read 2 properties (ns/object)"
    case countUnindexed = "count progressMinutes >= 60, unindexed (ns/object)"
    case indexedEquality = "indexed equality assignee == x (ns/query)"
    case primaryKey = "primary-key lookup + 1 property (ns/lookup)"
    case writeDurable = "one-object write transaction, durable (ns/commit)"
    case writeFast = "one-object write transaction, faster mode (ns/commit)"

    /// The one-object commit workloads, which the sides run in turns (`commitSlice`).
    var isCommit: Bool { self == .writeDurable || self == .writeFast }

    /// The short name written to JSON.
    var key: String {
        switch self {
        case .bulkInsert: "bulk_insert"
        case .open: "open"
        case .iterate: "iterate_read_two"
        case .countUnindexed: "count_unindexed"
        case .indexedEquality: "indexed_equality"
        case .primaryKey: "primary_key_lookup"
        case .writeDurable: "write_one_durable"
        case .writeFast: "write_one_fast"
        }
    }

    /// The aim for the workload, for the table.
    var aim: String {
        switch self {
        case .bulkInsert: "≤ 2× LMDB, ≥ 10× faster than GRDB"
        case .open: "< 5 ms"
        case .iterate: "≤ 100 ns, ≥ 5× faster than GRDB"
        case .countUnindexed: "≥ 3× faster than GRDB, ≤ 2× LMDB"
        case .indexedEquality: "≥ 2× faster than GRDB"
        case .primaryKey: "≤ 1 µs, ≥ 4× faster than GRDB"
        case .writeDurable: "no slower than GRDB (synchronous=FULL)"
        case .writeFast: "beside GRDB synchronous=NORMAL"
        }
    }
}

/// The sides of the comparison.
enum Side: String, CaseIterable {
    case openrealm = "OpenRealm", grdb = "GRDB", lmdb = "LMDB"
}

/// What one side measured for one workload in one round: nanoseconds per operation
/// and the values every side must agree on (counts, sums).
struct Measurement {
    var nsPerOp: Double
    var check: [Int]
}

/// The sizes a side's workloads use.
struct Sizes {
    var objects: Int
    var lookups: Int
    var queries: Int
    var commits: Int
    var opens: Int
}

/// One side of the benchmark: a store of `Task` records in a file it owns.
protocol BenchSide: AnyObject {
    var side: Side { get }
    /// Deletes the side's files and opens an empty store.
    func reset() throws
    /// Closes the store (every handle) and deletes its files.
    func tearDown() throws
    /// The bytes of the side's files after the bulk insert.
    func fileBytes() throws -> Int
    /// The workloads but the commit ones (`isCommit`), which run in turns (`commitTurns`).
    func run(_ workload: Workload, _ sizes: Sizes, round: Int) throws -> Measurement
    /// The commit workloads (`writeDurable`, `writeFast`) in slices, so that the sides take
    /// turns on the disk: `beginCommits` opens the store in the workload's durability,
    /// `commitOne` makes the round's k-th one-object commit and returns its ns, and
    /// `endCommits` restores the default durability and returns the check (the count).
    func beginCommits(_ workload: Workload) throws
    func commitOne(_ workload: Workload, round: Int, k: Int) throws -> Double
    func endCommits(_ workload: Workload) throws -> [Int]
}
