import Foundation
import Synchronization

/// A child process whose standard output is read line by line on a thread of its own
/// and whose standard input takes command lines.
///
/// It dies with this process (``ParentDeath``). Lines are kept in order; waits poll them
/// with a deadline. Standard error goes to
/// `errorLog` when given (so a failing child's messages can be shown), else it is
/// inherited.
final class ChildProcess: @unchecked Sendable {
    /// What the child is, for messages ("the server", "client c1").
    let name: String
    private let process = Process()
    private let input = Pipe()
    private let lines = Mutex<[String]>([])
    private let partial = Mutex(Data())
    private let readerDone = DispatchSemaphore(value: 0)
    private let errorLog: URL?

    /// Starts `executable` with `arguments`.
    ///
    /// - Throws: ``ChaosFailure`` (`code`) when the process cannot start.
    init(name: String, executable: URL, arguments: [String], errorLog: URL? = nil, code: ChaosFailure.Code) throws {
        self.name = name
        self.errorLog = errorLog
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        if let errorLog {
            FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorLog)
        }
        do { try ParentDeath.start(process, executable: executable, arguments: arguments) } catch {
            throw ChaosFailure(code, "Cannot start \(name) ('\(executable.path)'): \(error)")
        }
        let handle = output.fileHandleForReading
        let done = readerDone
        // Reads until the child's end of the pipe closes, so the child never blocks on a
        // full pipe.
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                append(data)
            }
            done.signal()
        }
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }
    /// Whether the process is still running.
    var isRunning: Bool { process.isRunning }

    /// Every complete line the child has written so far.
    var output: [String] { lines.withLock { $0 } }

    /// The last lines of the child's standard error, for failure messages.
    var errorTail: String {
        guard let errorLog, let text = try? String(contentsOf: errorLog, encoding: .utf8) else { return "" }
        return text.split(separator: "\n").suffix(8).joined(separator: " | ")
    }

    /// Sends one command line to the child's standard input.
    func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until a line at index `from` or later satisfies `match`; returns its index
    /// and value.
    ///
    /// - Throws: ``ChaosFailure`` (`code`) when the child exits first, or on the timeout.
    func waitForLine<T>(_ what: String, from: Int = 0, timeout: TimeInterval, code: ChaosFailure.Code,
                        _ match: (String) -> T?) throws -> (index: Int, value: T) {
        let deadline = Date().addingTimeInterval(timeout)
        var checked = from
        while true {
            let snapshot = output
            while checked < snapshot.count {
                if let value = match(snapshot[checked]) { return (checked, value) }
                checked += 1
            }
            if !process.isRunning {
                // Lines written just before the exit may still be in the pipe.
                readerDone.wait()
                readerDone.signal()
                let final = output
                while checked < final.count {
                    if let value = match(final[checked]) { return (checked, value) }
                    checked += 1
                }
                throw ChaosFailure(code, "\(name) exited (status \(process.terminationStatus)) while \(what); "
                                   + "its last lines: \(final.suffix(3)); stderr: \(errorTail)")
            }
            guard Date() < deadline else {
                let errors = snapshot.filter { $0.hasPrefix("syncerror") }
                throw ChaosFailure(code, "\(name) did not report \(what) within \(Int(timeout)) s; its last lines: \(snapshot.suffix(3))"
                                   + (errors.isEmpty ? "" : "; \(errors.count) sync errors, the first: \(errors[0]), the last: \(errors.last!)"))
            }
            usleep(2_000)
        }
    }

    /// Sends SIGKILL (if still running) and waits for the process and its output to end.
    /// Returns whether it was still running (false: it had exited by itself).
    @discardableResult
    func kill() -> Bool {
        let wasRunning = process.isRunning
        if wasRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        readerDone.wait()
        readerDone.signal()
        return wasRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    /// Closes the child's input and waits up to `timeout` seconds for it to exit by
    /// itself, then kills it. Returns its exit status (nil when it had to be killed).
    func finish(timeout: TimeInterval) -> Int32? {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill()
            return nil
        }
        readerDone.wait()
        readerDone.signal()
        return process.terminationStatus
    }

    private func append(_ data: Data) {
        var complete: [String] = []
        partial.withLock { buffer in
            buffer.append(data)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                complete.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
        }
        if !complete.isEmpty { lines.withLock { $0 += complete } }
    }
}
