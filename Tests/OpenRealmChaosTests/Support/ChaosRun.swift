import Foundation
import XCTest

/// Running the built `openrealm-chaos` from a test: the executable found beside the
/// tests, run with a deadline, its output returned and its exit status asserted.
extension XCTestCase {
    /// The directory of the built products (SwiftPM puts the executables next to the tests).
    var productsDirectory: URL {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("openrealm-chaos").path) }
            ?? Bundle.main.bundleURL
    }

    /// Runs the executable with `arguments` and returns its output, asserting its status.
    /// A run still going after `timeout` seconds is killed (its children die with it)
    /// and fails the test.
    func runChaos(_ arguments: [String], expectingStatus status: Int32, timeout: TimeInterval = 90) throws -> String {
        let binary = productsDirectory.appendingPathComponent("openrealm-chaos")
        guard FileManager.default.isExecutableFile(atPath: binary.path),
              FileManager.default.isExecutableFile(atPath: productsDirectory.appendingPathComponent("openrealm-server").path) else {
            XCTFail("openrealm-chaos and openrealm-server are not built next to the tests (looked in \(productsDirectory.path))")
            return ""
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
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
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            _ = readerDone.wait(timeout: .now() + 10)
            XCTFail("openrealm-chaos \(arguments.joined(separator: " ")) did not end within \(Int(timeout)) s: \(collected.text)")
            return collected.text
        }
        _ = readerDone.wait(timeout: .now() + 10)
        let text = collected.text
        XCTAssertEqual(process.terminationStatus, status, text)
        return text
    }

    /// The first integer captured by `pattern` in `text`.
    func figure(_ pattern: String, in text: String) throws -> Int {
        let regex = try NSRegularExpression(pattern: pattern)
        guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text), let value = Int(text[range]) else {
            XCTFail("no '\(pattern)' in: \(text)")
            return -1
        }
        return value
    }
}

/// The output of a run, appended by its reader thread.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
