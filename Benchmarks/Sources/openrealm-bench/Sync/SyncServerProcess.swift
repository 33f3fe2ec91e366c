import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import OpenRealmPostgres
import OpenRealmServer

/// An `openrealm-server` in development mode (one app, email/password login, the schema
/// the clients declare) running in a child process — this executable started with
/// `--sync-server DIR APP [STORE]` — on a free loopback port, so that its memory and CPU
/// are measured apart from the clients'. Its store is the embedded one in `DIR`, or the
/// PostgreSQL database `STORE` (then several such processes may serve it at once).
///
/// The child serves until its standard input closes (the parent ends or calls
/// ``stop()``), so a crashed benchmark leaves no server behind.
final class SyncServerProcess {
    let port: Int
    let dataDirectory: URL
    private let process: Process
    private let input: Pipe

    /// Starts the child serving `appId` from `store` (a PostgreSQL URL; nil: the embedded
    /// store in a new data directory) and waits (up to 60 s) for it to report its port.
    ///
    /// - Throws: ``BenchError`` when the child cannot start or reports no port.
    init(appId: String, store: String? = nil) throws {
        dataDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("openrealm-bench-server-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--sync-server", dataDirectory.path, appId] + (store.map { [$0] } ?? [])
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The first line is "port N".
        var line = Data()
        let handle = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let reported = text.split(separator: "\n").first.flatMap({ $0.split(separator: " ").last }).flatMap({ Int($0) }),
              text.hasPrefix("port ") else {
            process.terminate()
            throw BenchError("the sync server child did not report a port (it wrote '\(text)')")
        }
        port = reported
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The WebSocket URL of the sync endpoint for `appId`.
    func syncURL(appId: String) -> String { "ws://127.0.0.1:\(port)/api/client/v2.0/app/\(appId)/realm-sync" }

    /// The server's resident memory now (VmRSS of the child), in bytes.
    func residentBytes() -> Int { procStatus(pid: process.processIdentifier, "VmRSS:") }

    /// The CPU time the server has used so far, in nanoseconds.
    func cpuNanoseconds() -> UInt64 { cpuTime(pid: process.processIdentifier) }

    /// The sum of the Prometheus metric `name` (a histogram's `_sum` or `_count`, say) the
    /// server serves at `GET /metrics`, over its label sets.
    ///
    /// - Throws: ``BenchError`` when the metrics cannot be read.
    func metric(_ name: String) async throws -> Double {
        guard let url = URL(string: "\(baseURL)/metrics") else { throw BenchError("no metrics URL for port \(port)") }
        let (data, _) = try await URLSession.shared.data(from: url)
        var total = 0.0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name) {
            let key = line.prefix { $0 != " " && $0 != "{" }
            guard key == name, let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            total += value
        }
        return total
    }

    /// Stops the child (closing its input, then SIGTERM if it lingers) and removes its data.
    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The child's side (`--sync-server DIR APP [STORE]`): runs the server, prints
    /// "port N", serves until standard input reaches its end, then exits.
    static func serve(dataDirectory: String, appId: String, store: String?) -> Never {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: URL(fileURLWithPath: dataDirectory), app: nil)
        // A throwaway server: a cheap password hash keeps the logins quick.
        configuration.passwordHashRounds = 1024
        // The fan-out workload's simulated clients are one user's new client files, more
        // of them at once than the server lets a user make by default (100).
        var app = ServerAppConfiguration.development(appId: appId)
        app.clientFileRateLimit = RateLimit(burst: 10_000, perMinute: 10_000)
        configuration.app = app
        var logger = Logger(label: "openrealm-bench-server")
        logger.logLevel = .critical
        do {
            let server = try store.map { url in
                try SyncServer(configuration: configuration, store: PostgresServerStore(url: url, logger: logger), logger: logger)
            } ?? SyncServer(configuration: configuration, logger: logger)
            _Concurrency.Task { try? await server.run() }
            let port = try server.waitUntilRunning(timeout: 60)
            FileHandle.standardOutput.write("port \(port)\n".data(using: .utf8)!)
        } catch {
            FileHandle.standardError.write("openrealm-bench --sync-server: \(error)\n".data(using: .utf8)!)
            exit(2)
        }
        Thread.detachNewThread {
            while !FileHandle.standardInput.availableData.isEmpty {}
            exit(0)
        }
        while true { sleep(60) }
    }
}
