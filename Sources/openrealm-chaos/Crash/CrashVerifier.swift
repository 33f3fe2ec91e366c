import Foundation
import OpenRealm

/// Checks a realm file after its writer was killed.
enum CrashVerifier {
    /// What one check found.
    struct Outcome {
        /// The highest transaction id in the file.
        let lastTxn: Int
        /// Whether the file holds one transaction that committed but was not reported
        /// (the kill came between `commitWrite` and the report line).
        let unreportedCommit: Bool
    }

    /// Runs `orc_env_check` on `path`, then checks with OpenRealm that every reported
    /// commit is there with its digest, the markers run 1...n without a gap, at most one
    /// commit beyond the last reported one exists, and the items are exactly those of
    /// the last marker (so no part of a later transaction is visible).
    ///
    /// - Parameters:
    ///   - startTxn: the last transaction in the file when this cycle's writer started;
    ///     nil to check a file found at the start of a run (any last txn is accepted).
    ///   - reported: the commits this cycle's writer reported, in order.
    ///   - known: every digest reported in earlier cycles of this file, by txn.
    static func check(path: String, durability: DurabilityChoice, startTxn: Int?,
                      reported: [(txn: Int, digest: String)], known: [Int: String]) throws -> Outcome {
        try EngineCheck.run(path: path)
        let realm: Realm
        do {
            realm = try Realm(configuration: CrashRealm.configuration(path: path, durability: durability))
        } catch {
            throw ChaosFailure(.engineCheck, "\(path): OpenRealm cannot open the file: \(error)")
        }
        realm.refresh()
        var markers: [Int: String] = [:]
        for marker in realm.objects(ChaosCommit.self) { markers[marker.txn] = marker.digest }
        let lastTxn = markers.keys.max() ?? 0
        guard markers.count == lastTxn else {
            let missing = (1...max(lastTxn, 1)).first { markers[$0] == nil } ?? 0
            throw ChaosFailure(.lostCommit, "\(path): \(markers.count) markers for txn ids up to \(lastTxn); txn \(missing) is missing.")
        }
        var expectedTxn = startTxn ?? lastTxn
        for commit in reported {
            expectedTxn += 1
            guard commit.txn == expectedTxn else {
                throw ChaosFailure(.writer, "\(path): the writer reported txn \(commit.txn) where \(expectedTxn) was next.")
            }
        }
        guard lastTxn >= expectedTxn else {
            throw ChaosFailure(.lostCommit, "\(path): the writer reported txn \(expectedTxn) as committed but the file ends at txn \(lastTxn).")
        }
        guard lastTxn <= expectedTxn + 1 else {
            throw ChaosFailure(.partialTransaction, "\(path): the file ends at txn \(lastTxn), more than one beyond the last reported txn \(expectedTxn).")
        }
        for commit in reported where markers[commit.txn] != commit.digest {
            throw ChaosFailure(.lostCommit, "\(path): txn \(commit.txn) was reported with digest \(commit.digest) but the file has \(markers[commit.txn] ?? "nil").")
        }
        for (txn, digest) in known where markers[txn] != digest {
            throw ChaosFailure(.lostCommit, "\(path): txn \(txn) of an earlier cycle had digest \(digest) but now has \(markers[txn] ?? "nil").")
        }
        let state = StateDigest.of(realm)
        if lastTxn == 0 {
            guard realm.objects(ChaosItem.self).isEmpty else {
                throw ChaosFailure(.partialTransaction, "\(path): items exist but no transaction marker does.")
            }
        } else if markers[lastTxn] != state {
            throw ChaosFailure(.partialTransaction, "\(path): the items' digest \(state) is not that of the last committed txn \(lastTxn) (\(markers[lastTxn]!)).")
        }
        return Outcome(lastTxn: lastTxn, unreportedCommit: lastTxn == expectedTxn + 1)
    }
}
