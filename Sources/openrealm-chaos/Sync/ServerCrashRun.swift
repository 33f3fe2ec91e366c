import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmTestSupport

/// `crash --target server`: the `openrealm-server` child is killed with SIGKILL at random
/// points while synced clients (RealmSwift, child processes) keep writing and uploading,
/// then started again on the same port and data.
///
/// After each kill its store must pass `orc_env_check`; after each restart the clients
/// must upload again (an upload acknowledged after the restart). At the end every
/// client settles and reports its state, a fresh verifier client downloads the
/// server's, and all must be equal; each client's log on the server must read 1...n
/// exactly and hold every seq the server acknowledged to it.
struct ServerCrashRun {
    let cycles: Int
    let maxDelayMs: Int
    let seed: UInt64
    let clientCount: Int
    let intervalMs: Int
    let folder: URL
    let server: ServerProcess
    let executable: URL
    /// Self-test: before the last restart, erase an acknowledged note from the store
    /// behind the server's back.
    let tamperStore: Bool
    /// Fail when a log holds every seq once but out of order.
    let strictOrder: Bool

    /// Figures of the run.
    struct Figures {
        var kills = 0
        var uploadsAcknowledged = 0
        var commits = 0
        var storeChecks = 0
        var notesVerified = 0
        var restartSeconds: [Double] = []
        var syncErrors: [String] = []
        /// Clients whose log on the server holds every seq once but out of order.
        var reorderedLogs = 0
    }

    func run(_ figures: inout Figures) throws {
        try server.start()
        let names = (1...clientCount).map { "c\($0)" }
        for name in names + ["verifier"] {
            try server.register(email: SyncChaos.email(of: name), password: SyncChaos.password, appId: SyncChaos.appId)
        }
        var random = SplitMix64(seed: seed)
        var clients: [SyncClientProcess] = []
        defer { for client in clients { client.finish() } }
        for name in names {
            let peers = names.filter { $0 != name }.joined(separator: ",")
            clients.append(try SyncClientProcess(
                executable: executable, name: name, baseURL: server.baseURL, root: folder.appendingPathComponent("client-\(name)"),
                seed: random.next(),
                extra: ["--background-uploads", "--upload-every", "2", "--interval-ms", String(intervalMs), "--peers", peers],
                errorLog: folder.appendingPathComponent("client-\(name).log")))
        }
        for client in clients { _ = try client.waitUntilReady(timeout: 120) }
        for cycle in 1...cycles {
            do {
                // Kill only while uploads flow: wait for an acknowledgement after the
                // (re)start, then a random delay.
                let before = clients.map { $0.count("uploaded") }
                let deadline = Date().addingTimeInterval(120)
                var nudge = Date().addingTimeInterval(0.5)
                while zip(clients, before).allSatisfy({ $0.count("uploaded") == $1 }) {
                    // A client whose reconnect failed while the server was down waits out
                    // its backoff; nudging it keeps the cycles short.
                    if Date() > nudge {
                        for client in clients { client.child.send("reconnect") }
                        nudge = Date().addingTimeInterval(0.5)
                    }
                    for client in clients where !client.child.isRunning {
                        throw ChaosFailure(.writer, "\(client.name) exited: \(client.child.output.suffix(3)) \(client.child.errorTail)")
                    }
                    guard Date() < deadline else {
                        throw ChaosFailure(.lostUpload, "no client got an upload acknowledged within 120 s of the server's start.")
                    }
                    usleep(2_000)
                }
                usleep(UInt32(Int.random(in: 0...maxDelayMs, using: &random) * 1000))
                try server.kill()
                figures.kills += 1
                try server.checkStore(appId: SyncChaos.appId)
                figures.storeChecks += 1
                if tamperStore && cycle == cycles { try eraseAcknowledgedNote() }
                let started = Date()
                try server.start()
                figures.restartSeconds.append(Date().timeIntervalSince(started))
                for client in clients { client.child.send("reconnect") }
            } catch let error as ChaosFailure {
                throw ChaosFailure(error.code, "cycle \(cycle): \(error.message)")
            }
        }
        let outcome = try SyncSettlement.verify(clients, executable: executable, baseURL: server.baseURL, folder: folder,
                                                strictOrder: strictOrder)
        figures.uploadsAcknowledged = outcome.uploadsAcknowledged
        figures.commits = outcome.commits
        figures.syncErrors = outcome.syncErrors
        figures.reorderedLogs = outcome.reorderedLogs
        figures.notesVerified = outcome.notesVerified
    }

    /// Erases note `c1-1` from the stopped server's store with ORCore, as a lost write
    /// would leave it (the self-test that shows the checks fail).
    private func eraseAcknowledgedNote() throws {
        let path = server.storePath(appId: SyncChaos.appId)
        do {
            let store = try ORCoreEnvironment(path: path, flags: UInt32(ORC_ENV_NO_CREATE))
            try store.write { txn in
                var info = orc_class_info()
                var key: UInt64 = 0
                try ORCoreError.check(orc_schema_class_find(txn.handle, "ChaosNote", &info), "find class 'ChaosNote'")
                let (text, size) = txn.scratch.copy("c1-1")
                var pk = orc_value()
                pk.type = ORC_TYPE_STRING
                pk.string.data = text
                pk.string.size = size
                try ORCoreError.check(orc_obj_find(txn.handle, info.table, &pk, &key), "find ChaosNote c1-1")
                try ORCoreError.check(orc_obj_erase(txn.handle, info.table, key), "erase ChaosNote c1-1")
            }
        } catch {
            throw ChaosFailure(.usage, "tamper: cannot erase ChaosNote c1-1 from \(path): \(error)")
        }
    }
}
