import Foundation
import XCTest

/// Runs the `openrealm-tour` executable (the README's main command) as a user would and
/// checks that every step passes: it starts its own server, so CI keeps the whole tour
/// working end to end.
final class TourTests: XCTestCase {
    /// The directory of the built products (where SwiftPM put the tour next to the tests).
    private var productsDirectory: URL {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("openrealm-tour").path) }
            ?? Bundle.main.bundleURL
    }

    func testTheTourPassesEveryStep() throws {
        let binary = productsDirectory.appendingPathComponent("openrealm-tour")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("openrealm-tour is not built next to the tests (looked in \(productsDirectory.path))")
        }
        let process = Process()
        process.executableURL = binary
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let collected = OutputBuffer()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(180)
        while process.isRunning && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.05))
        }
        if process.isRunning {
            process.terminate()
            XCTFail("the tour did not finish within 180 s:\n\(collected.text)")
            return
        }
        output.fileHandleForReading.readabilityHandler = nil
        collected.append(output.fileHandleForReading.readDataToEndOfFile())
        let text = collected.text
        XCTAssertEqual(process.terminationStatus, 0, "the tour failed:\n\(text)")
        XCTAssertTrue(text.contains("Tour complete"), text)
        XCTAssertFalse(text.contains("FAILED"), text)
        for step in ["subscribe(name:waitForSync:)", "updateQuery(toType:where:)", "remove(named:)", ".error state",
                     "in-memory", "writeCopy(configuration:)"] {
            XCTAssertTrue(text.contains(step), "the tour should show \(step)")
        }
    }
}

/// Output gathered from the tour's pipe on another thread.
private final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.lock(); data.append(more); lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
}
