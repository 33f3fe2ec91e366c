import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Sync sessions log through `Logger.shared`, as the Realm Swift SDK's do, unless the
/// app's sync manager was given a logger of its own.
final class SharedLoggerSyncTests: SyncTestCase {
    @MainActor
    func testSessionLinesReachTheSharedLoggerAtItsLevel() async throws {
        let saved = Logger.shared
        defer { Logger.shared = saved }
        let shared = LockedBox<[String]>([])
        Logger.shared = Logger(level: .detail) { level, message in shared.value.append("\(level) \(message)") }

        let user = try await newUser("logged")
        let realm = try await Realm(configuration: flexConfig(user))
        try await waitUntil("a session line in the shared logger") {
            shared.value.contains { $0.hasPrefix("detail Sync: ") && $0.contains("connecting") }
        }
        XCTAssertFalse(shared.value.contains { $0.hasPrefix("debug ") || $0.hasPrefix("trace ") }, "\(shared.value)")

        // Connected first: a suspend during the first attempt's token fetch would let the
        // resumed session finish that attempt without a new "connecting" line.
        try await waitUntil("the session connected") { realm.syncSession?.connectionState == .connected }

        // A sync manager's own logger takes the lines instead.
        let own = LockedBox<[String]>([])
        app.syncManager.logger = { level, message in own.value.append("\(level) \(message)") }
        defer { app.syncManager.logger = nil }
        let before = shared.value.filter { $0.contains("Sync: ") }.count
        realm.syncSession!.suspend()
        realm.syncSession!.resume()
        try await waitUntil("a session line in the manager's logger") { own.value.contains { $0.contains("connecting") } }
        XCTAssertEqual(shared.value.filter { $0.contains("Sync: ") }.count, before)
    }
}
