import Foundation
import ORCore
import OpenRealm
import OpenRealmSyncCore

/// `writeCopy(configuration:)` when the source or the destination is synced.
enum SyncedCopy {
    static func write(_ realm: Realm, to configuration: Realm.Configuration) throws {
        let source = realm.configuration.syncConfiguration
        let destination = configuration.syncConfiguration
        if let source, let destination, source.enableFlexibleSync != destination.enableFlexibleSync {
            throw RealmError(.invalidArgument, "Cannot copy a \(source.enableFlexibleSync ? "flexible" : "partition-based") sync realm to a \(destination.enableFlexibleSync ? "flexible" : "partition-based") sync configuration: copies are only between realms of the same sync kind.")
        }
        guard let url = configuration.fileURL else {
            throw RealmError(.invalidArgument, "writeCopy(configuration:) needs a configuration with a fileURL; in-memory realms cannot be copied to.")
        }
        guard !realm.isInWriteTransaction else {
            throw RealmError(.wrongTransactionState, "Cannot write a copy of a realm inside a write transaction.")
        }
        if source != nil, let session = SyncSessionRegistry.shared.existing(path: realm._coordinator.path), session.hasUnuploadedChanges {
            throw RealmError(.fail, "Cannot copy '\(realm._coordinator.path)' for another sync configuration yet: it has local changes the server has not acknowledged. Wait with `try await realm.syncSession?.wait(for: .upload)` and copy again.")
        }
        if FileManager.default.fileExists(atPath: url.path) {
            throw RealmError(.fileExists, "Cannot write a copy to '\(url.path)': the file already exists.")
        }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let status = orc_env_copy(realm._coordinator.env, url.path)
        guard status == ORC_OK else {
            throw RealmError(status == ORC_ERR_EXISTS ? .fileExists : .fileAccess, "Writing a copy to '\(url.path)' failed: \(String(cString: orc_last_error()))")
        }
        // The copy is a new client of its user: no identity; what it holds is already on
        // the server (or, from a local realm, is uploaded as new).
        let copy: ORCoreEnvironment
        do { copy = try ORCoreEnvironment(path: url.path) } catch {
            throw RealmError(.fileAccess, "Opening the copy '\(url.path)' failed: \(error.message)")
        }
        do {
            try copy.write { txn in
                try SyncProgressStore.setIdentity(txn, nil)
                for key in [SyncProgressStore.progressKey, SyncProgressStore.integrationsKey, CommitStamps.key,
                            SyncProgressStore.viewServerVersionKey, PendingEdits.metadataKey] {
                    try? txn.deleteMeta(key)
                }
                _ = orc_log_release(txn.handle, SyncProgressStore.logConsumer)
                if source != nil {
                    try txn.setMeta(SyncProgressStore.uploadBaseKey, uint64s: [txn.version + 1])
                }
                if destination == nil || destination?.enableFlexibleSync == false {
                    try? txn.deleteMeta(SubscriptionStore.metadataKey)
                }
            }
        } catch let failure as ORCoreError {
            throw RealmError(.fileAccess, "Preparing the copy '\(url.path)' failed: \(failure.message)")
        }
    }
}
