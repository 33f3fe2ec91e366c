import Foundation

/// A running `crash-writer` child and the lines it has reported so far.
final class WriterProcess {
    private let process = Process()
    private let output = LineCollector()
    private let readerDone = DispatchSemaphore(value: 0)

    /// Starts `executable crash-writer` on `path`.
    init(executable: URL, path: String, durability: DurabilityChoice, seed: UInt64) throws {
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            // It dies with this process (ParentDeath).
            try ParentDeath.start(process, executable: executable,
                                  arguments: ["crash-writer", "--path", path, "--durability", durability.rawValue, "--seed", String(seed)])
        } catch {
            throw ChaosFailure(.writer, "Cannot start the writer '\(executable.path)': \(error)")
        }
        let handle = pipe.fileHandleForReading
        let collector = output
        let done = readerDone
        // Reads until the child's end of the pipe closes (when it dies), so the child
        // never blocks on a full pipe while the parent waits.
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                collector.append(data)
            }
            done.signal()
        }
    }

    /// Waits until the writer printed `ready <txn>` and returns that txn.
    func waitUntilReady(timeout: TimeInterval) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = output.lines.first {
                let parts = line.split(separator: " ")
                guard parts.count == 2, parts[0] == "ready", let txn = Int(parts[1]) else {
                    throw ChaosFailure(.writer, "The writer's first line should be 'ready <txn>', not '\(line)'.")
                }
                return txn
            }
            if !process.isRunning {
                throw ChaosFailure(.writer, "The writer exited with status \(process.terminationStatus) before it was ready.")
            }
            usleep(1_000)
        }
        throw ChaosFailure(.writer, "The writer was not ready within \(Int(timeout)) s.")
    }

    /// Sends SIGKILL, waits for the process to end, and returns every commit it
    /// reported as `[txn: digest]`. Throws if the writer had already exited by itself.
    func kill() throws -> [(txn: Int, digest: String)] {
        let wasRunning = process.isRunning
        if wasRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        readerDone.wait()
        guard wasRunning, process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL else {
            throw ChaosFailure(.writer, "The writer ended by itself (status \(process.terminationStatus)) before the kill.")
        }
        var commits: [(txn: Int, digest: String)] = []
        for line in output.lines.dropFirst() {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "commit", let txn = Int(parts[1]) else {
                throw ChaosFailure(.writer, "Unexpected line from the writer: '\(line)'.")
            }
            commits.append((txn, String(parts[2])))
        }
        return commits
    }
}

/// Complete lines read from a pipe on another thread; a trailing partial line is held
/// back (the child may die in the middle of one, though short pipe writes are atomic).
private final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var complete: [String] = []

    func append(_ data: Data) {
        lock.lock(); defer { lock.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            complete.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
    }

    var lines: [String] {
        lock.lock(); defer { lock.unlock() }
        return complete
    }
}
