import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The package's own executables (`openrealm-server`, `openrealm-chaos`) run from a
/// test as a person runs them: found where SwiftPM built them, run to their end with a
/// deadline, their exit status and output returned.
public enum BuiltProduct {
    /// The outcome of one run.
    public struct Run: Sendable {
        /// The exit status (after a kill at the deadline, the signal's).
        public let status: Int32
        /// Standard output and standard error, interleaved as written.
        public let output: String
        /// Whether the process was still running at the deadline and was killed.
        public let timedOut: Bool
    }

    /// The directory of the built products that holds the executable `name`: SwiftPM
    /// puts executables next to the test bundle. The main bundle's directory when no
    /// candidate holds it (the caller's check of the file then fails naming it).
    public static func directory(holding name: String) -> URL {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent(name).path) }
            ?? Bundle.main.bundleURL
    }

    /// Runs `executable` with `arguments` until it exits and collects its output. A
    /// process still running after `timeout` seconds is killed with SIGKILL (children
    /// that watch their parent die with it) and its run marked ``Run/timedOut``.
    ///
    /// `environment` is added to this process's environment for it.
    ///
    /// - Throws: `Process.run()`'s error when the executable cannot be started.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           timeout: TimeInterval) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let collected = OutputCollector()
        let readerDone = DispatchSemaphore(value: 0)
        let handle = output.fileHandleForReading
        Thread.detachNewThread {
            while case let data = handle.availableData, !data.isEmpty { collected.append(data) }
            readerDone.signal()
        }
        let timedOut = exited.wait(timeout: .now() + timeout) == .timedOut
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        _ = readerDone.wait(timeout: .now() + 10)
        return Run(status: process.terminationStatus, output: collected.text, timedOut: timedOut)
    }
}

/// The output of a run, appended by its reader thread.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
