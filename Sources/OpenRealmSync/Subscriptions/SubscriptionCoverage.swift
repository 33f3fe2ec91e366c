import Foundation
import ORCore
import OpenRealm
import OpenRealmSyncCore
import Synchronization

/// Refuses local writes to classes no subscription covers (API.md §8): in a flexible
/// sync realm, adding or creating an object of a class that the latest subscription set
/// does not name fails the write transaction — `write` throws and commits nothing —
/// instead of letting the server revert it later with a compensating write.
///
/// Called through OpenRealm's `RealmSync.checkAdding` (a synced configuration's), which runs in
/// `Realm._add`, the one path every new object takes (`add`, `create`, objects reached
/// through links). Changes to objects already in the realm are not checked: a
/// subscription brought them there. Removing every subscription is allowed; only the
/// writes that follow are refused.
enum SubscriptionCoverage {
    /// The classes the latest set covers, per file and committed version, so that a loop
    /// of `add`s reads and decodes the set once per transaction.
    private static let cache = Mutex<[String: (version: UInt64, classes: Set<String>)]>([:])

    /// Throws unless the latest subscription set of `realm` covers `className`.
    /// Partition-based and local realms pass.
    ///
    /// - Throws: `Realm.Error` `.fail` naming the class and saying how to subscribe.
    static func check(_ realm: Realm, _ txn: OpaquePointer, _ className: String) throws {
        guard let sync = realm.configuration.syncConfiguration, sync.enableFlexibleSync else { return }
        let path = realm._coordinator.path
        let version = orc_txn_version(txn)
        let cached = cache.withLock { $0[path] }
        let classes: Set<String>
        if let cached, cached.version == version {
            classes = cached.classes
        } else {
            let stored = (try? ORCoreTransaction(borrowing: txn).metaJSON(SubscriptionStore.metadataKey, as: SubscriptionStore.Stored.self))
                ?? SubscriptionStore.Stored()
            classes = Set(stored.latest.entries.map(\.className))
            cache.withLock { $0[path] = (version, classes) }
        }
        guard classes.contains(className) else {
            throw RealmError(.noSubscriptionForWrite, "Cannot write to class '\(className)' in the flexible sync realm '\(path)': no subscription covers it. Add one first, e.g. `try await realm.subscriptions.update { realm.subscriptions.append(QuerySubscription<\(className)>()) }`; the server would revert the write otherwise.")
        }
    }
}
