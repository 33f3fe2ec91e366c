import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Helpers for tests where several real clients edit the same objects.
extension SyncTestCase {
    /// Opens a realm of `types` for a new user, subscribed to every object of the
    /// top-level classes among them, with everything the server has downloaded.
    nonisolated(nonsending) func openClient(_ name: String, _ types: [ObjectBase.Type],
                                             subscribe: @escaping @Sendable (SyncSubscriptionSet) -> Void) async throws -> (User, Realm) {
        let user = try await newUser(name)
        var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in subscribe(subs) })
        config.objectTypes = types
        let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
        return (user, realm)
    }

    /// Waits until `realm`'s session is connected, then suspends it and waits until it
    /// is disconnected; returns the session.
    @discardableResult
    nonisolated(nonsending) func goOffline(_ realm: Realm) async throws -> SyncSession {
        let session = try XCTUnwrap(realm.syncSession)
        try await waitUntil("the session to connect") { session.connectionState == .connected }
        return try await suspendSession(of: realm)
    }

    /// Holds back (or releases) the uploads of `realm`'s file.
    func holdUploads(_ realm: Realm, _ held: Bool) {
        let path = realm._coordinator.path
        SyncSession.uploadsHeld.withLock { if held { $0.insert(path) } else { $0.remove(path) } }
    }
}
