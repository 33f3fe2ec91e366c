import Foundation
import ORCore
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

    static func identity(_ txn: OpaquePointer) -> WireFileIdentity? {
        let v = FileMetadata.uint64s(txn, identityKey)
        guard v.count == 2, v[0] != 0 else { return nil }
        return WireFileIdentity(ident: v[0], salt: v[1])
    }

    static func setIdentity(_ txn: OpaquePointer, _ identity: WireFileIdentity?) throws {
        if let identity {
            try FileMetadata.setUInt64s(txn, identityKey, [identity.ident, identity.salt])
        } else {
            _ = orc_meta_delete(txn, identityKey)
        }
    }

    static func progress(_ txn: OpaquePointer) -> Progress {
        let v = FileMetadata.uint64s(txn, progressKey)
        guard v.count == 2 else { return Progress() }
        return Progress(serverVersion: v[0], acknowledgedClientVersion: v[1])
    }

    static func setProgress(_ txn: OpaquePointer, _ p: Progress) throws {
        try FileMetadata.setUInt64s(txn, progressKey, [p.serverVersion, p.acknowledgedClientVersion])
    }

    /// (local version, server version it brought the file to), oldest first.
    static func integrations(_ txn: OpaquePointer) -> [(local: UInt64, server: UInt64)] {
        let v = FileMetadata.uint64s(txn, integrationsKey)
        return stride(from: 0, to: v.count - v.count % 2, by: 2).map { (v[$0], v[$0 + 1]) }
    }

    static func setIntegrations(_ txn: OpaquePointer, _ list: [(local: UInt64, server: UInt64)]) throws {
        try FileMetadata.setUInt64s(txn, integrationsKey, list.flatMap { [$0.local, $0.server] })
    }

    static func viewServerVersion(_ txn: OpaquePointer) -> UInt64 {
        FileMetadata.uint64s(txn, viewServerVersionKey).first ?? 0
    }

    static func setViewServerVersion(_ txn: OpaquePointer, _ version: UInt64) throws {
        try FileMetadata.setUInt64s(txn, viewServerVersionKey, [version])
    }

    static func uploadBase(_ txn: OpaquePointer) -> UInt64 {
        FileMetadata.uint64s(txn, uploadBaseKey).first ?? 0
    }

    /// The last server version the file had integrated when it made local commit `version`.
    static func serverVersion(before version: UInt64, _ list: [(local: UInt64, server: UInt64)]) -> UInt64 {
        list.last { $0.local < version }?.server ?? 0
    }
}
