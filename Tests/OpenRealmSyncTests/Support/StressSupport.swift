import Foundation
import XCTest
@testable import OpenRealmSync

/// The error `within` throws at its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let description: String
}

/// Runs `body`, failing (not hanging) when it has not finished after `seconds`: a hang
/// detector for awaits, not a timing goal. At the deadline the body is cancelled and
/// left behind, so that even a body that ignores cancellation cannot hang the test.
func within(_ seconds: TimeInterval, _ what: String, file: StaticString = #filePath, line: UInt = #line,
            _ body: @escaping @Sendable () async throws -> Void) async throws {
    let slot = WaitSlot()
    let work = _Concurrency.Task {
        do { try await body(); slot.finish(nil) } catch { slot.finish(error) }
    }
    let timer = _Concurrency.Task {
        try? await _Concurrency.Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        slot.finish(DeadlineExceeded(description: "\(what) did not finish within \(Int(seconds)) seconds"))
    }
    defer { timer.cancel() }
    do {
        try await slot.wait { _ in }
    } catch {
        work.cancel()
        if error is DeadlineExceeded { XCTFail("\(error)", file: file, line: line) }
        throw error
    }
}

/// Busy threads that starve everything else of CPU while a test runs.
final class CPULoad: @unchecked Sendable {
    private let stopped = LockedBox(false)

    init(threads: Int) {
        for _ in 0..<threads {
            let stopped = self.stopped
            Thread.detachNewThread {
                var x: UInt64 = 1
                while !stopped.value {
                    for _ in 0..<100_000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
                }
                if x == 0 { print("") }
            }
        }
    }

    func stop() { stopped.value = true }
}
