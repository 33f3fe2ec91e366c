import Foundation
import Logging
import OpenRealmServer

/// An `openrealm-server` in development mode, in this process, on a free loopback port,
/// with its data in a temporary directory removed by ``stop()``.
final class TourServer {
    let dataDirectory: URL
    let port: Int
    private let runTask: _Concurrency.Task<Void, Never>
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the server and waits (up to 30 s) until it listens.
    ///
    /// - Throws: `ServerError` when the data directory cannot be made or the server does
    ///   not start listening.
    init() throws {
        dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("openrealm-tour-server-\(UUID().uuidString.prefix(8))")
        // Development mode: any app id, anonymous and email/password login, the schema
        // declared by the clients, every field queryable.
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, app: nil)
        // A throwaway server: a cheaper password hash keeps the tour quick.
        configuration.passwordHashRounds = 1024
        var logger = Logger(label: "openrealm-tour-server")
        logger.logLevel = .critical
        let server = try SyncServer(configuration: configuration, logger: logger)
        let stopped = self.stopped
        runTask = _Concurrency.Task {
            do { try await server.run() } catch {}
            stopped.signal()
        }
        port = try server.waitUntilRunning(timeout: 30)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops the server (waiting up to 15 s) and removes its data.
    func stop() {
        runTask.cancel()
        _ = stopped.wait(timeout: .now() + 15)
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
