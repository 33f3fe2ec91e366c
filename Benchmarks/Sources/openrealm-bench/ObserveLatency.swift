import BenchModel
import Dispatch
import Foundation
import OpenRealm

/// Commit → `Results.observe` callback: a realm of `objects` tasks, a live query over
/// them observed on a queue, then one-object writes; each sample is the time from the
/// start of the write to the callback that reports it (modifications or insertions).
/// OpenRealm only: the other sides have no live queries of this kind.
enum ObserveLatency {
    struct Figures {
        var median: Double
        var p99: Double
        var samples: Int
    }

    static func measure(objects: Int, samples: Int, directory: String) throws -> Figures {
        let url = URL(fileURLWithPath: directory).appendingPathComponent("observe-\(getpid()).realm")
        var config = Realm.Configuration(fileURL: url, objectTypes: [Task.self])
        config.durability = .skipMetaSync
        defer { try? Realm.deleteFiles(for: config) }
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<objects { realm.add(TaskSeed.task(i, id: TaskSeed.objectId(i))) }
        }
        let results = realm.objects(Task.self).where { $0.progressMinutes >= 60 }
        let queue = DispatchQueue(label: "openrealm-bench.observe")
        let delivered = DispatchSemaphore(value: 0)
        let clock = NSLock()
        nonisolated(unsafe) var started: UInt64 = 0
        nonisolated(unsafe) var latencies: [Double] = []
        let token = results.observe(on: queue) { change in
            guard case .update(_, _, let insertions, let modifications) = change,
                  !insertions.isEmpty || !modifications.isEmpty else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            clock.lock()
            latencies.append(Double(now - started))
            clock.unlock()
            delivered.signal()
        }
        defer { token.invalidate() }
        // The initial delivery first, so that every sample is one update.
        _ = delivered.wait(timeout: .now() + .milliseconds(200))
        let target = try firstMatching(realm)
        for k in 0..<samples {
            _ = k
            clock.lock()
            started = DispatchTime.now().uptimeNanoseconds
            clock.unlock()
            try realm.write { target.progressMinutes = target.progressMinutes == 200 ? 201 : 200 }
            guard delivered.wait(timeout: .now() + .seconds(10)) == .success else {
                throw BenchError("no Results.observe callback within 10 s of commit \(k)")
            }
        }
        clock.lock()
        let sorted = latencies.sorted()
        clock.unlock()
        return Figures(median: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)], samples: sorted.count)
    }

    private static func firstMatching(_ realm: Realm) throws -> Task {
        guard let task = realm.objects(Task.self).where({ $0.progressMinutes >= 60 }).first else {
            throw BenchError("no task matches the observed query")
        }
        return task
    }
}
