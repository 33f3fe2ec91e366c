import Foundation
import XCTest

/// Short `openrealm-chaos abuse` runs against the built `openrealm-server`: one that must
/// pass, with every attack meeting the defence it aims at, and one whose memory bound is
/// too low for any server, so that the check must fail and name the bound.
final class AbuseChaosTests: XCTestCase {
    /// A few seconds of every attack, with the server's limits lowered so that each
    /// defence acts within them: a 4 MiB outgoing queue drained within 1 s closes the
    /// non-reading clients, a 1 s body deadline cuts the trickled bodies off.
    private let shortRun = ["abuse", "--seconds", "5", "--ordinary-clients", "2", "--non-readers", "2", "--tricklers", "4",
                            "--max-apps", "20", "--sync-max-outbound-bytes", "\(4 << 20)", "--sync-drain-timeout", "1",
                            "--http-body-timeout", "1"]

    func testAShortAbuseRunPassesAndEveryAttackIsRefused() throws {
        let text = try runChaos(shortRun + ["--max-memory-mb", "1024", "--max-p99-ms", "5000"], expectingStatus: 0)
        XCTAssertTrue(text.contains("result: the server stayed up"), text)
        XCTAssertGreaterThan(try figure(#"ordinary clients: (\d+) round trips"#, in: text), 0, text)
        XCTAssertTrue(text.contains(" 0 failed;"), text)
        XCTAssertGreaterThan(try figure(#"compressed bombs: .*refused: limitsExceeded: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"large compressed queries: .*refused: limitsExceeded: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"non-reading clients: .*closed by the server: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"oversized HTTP heads: .*answered 431: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"trickled bodies: .*cut off by the server: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"app-creation flood: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"session flood \(binds on one connection\): (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"session flood \(many connections\): (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"server descriptors: peak (\d+)"#, in: text), 0, text)
        // No oversized head or trickled body was left open by the server.
        XCTAssertFalse(text.contains("left open"), text)
    }

    /// A memory bound below what any server takes (1 MiB) fails the run, naming it.
    func testAMemoryBoundTooLowFailsTheRun() throws {
        let text = try runChaos(shortRun + ["--max-memory-mb", "1"], expectingStatus: 1)
        XCTAssertTrue(text.contains("FAILED: memory: the server's peak resident memory (VmHWM) was"), text)
        XCTAssertTrue(text.contains("over --max-memory-mb 1"), text)
    }

    func testBadArgumentsAreRefused() throws {
        XCTAssertTrue(try runChaos(["abuse", "--seconds", "0"], expectingStatus: 64).contains("--seconds must be within 1...3600"))
        XCTAssertTrue(try runChaos(["abuse", "--max-memory-mb", "0"], expectingStatus: 64).contains("--max-memory-mb must be at least 1"))
    }
}
