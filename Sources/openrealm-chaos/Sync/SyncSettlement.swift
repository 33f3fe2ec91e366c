import Foundation

/// The end of a synced run: the clients settle (upload everything) and report their
/// state, and a fresh verifier client downloads the server's.
enum SyncSettlement {
    /// Settles every client in turn; per client, the last seq it had uploaded.
    static func settle(_ clients: [SyncClientProcess]) throws -> [String: Int] {
        var settled: [String: Int] = [:]
        for client in clients { settled[client.name] = try client.settle(timeout: 120) }
        return settled
    }

    /// Every client's state.
    static func reports(_ clients: [SyncClientProcess]) throws -> [(name: String, report: SyncStateReport)] {
        try clients.map { ($0.name, try $0.report(timeout: 300)) }
    }

    /// The server's state as a new client (`sync-client --verify-only`, files in
    /// `folder/<directory>`) downloads it, and the sync errors that client saw.
    static func serverState(executable: URL, baseURL: String, folder: URL,
                            directory: String = "verifier") throws -> (state: SyncStateReport, syncErrors: [String]) {
        let verifier = try SyncClientProcess(executable: executable, name: "verifier", baseURL: baseURL,
                                             root: folder.appendingPathComponent(directory), seed: 0, extra: ["--verify-only"],
                                             errorLog: folder.appendingPathComponent("verifier.log"))
        defer { verifier.finish() }
        _ = try verifier.waitUntilReady(timeout: 120)
        let state = try verifier.readReport(timeout: 300)
        return (state, verifier.syncErrors)
    }

    /// What ``verify(_:executable:baseURL:folder:strictOrder:)`` found.
    struct Outcome {
        var uploadsAcknowledged = 0
        var commits = 0
        var notesVerified = 0
        var syncErrors: [String] = []
        /// Clients whose log on the server holds every seq once but out of order.
        var reorderedLogs = 0
    }

    /// The checks at the end of a run with a server: every client settles and reports
    /// its state, a fresh verifier downloads the server's; each client's log on the
    /// server must read 1...n exactly with every acknowledged seq
    /// (``SyncChecks/exactlyOnce(_:client:acknowledged:settled:strictOrder:)``), and
    /// every replica must equal the server's.
    static func verify(_ clients: [SyncClientProcess], executable: URL, baseURL: String, folder: URL,
                       strictOrder: Bool) throws -> Outcome {
        let settled = try settle(clients)
        let reports = try reports(clients)
        let serverState = try serverState(executable: executable, baseURL: baseURL, folder: folder).state
        var outcome = Outcome()
        for client in clients {
            outcome.uploadsAcknowledged += client.count("uploaded")
            outcome.commits += client.highest("commit")
            outcome.syncErrors += client.syncErrors
            if try SyncChecks.exactlyOnce(serverState, client: client.name, acknowledged: client.highest("uploaded"),
                                          settled: settled[client.name] ?? 0, strictOrder: strictOrder) {
                outcome.reorderedLogs += 1
            }
        }
        outcome.notesVerified = serverState.notes
        try SyncChecks.converged(reports, reference: ("the server (a fresh client)", serverState))
        return outcome
    }
}
