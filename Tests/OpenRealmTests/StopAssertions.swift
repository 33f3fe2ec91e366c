import Foundation
import XCTest

/// Where the Realm Swift SDK throws an Objective-C exception (which stops a Swift
/// program), OpenRealm stops with a precondition failure. A test checks that by running
/// itself again in a child process (this test binary, this very test) in which the
/// `assertStops` block runs, and by reading the message the child stopped with.
extension XCTestCase {
    private static let stopChildVariable = "OPENREALM_STOP_CHILD"

    /// Asserts that `body` stops the program with a message containing `fragment`.
    ///
    /// In the parent process `body` is not run: the test runs again in a child process
    /// told which `assertStops` call of the test to run (the n-th), and this asserts
    /// that the child died of a trap whose message names `fragment`. Code of the test
    /// before the call runs in the child too, so it sets up what the body needs; the
    /// calls before the chosen one are skipped there.
    func assertStops(messageContains fragment: String, file: StaticString = #filePath, line: UInt = #line,
                     _ body: () -> Void) {
        switch stopRole() {
        case .skip: return
        case .run: body(); childReturned()
        case .parent(let call): checkChildStops(call, messageContains: fragment, file: file, line: line)
        }
    }

    /// `assertStops` for a body that awaits (an `async` call that must stop the program).
    /// It counts among the test's `assertStops` calls in the same sequence.
    func assertStopsAsync(messageContains fragment: String, isolation: isolated (any Actor)? = #isolation,
                          file: StaticString = #filePath, line: UInt = #line, _ body: () async -> Void) async {
        switch stopRole() {
        case .skip: return
        case .run: await body(); childReturned()
        case .parent(let call): checkChildStops(call, messageContains: fragment, file: file, line: line)
        }
    }

    /// What this process does with the test's next `assertStops` call.
    private enum StopRole {
        /// A child that was told to run another call.
        case skip
        /// The child told to run this call.
        case run
        /// The parent: run the child for this call (`Test/method#n`).
        case parent(String)
    }

    private func stopRole() -> StopRole {
        let ordinal = nextStopOrdinal()
        let call = "\(String(reflecting: type(of: self)))/\(testMethodName)#\(ordinal)"
        if let wanted = ProcessInfo.processInfo.environment[Self.stopChildVariable] {
            return wanted == call ? .run : .skip
        }
        return .parent(call)
    }

    /// In the child: the body did not stop; say so and end without a signal.
    private func childReturned() -> Never {
        FileHandle.standardError.write("assertStops: the block returned\n".data(using: .utf8)!)
        exit(0)
    }

    /// Runs the test binary again for `call` and asserts that it stopped on a trap
    /// with `fragment` in its message.
    private func checkChildStops(_ call: String, messageContains fragment: String, file: StaticString, line: UInt) {
        let testID = String(call[..<call.lastIndex(of: "#")!])
        let child = Process()
        child.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        child.arguments = [testID]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.stopChildVariable] = call
        // The runtime's symbolicated backtrace of the crash takes seconds; the message is enough.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        child.environment = environment
        let errors = Pipe()
        child.standardError = errors
        child.standardOutput = FileHandle.nullDevice
        do { try child.run() } catch {
            XCTFail("cannot run the test binary again: \(error)", file: file, line: line)
            return
        }
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal,
                       "the block did not stop the program (exit status \(child.terminationStatus)): \(output.suffix(2000))",
                       file: file, line: line)
        XCTAssertTrue(output.contains(fragment), "the program stopped without \"\(fragment)\": \(output.suffix(2000))",
                      file: file, line: line)
    }

    /// The test method's name alone (`testInvalidate`), from `name` as XCTest spells it
    /// on Linux (`InvalidateTests.testInvalidate`) or Darwin (`-[InvalidateTests testInvalidate]`).
    private var testMethodName: String {
        let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: "-[]"))
        return String(trimmed.split(whereSeparator: { $0 == "." || $0 == " " }).last ?? Substring(trimmed))
    }

    /// Counts the `assertStops` calls of the running test (1 for the first).
    private func nextStopOrdinal() -> Int {
        let id = ObjectIdentifier(self)
        let ordinal: Int = StopOrdinals.lock.withLock {
            let next = (StopOrdinals.counts[id] ?? 0) + 1
            StopOrdinals.counts[id] = next
            return next
        }
        if ordinal == 1 {
            addTeardownBlock { StopOrdinals.lock.withLock { StopOrdinals.counts[id] = nil } }
        }
        return ordinal
    }
}

/// The `assertStops` calls made so far by each running test case instance.
private enum StopOrdinals {
    static let lock = NSLock()
    nonisolated(unsafe) static var counts: [ObjectIdentifier: Int] = [:]
}
