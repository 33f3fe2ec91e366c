import Foundation
import XCTest

/// Short runs of the synced `openrealm-chaos` commands (`crash --target client|server`,
/// `network`, `load`) against the built `openrealm-server`, and self-tests that damage
/// a run so that its checks must fail.
final class SyncChaosTests: XCTestCase {
    func testKilledClientsLoseNoAcknowledgedUpload() throws {
        let text = try runChaos(["crash", "--target", "client", "--cycles", "3", "--max-delay-ms", "400", "--seed", "7"], expectingStatus: 0)
        XCTAssertTrue(text.contains("client kills: 3"), text)
        XCTAssertTrue(text.contains("lost: 0, applied twice: 0, diverged: 0"), text)
        XCTAssertGreaterThan(try figure(#"commits reported: (\d+)"#, in: text), 0, text)
    }

    func testKilledServerLosesNoAcknowledgedUpload() throws {
        let text = try runChaos(["crash", "--target", "server", "--cycles", "2", "--max-delay-ms", "200", "--seed", "7"], expectingStatus: 0)
        XCTAssertTrue(text.contains("server kills: 2, store checks passed (orc_env_check): 2"), text)
        XCTAssertTrue(text.contains("lost: 0, applied twice: 0, diverged: 0"), text)
        XCTAssertGreaterThan(try figure(#"uploads acknowledged: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"notes verified on the server: (\d+)"#, in: text), 0, text)
    }

    /// A log entry appended twice (as a changeset applied twice would leave it) fails the run.
    func testAChangeAppliedTwiceFailsTheRun() throws {
        let text = try runChaos(["crash", "--target", "client", "--cycles", "1", "--seed", "3", "--self-test", "duplicate"], expectingStatus: 1)
        XCTAssertTrue(text.contains("FAILED: duplicate"), text)
    }

    /// A note erased from the server's store behind its back (a lost acknowledged write)
    /// fails the run: the server no longer has what it acknowledged, and the clients
    /// that hold it diverge from it.
    func testANoteErasedFromTheServerStoreFailsTheRun() throws {
        let text = try runChaos(["crash", "--target", "server", "--cycles", "1", "--seed", "3", "--self-test", "erase"], expectingStatus: 1)
        XCTAssertTrue(text.contains("FAILED: lostUpload") || text.contains("FAILED: divergence"), text)
        XCTAssertTrue(text.contains("note-missing@1") || text.contains("holds"), text)
    }

    func testClientsConvergeThroughAFaultyNetwork() throws {
        let text = try runChaos(["network", "--seconds", "4", "--clients", "2", "--seed", "11"], expectingStatus: 0)
        XCTAssertGreaterThan(try figure(#"faults injected: (\d+)"#, in: text), 0, text)
        XCTAssertGreaterThan(try figure(#"commits: (\d+)"#, in: text), 0, text)
        XCTAssertTrue(text.contains("lost: 0, applied twice: 0, diverged: 0"), text)
    }

    func testAChangeAppliedTwiceFailsTheNetworkRun() throws {
        let text = try runChaos(["network", "--seconds", "2", "--clients", "2", "--seed", "5", "--self-test", "duplicate"], expectingStatus: 1)
        XCTAssertTrue(text.contains("FAILED: duplicate"), text)
    }

    func testFiftySimulatedClients() throws {
        let text = try runChaos(["load", "--clients", "50", "--seconds", "3", "--room-size", "5", "--writes-per-second", "20",
                                 "--real-clients", "1"], expectingStatus: 0)
        XCTAssertTrue(text.contains("connected and subscribed: 50 of 50"), text)
        XCTAssertTrue(text.contains("errors: 0"), text)
        XCTAssertTrue(text.contains("0 unanswered"), text)
        let writes = try figure(#"writes: (\d+)"#, in: text)
        XCTAssertGreaterThan(writes, 0, text)
        XCTAssertEqual(try figure(#"deliveries: (\d+) of"#, in: text), writes * 4, text)
        XCTAssertTrue(text.contains("converged: true"), text)
    }

    func testBadArgumentsAreRefused() throws {
        XCTAssertTrue(try runChaos(["crash", "--target", "moon"], expectingStatus: 64).contains("moon"))
        XCTAssertTrue(try runChaos(["load", "--clients", "1"], expectingStatus: 64).contains("--clients must be within"))
        XCTAssertTrue(try runChaos(["network", "--seconds", "0"], expectingStatus: 64).contains("--seconds must be at least 1"))
    }
}
