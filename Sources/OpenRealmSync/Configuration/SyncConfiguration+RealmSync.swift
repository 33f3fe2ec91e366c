import Foundation
import ORCore
import OpenRealm

/// A synced configuration's part in its realm's open, writes, commits and copies
/// (OpenRealm's ``RealmSync``): the value `config.syncConfiguration` sets is the one
/// `Realm.Configuration.sync` carries.
extension SyncConfiguration: RealmSync {
    /// Where local commits are handed to their sessions (see `didCommit`).
    private static let commitQueue = DispatchQueue(label: "openrealm.sync.commits")

    /// The sync step of an asynchronous open: start the file's session and, for
    /// `.always` (or `.once` on a new file), wait for the initial subscriptions and for
    /// everything the server has.
    package func prepareOpen(_ configuration: Realm.Configuration, behavior: Realm.OpenBehavior) async throws {
        let existed = Realm.fileExists(for: configuration) && !configuration.isInMemory
        let session = try SyncSessionRegistry.shared.session(for: configuration)
        let download: Bool
        switch behavior {
        case .never: download = false
        case .always: download = true
        case .once: download = !existed
        }
        guard download else { return }
        if let store = session.subscriptionStore {
            let latest = store.load().latest.version
            if latest > 0 {
                try await SyncSubscriptionSet(store: store, session: session).waitForVersion(latest)
            }
        }
        try await session.wait(for: .download)
    }

    package func writeCopy(of realm: Realm, to configuration: Realm.Configuration) throws {
        try SyncedCopy.write(realm, to: configuration)
    }

    package func checkAdding(_ className: String, to realm: Realm, in txn: OpaquePointer) throws {
        try SubscriptionCoverage.check(realm, txn, className)
    }

    package func willCommit(_ realm: Realm, _ txn: OpaquePointer) {
        CommitStamps.stampCommit(realm._coordinator.path, txn)
    }

    package func didCommit(_ realm: Realm) {
        guard let path = try? realm.configuration.resolvedPath() else { return }
        // Off the committing thread: a commit can happen while the registry's lock
        // is held (a session being made writes its file), and the lock is not reentrant.
        Self.commitQueue.async { SyncSessionRegistry.shared.existing(path: path)?.localCommitted() }
    }
}
