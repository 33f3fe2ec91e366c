import Foundation
import ORCore
import OpenRealm

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
        var env: OpaquePointer?
        guard orc_env_open(url.path, 0, nil, &env) == ORC_OK, let env else {
            throw RealmError(.fileAccess, "Opening the copy '\(url.path)' failed: \(String(cString: orc_last_error()))")
        }
        defer { orc_env_close(env) }
        var txn: OpaquePointer?
        guard orc_txn_begin(env, Int32(ORC_TXN_WRITE), &txn) == ORC_OK, let txn else {
            throw RealmError(.fileAccess, "Preparing the copy '\(url.path)' failed: \(String(cString: orc_last_error()))")
        }
        do {
            try SyncProgressStore.setIdentity(txn, nil)
            _ = orc_meta_delete(txn, SyncProgressStore.progressKey)
            _ = orc_meta_delete(txn, SyncProgressStore.integrationsKey)
            _ = orc_meta_delete(txn, CommitStamps.key)
            _ = orc_meta_delete(txn, SyncProgressStore.viewServerVersionKey)
            _ = orc_meta_delete(txn, PendingEdits.metadataKey)
            _ = orc_log_release(txn, SyncProgressStore.logConsumer)
            if source != nil {
                try FileMetadata.setUInt64s(txn, SyncProgressStore.uploadBaseKey, [orc_txn_version(txn) + 1])
            }
            if destination == nil || destination?.enableFlexibleSync == false {
                _ = orc_meta_delete(txn, SubscriptionStore.metadataKey)
            }
        } catch {
            orc_txn_abort(txn)
            throw error
        }
        guard orc_txn_commit(txn, nil) == ORC_OK else {
            throw RealmError(.fileAccess, "Preparing the copy '\(url.path)' failed: \(String(cString: orc_last_error()))")
        }
    }
}
