import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The bind timeout (1 s here) against an app busy for longer: a bind received in time
/// is not taken for an idle connection. (Pings are far apart here: while the bind waits,
/// the connection's frames, pongs included, are not read, which the ping timeout would
/// take for a half-open connection; see docs/RELIABILITY.md, "Found so far".)
final class BusyAppBindTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncBindTimeout = 1
        configuration.syncPingInterval = 60
    }

    /// A bind that arrives in time but waits for a busy app (its lock held, as by a long
    /// integration) past the bind timeout is not taken for an idle connection.
    func testABindWaitingForABusyAppIsNotTimedOut() throws {
        let store = try server.auth.apps.app("todo").store
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            store.withLock {
                held.signal()
                release.wait()
            }
        }
        defer { release.signal() }
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success)
        let client = try TestSyncClient(port: port, appId: "todo")
        try client.send(.bind(WireBind(session: 1, appId: "todo", accessToken: try anonymousToken())))
        // Nothing (no `connectionClosed`, no close) comes while the app is busy for more
        // than twice the bind timeout: reading throws at its deadline.
        XCTAssertThrowsError(try client.next(timeout: 2.5), "the server answered while its app was busy") { _ in }
        XCTAssertFalse(client.isClosed, "closed with code \(String(describing: client.closeCode))")
        release.signal()
        _ = try client.waitFor("ident", timeout: 10) { message -> WireIdent? in
            if case .error(let e) = message { XCTFail("the bind was refused: \(e.message)") }
            if case .ident(let i) = message { return i } else { return nil }
        }
    }

}
