import Foundation
import Logging
import OpenRealmServer

/// An `openrealm-server` in development mode (the app ``appId``, email/password login,
/// the schema the clients declare) running in a child process — this executable started
/// with `--sync-server DIR` — on a free loopback port, so that its memory is measured
/// apart from the clients'.
///
/// The child serves until its standard input closes (the parent ends or calls
/// ``stop()``), so a crashed benchmark leaves no server behind.
final class SyncServerProcess {
    /// The app the workloads sync.
    static let appId = "openrealm-bench"

    let port: Int
    let dataDirectory: URL
    private let process: Process
    private let input: Pipe

    /// Starts the child and waits (up to 60 s) for it to report its port.
    ///
    /// - Throws: ``BenchError`` when the child cannot start or reports no port.
    init() throws {
        dataDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("openrealm-bench-server-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--sync-server", dataDirectory.path]
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

    /// Stops the child (closing its input, then SIGTERM if it lingers) and removes its data.
    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The child's side (`--sync-server DIR`): runs the server, prints "port N", serves
    /// until standard input reaches its end, then exits.
    static func serve(dataDirectory: String) -> Never {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: URL(fileURLWithPath: dataDirectory), app: nil)
        // A throwaway server: a cheap password hash keeps the logins quick.
        configuration.passwordHashRounds = 1024
        // The fan-out workload's simulated clients are one user's new client files, more
        // of them at once than the server lets a user make by default (100).
        var app = ServerAppConfiguration.development(appId: SyncServerProcess.appId)
        app.clientFileRateLimit = RateLimit(burst: 10_000, perMinute: 10_000)
        configuration.app = app
        var logger = Logger(label: "openrealm-bench-server")
        logger.logLevel = .critical
        do {
            let server = try SyncServer(configuration: configuration, logger: logger)
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
