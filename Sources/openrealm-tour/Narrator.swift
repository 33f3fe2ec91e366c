import Foundation

/// Prints the tour as numbered steps and stops it at the first step that does not do
/// what it should.
///
/// A step is a closure that throws ``TourFailure`` (through ``expect(_:_:)``) or any
/// error of the API it exercises; the narrator then names the step and the cause and the
/// tour exits with status 1.
@MainActor
final class Narrator {
    private var number = 0
    private(set) var passed: [String] = []

    /// Runs one step: prints its title, runs `body`, prints a check mark or the failure.
    func step(_ title: String, _ body: () async throws -> Void) async throws {
        number += 1
        Watchdog.currentStep.set("\(number). \(title)")
        show("\n\(number). \(title)")
        let start = Date()
        do {
            try await body()
        } catch {
            show("   ✗ FAILED: \(error)")
            throw TourFailure(step: "\(number). \(title)", cause: "\(error)")
        }
        passed.append(title)
        show(String(format: "   ✓ done in %.2f s", Date().timeIntervalSince(start)))
    }

    /// One line of what happens, indented under the current step.
    func say(_ line: String) {
        show("   \(line)")
    }
}

/// A tour step that did not do what it should.
struct TourFailure: Error, CustomStringConvertible {
    var step: String?
    var cause: String
    var description: String { step.map { "step \($0): \(cause)" } ?? cause }
}

/// Fails the current step with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw TourFailure(step: nil, cause: message()) }
}

/// Polls `condition` every 20 ms until it holds; fails the step after `timeout` seconds.
@MainActor
func waitUntil(_ what: String, timeout: TimeInterval = 15, _ condition: () throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TourFailure(step: nil, cause: "timed out after \(Int(timeout)) s waiting for \(what)") }
        try await _Concurrency.Task.sleep(nanoseconds: 20_000_000)
    }
}

/// A value shared with an observer's queue.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Prints a line and flushes it at once, so that a pipe (CI, a test) sees each step as
/// it happens and nothing is lost if the process ends abruptly.
func show(_ line: String) {
    print(line)
    fflush(nil)
}

/// Ends the tour with status 1 if it runs past `limit` seconds (a wait on the server
/// that never ends), naming the step it was in.
enum Watchdog {
    /// The step under way, as the watchdog reports it.
    static let currentStep = StepBox()

    static func start(limit: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            show("\n✗ The tour stopped: step \(currentStep.value ?? "(before the first step)") did not finish within \(Int(limit)) s")
            exit(1)
        }
    }
}

/// The current step's title, shared with the watchdog's queue.
final class StepBox: @unchecked Sendable {
    private let lock = NSLock()
    private var title: String?
    func set(_ title: String) { lock.lock(); self.title = title; lock.unlock() }
    var value: String? { lock.lock(); defer { lock.unlock() }; return title }
}
