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
}
