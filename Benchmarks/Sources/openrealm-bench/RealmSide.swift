import BenchModel
import Foundation
import OpenRealm

/// OpenRealm as its users write it: `@Persisted` models, `write { add }`, `Results`,
/// typed queries, `object(ofType:forPrimaryKey:)`.
final class RealmSide: BenchSide {
    let side = Side.openrealm
    let path: String
    let configuration: Realm.Configuration
    private var realm: Realm?
    private var commitRealm: Realm?
    private let ids: IdTable

    init(directory: String, ids: IdTable) {
        path = directory + "/bench.realm"
        configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Task.self])
        self.ids = ids
    }

    func reset() throws {
        try tearDown()
        realm = try Realm(configuration: configuration)
    }

    func tearDown() throws {
        realm = nil
        try Realm.deleteFiles(for: configuration)
    }

    func fileBytes() throws -> Int { fileSize(path) }

    private func open() throws -> Realm {
        if let realm { return realm }
        let opened = try Realm(configuration: configuration)
        realm = opened
        return opened
    }

    func run(_ workload: Workload, _ sizes: Sizes, round: Int) throws -> Measurement {
        let n = sizes.objects
        switch workload {
        case .bulkInsert:
            let realm = try open()
            let ns = try timed {
                try realm.write {
                    for i in 0..<n { realm.add(TaskSeed.task(i, id: ids.objectId(i))) }
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [realm.objects(Task.self).count])

        case .open:
            // Every instance must be gone for the file to be opened anew.
            realm = nil
            var samples: [Double] = []
            var count = 0
            for _ in 0..<sizes.opens {
                let ns = try timed {
                    let opened = try Realm(configuration: configuration)
                    count = opened.isEmpty ? 0 : 1
                }
                samples.append(Double(ns))
            }
            return Measurement(nsPerOp: median(samples), check: [count])

        case .iterate:
            let realm = try open()
            var count = 0, progress = 0, nameBytes = 0
            let ns = timed {
                for task in realm.objects(Task.self) {
                    progress &+= task.progressMinutes
                    nameBytes &+= task.taskName.utf8.count
                    count += 1
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [count, progress, nameBytes])

        case .countUnindexed:
            let realm = try open()
            var count = 0
            let ns = timed {
                count = realm.objects(Task.self).where { $0.progressMinutes >= 60 }.count
            }
            return Measurement(nsPerOp: Double(ns) / Double(n), check: [count])

        case .indexedEquality:
            let realm = try open()
            var counts: [Int] = []
            let names = (0..<sizes.queries).map { "user \($0)" }
            let ns = timed {
                for name in names {
                    counts.append(realm.objects(Task.self).where { $0.assignee == name }.count)
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(sizes.queries), check: counts)

        case .primaryKey:
            let realm = try open()
            let keys = ids.lookupIds
            var found = 0, progress = 0
            let ns = timed {
                for id in keys {
                    if let task = realm.object(ofType: Task.self, forPrimaryKey: id) {
                        progress &+= task.progressMinutes
                        found += 1
                    }
                }
            }
            return Measurement(nsPerOp: Double(ns) / Double(keys.count), check: [found, progress])

        case .writeDurable, .writeFast:
            throw BenchError("\(workload.rawValue) runs in turns (commitTurns), not through run")
        }
    }

    /// The faster row reopens the file with `durability = .skipMetaSync` (ORCore's
    /// ORC_ENV_NO_META_SYNC, LMDB's MDB_NOMETASYNC): the first open in the process
    /// decides the mode, so the realm is closed before and after.
    func beginCommits(_ workload: Workload) throws {
        guard workload == .writeFast else {
            commitRealm = try open()
            return
        }
        realm = nil
        var fast = configuration
        fast.durability = .skipMetaSync
        commitRealm = try Realm(configuration: fast)
    }

    func commitOne(_ workload: Workload, round: Int, k: Int) throws -> Double {
        guard let realm = commitRealm else { throw BenchError("commitOne before beginCommits") }
        let i = ids.extraIndex(workload, round: round, k: k)
        let task = TaskSeed.task(i, id: ids.objectId(i))
        return Double(try timed { try realm.write { realm.add(task) } })
    }

    func endCommits(_ workload: Workload) throws -> [Int] {
        let count = commitRealm?.objects(Task.self).count ?? -1
        commitRealm = nil
        if workload == .writeFast { realm = nil }
        return [count]
    }
}

/// The ObjectIds of the tasks, made once outside the timed loops (OpenRealm builds
/// ObjectIds from text), and the random keys of the lookups.
final class IdTable {
    let objects: Int
    let commits: Int
    private let ids: [ObjectId]
    let lookupIndexes: [Int]
    let lookupIds: [ObjectId]

    init(objects: Int, rounds: Int, commits: Int, lookups: Int) {
        self.objects = objects
        self.commits = commits
        let total = objects + rounds * 2 * commits
        let all = (0..<total).map(TaskSeed.objectId)
        let indexes = TaskSeed.randomIndexes(lookups, below: objects)
        ids = all
        lookupIndexes = indexes
        lookupIds = indexes.map { all[$0] }
    }

    func objectId(_ i: Int) -> ObjectId { ids[i] }

    /// The index of the `k`th task a one-object write workload adds in `round`.
    func extraIndex(_ workload: Workload, round: Int, k: Int) -> Int {
        objects + round * 2 * commits + (workload == .writeFast ? commits : 0) + k
    }
}
