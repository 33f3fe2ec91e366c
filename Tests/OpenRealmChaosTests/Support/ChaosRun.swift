import Foundation
import XCTest
import OpenRealmTestSupport

/// Running the built `openrealm-chaos` from a test: the executable found beside the
/// tests, run with a deadline, its output returned and its exit status asserted.
extension XCTestCase {
    /// The directory of the built products (SwiftPM puts the executables next to the tests).
    var productsDirectory: URL { BuiltProduct.directory(holding: "openrealm-chaos") }

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
        let run = try BuiltProduct.run(binary, arguments, timeout: timeout)
        if run.timedOut {
            XCTFail("openrealm-chaos \(arguments.joined(separator: " ")) did not end within \(Int(timeout)) s: \(run.output)")
            return run.output
        }
        XCTAssertEqual(run.status, status, run.output)
        return run.output
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
