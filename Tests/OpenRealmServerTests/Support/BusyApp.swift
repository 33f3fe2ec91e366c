import Foundation
import XCTest
@testable import OpenRealmServer

extension ServerTestCase {
    /// Holds the app's lock (as a long integration does) on another thread until the
    /// returned closure is called (calling it again does nothing).
    func holdAppLock(_ appId: String = "todo") throws -> () -> Void {
        let app = try server.auth.apps.app(appId)
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            app.withSyncLock {
                held.signal()
                release.wait()
            }
        }
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success)
        let once = NSLock()
        var released = false
        return {
            once.lock()
            defer { once.unlock() }
            guard !released else { return }
            released = true
            release.signal()
        }
    }

    /// Polls `condition` until it holds, within a 10 s deadline.
    func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while try !condition() {
            guard Date() < deadline else { throw TestSocket.Failure(description: "timed out waiting until \(what)") }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
