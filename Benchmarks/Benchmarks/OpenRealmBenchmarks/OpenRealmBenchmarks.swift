// OpenRealm's workloads under ordo-one's package-benchmark: latency percentiles,
// allocations and baselines (`swift package --package-path Benchmarks benchmark`).
// The side-by-side table against GRDB and raw LMDB is `openrealm-bench`.
import Benchmark
import BenchModel
import Foundation
import OpenRealm

/// The number of tasks in the file the read benchmarks use.
let objectCount = 100_000

/// A realm of `objectCount` tasks in a fresh temporary file, made once per process.
let prepared: Realm.Configuration = {
    let path = NSTemporaryDirectory() + "openrealm-benchmarks-\(getpid()).realm"
    let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Task.self])
    _ = try? Realm.deleteFiles(for: configuration)
    let realm = try! Realm(configuration: configuration)
    try! realm.write {
        for i in 0..<objectCount { realm.add(TaskSeed.task(i, id: TaskSeed.objectId(i))) }
    }
    return configuration
}()

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident]
    Benchmark.defaultConfiguration = .init(metrics: metrics, maxDuration: .seconds(3))

    Benchmark("primary-key lookup + 1 property", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let realm = try Realm(configuration: prepared)
        let ids = TaskSeed.randomIndexes(benchmark.scaledIterations.count, below: objectCount).map(TaskSeed.objectId)
        benchmark.startMeasurement()
        for id in ids {
            blackHole(realm.object(ofType: Task.self, forPrimaryKey: id)?.progressMinutes)
        }
    }

    Benchmark("count progressMinutes >= 60 (100k objects)") { benchmark in
        let realm = try Realm(configuration: prepared)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(realm.objects(Task.self).where { $0.progressMinutes >= 60 }.count)
        }
    }

    Benchmark("indexed equality assignee == x") { benchmark in
        let realm = try Realm(configuration: prepared)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            let name = "user \(i % 100)"
            blackHole(realm.objects(Task.self).where { $0.assignee == name }.count)
        }
    }

    Benchmark("iterate 100k objects, read 2 properties") { benchmark in
        let realm = try Realm(configuration: prepared)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var sum = 0
            for task in realm.objects(Task.self) { sum &+= task.progressMinutes &+ task.taskName.utf8.count }
            blackHole(sum)
        }
    }

    Benchmark("bulk insert 10k objects, one transaction") { benchmark in
        let path = NSTemporaryDirectory() + "openrealm-benchmarks-insert-\(getpid()).realm"
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Task.self])
        let ids = (0..<10_000).map(TaskSeed.objectId)
        for _ in benchmark.scaledIterations {
            benchmark.stopMeasurement()
            _ = try Realm.deleteFiles(for: configuration)
            let realm = try Realm(configuration: configuration)
            benchmark.startMeasurement()
            try realm.write {
                for i in 0..<ids.count { realm.add(TaskSeed.task(i, id: ids[i])) }
            }
        }
        _ = try Realm.deleteFiles(for: configuration)
    }
}
