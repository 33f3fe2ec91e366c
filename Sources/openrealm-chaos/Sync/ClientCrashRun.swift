import Foundation
import OpenRealmTestSupport

/// `crash --target client`: a synced client child (RealmSwift API) against an
/// `openrealm-server` child is killed with SIGKILL at random points and restarted.
///
/// After each kill the next client must find its local log intact (every commit it
/// reported, at most one more). At the end a last client settles (uploads everything)
/// and reports its state, a fresh verifier client downloads the server's state, and the
/// two must be equal; the server's log of the client must read 1...n exactly (nothing
/// applied twice) and hold every seq whose upload `wait(for: .upload)` confirmed.
struct ClientCrashRun {
    let cycles: Int
    let maxDelayMs: Int
    let seed: UInt64
    let folder: URL
    let server: ServerProcess
    let executable: URL
    /// Self-test: the last client appends seq 1 to its log a second time.
    let injectDuplicate: Bool
    /// Fail when a log holds every seq once but out of order.
    let strictOrder: Bool

    /// Figures of the run.
    struct Figures {
        var kills = 0
        var commits = 0
        var uploadsConfirmed = 0
        var highestUploaded = 0
        var killsBetweenCommitAndReport = 0
        var settledSeq = 0
        /// Restarts that found the client's log list without appends not yet back from
        /// the server (a re-bind download rewrote the list).
        var restartsWithLogLag = 0
        var syncErrors: [String] = []
        /// Whether the client's log on the server holds every seq once but out of order.
        var reordered = false
    }

    func run(_ figures: inout Figures) throws {
        let name = "c1"
        try server.start()
        try server.register(email: SyncChaos.email(of: name), password: SyncChaos.password, appId: SyncChaos.appId)
        try server.register(email: SyncChaos.email(of: "verifier"), password: SyncChaos.password, appId: SyncChaos.appId)
        let root = folder.appendingPathComponent("client-\(name)")
        var random = SplitMix64(seed: seed)
        var lastCommit = 0
        for cycle in 1...cycles {
            do {
                let client = try SyncClientProcess(executable: executable, name: name, baseURL: server.baseURL, root: root,
                                                   seed: random.next(), extra: ["--upload-every", String(Int.random(in: 1...4, using: &random))],
                                                   errorLog: folder.appendingPathComponent("client.log"))
                let ready: Int
                do { ready = try client.waitUntilReady(timeout: 120) } catch { client.child.kill(); throw error }
                guard ready >= lastCommit else {
                    client.child.kill()
                    throw ChaosFailure(.lostCommit, "the client reported seq \(lastCommit) committed, its restarted realm ends at \(ready).")
                }
                guard ready <= lastCommit + 1 else {
                    client.child.kill()
                    throw ChaosFailure(.partialTransaction, "the restarted realm ends at seq \(ready), more than one beyond the last reported \(lastCommit).")
                }
                if ready == lastCommit + 1 { figures.killsBetweenCommitAndReport += 1 }
                if client.logLag > 0 { figures.restartsWithLogLag += 1 }
                usleep(UInt32(Int.random(in: 0...maxDelayMs, using: &random) * 1000))
                guard client.child.kill() else {
                    throw ChaosFailure(.writer, "the client exited by itself before the kill: \(client.child.output.suffix(3)) \(client.child.errorTail)")
                }
                figures.kills += 1
                let committed = client.highest("commit")
                if committed > 0 {
                    figures.commits += committed - ready
                    lastCommit = committed
                } else {
                    lastCommit = ready
                }
                figures.uploadsConfirmed += client.count("uploaded")
                figures.highestUploaded = max(figures.highestUploaded, client.highest("uploaded"))
                figures.syncErrors += client.syncErrors
            } catch let error as ChaosFailure {
                throw ChaosFailure(error.code, "cycle \(cycle): \(error.message)")
            }
        }
        // The survivor: restarts once more, writes nothing, uploads what is left.
        var extra = ["--max-transactions", "0"]
        if injectDuplicate { extra += ["--inject-duplicate", "1"] }
        let last = try SyncClientProcess(executable: executable, name: name, baseURL: server.baseURL, root: root, seed: 0,
                                         extra: extra, errorLog: folder.appendingPathComponent("client.log"))
        defer { last.finish() }
        let ready = try last.waitUntilReady(timeout: 120)
        guard ready >= lastCommit else {
            throw ChaosFailure(.lostCommit, "after the last kill: the client reported seq \(lastCommit) committed, its realm ends at \(ready).")
        }
        figures.settledSeq = try last.settle(timeout: 120)
        let clientState = try last.report(timeout: 300)
        let (serverState, verifierErrors) = try SyncSettlement.serverState(
            executable: executable, baseURL: server.baseURL, folder: folder,
            directory: "verifier-\(UInt32.random(in: 0...UInt32.max))")
        figures.syncErrors += last.syncErrors + verifierErrors
        figures.reordered = try SyncChecks.exactlyOnce(serverState, client: name, acknowledged: figures.highestUploaded,
                                                       settled: figures.settledSeq, strictOrder: strictOrder)
        try SyncChecks.converged([("the restarted client", clientState)], reference: ("the server (a fresh client)", serverState))
    }
}
