import Foundation
import XCTest
@testable import OpenRealmServer

/// Blocking work runs on threads of its own and hands back its result or error.
final class BlockingWorkTests: XCTestCase {
    struct Boom: Error, Equatable {}

    func testResultsAndErrorsComeBackAndWorkRunsConcurrently() async throws {
        let value = try await BlockingWork.run { 6 * 7 }
        XCTAssertEqual(value, 42)
        do {
            _ = try await BlockingWork.run { () throws -> Int in throw Boom() }
            XCTFail("the error was lost")
        } catch let error as Boom {
            XCTAssertEqual(error, Boom())
        }
        // Two jobs that each wait for the other can only finish if they run at once
        // (the cooperative pool of a 1-core machine would deadlock).
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        async let a: Bool = BlockingWork.run { first.signal(); return second.wait(timeout: .now() + 10) == .success }
        async let b: Bool = BlockingWork.run { second.signal(); return first.wait(timeout: .now() + 10) == .success }
        let (ra, rb) = try await (a, b)
        XCTAssertTrue(ra && rb)
    }
}
