import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// The sync progress a realm file keeps in its metadata (`docs/PROTOCOL.md` §1): the
/// client file identity, the last server version integrated, the last client version
/// the server acknowledged, and which local commits were downloads (never uploaded).
enum SyncProgressStore {
    static let identityKey = "openrealm.sync.identity"
    static let progressKey = "openrealm.sync.progress"
    static let integrationsKey = "openrealm.sync.integrations"
    /// Local versions up to this one are never uploaded (a copy made for another user).
    static let uploadBaseKey = "openrealm.sync.uploadBase"
    /// The server version of the file's last view change (its last completed bootstrap).
    static let viewServerVersionKey = "openrealm.sync.viewServerVersion"
    /// The changeset log consumer that keeps local commits until they are acknowledged.
    static let logConsumer = "openrealm.sync.upload"

    struct Progress: Equatable {
        var serverVersion: UInt64 = 0
        var acknowledgedClientVersion: UInt64 = 0
    }

    static func identity(_ txn: ORCoreTransaction) -> WireFileIdentity? {
        let v = (try? txn.metaUInt64s(identityKey)) ?? []
        guard v.count == 2, v[0] != 0 else { return nil }
        return WireFileIdentity(ident: v[0], salt: v[1])
    }

    static func setIdentity(_ txn: ORCoreTransaction, _ identity: WireFileIdentity?) throws {
        if let identity {
            try txn.setMeta(identityKey, uint64s: [identity.ident, identity.salt])
        } else {
            try? txn.deleteMeta(identityKey)
        }
    }

    static func progress(_ txn: ORCoreTransaction) -> Progress {
        let v = (try? txn.metaUInt64s(progressKey)) ?? []
        guard v.count == 2 else { return Progress() }
        return Progress(serverVersion: v[0], acknowledgedClientVersion: v[1])
    }

    static func setProgress(_ txn: ORCoreTransaction, _ p: Progress) throws {
        try txn.setMeta(progressKey, uint64s: [p.serverVersion, p.acknowledgedClientVersion])
    }

    /// (local version, server version it brought the file to), oldest first.
    static func integrations(_ txn: ORCoreTransaction) -> [(local: UInt64, server: UInt64)] {
        let v = (try? txn.metaUInt64s(integrationsKey)) ?? []
        return stride(from: 0, to: v.count - v.count % 2, by: 2).map { (v[$0], v[$0 + 1]) }
    }

    static func setIntegrations(_ txn: ORCoreTransaction, _ list: [(local: UInt64, server: UInt64)]) throws {
        try txn.setMeta(integrationsKey, uint64s: list.flatMap { [$0.local, $0.server] })
    }

    static func viewServerVersion(_ txn: ORCoreTransaction) -> UInt64 {
        (try? txn.metaUInt64s(viewServerVersionKey))?.first ?? 0
    }

    static func setViewServerVersion(_ txn: ORCoreTransaction, _ version: UInt64) throws {
        try txn.setMeta(viewServerVersionKey, uint64s: [version])
    }

    static func uploadBase(_ txn: ORCoreTransaction) -> UInt64 {
        (try? txn.metaUInt64s(uploadBaseKey))?.first ?? 0
    }

    /// The last server version the file had integrated when it made local commit `version`.
    static func serverVersion(before version: UInt64, _ list: [(local: UInt64, server: UInt64)]) -> UInt64 {
        list.last { $0.local < version }?.server ?? 0
    }
}
