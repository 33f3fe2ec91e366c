import Foundation
import ORCore
import OpenRealm
import OpenRealmSyncCore
import OpenRealmWire

/// What a realm file keeps about a client reset under way (`docs/PROTOCOL.md` §6.4), so
/// that a reset interrupted by the end of the process resumes on the next start.
///
/// A reset starts when the server answers a bind with `clientResetRequired`: the file
/// forgets its identity and records the **base**, the last local version the server is
/// known to hold (the acknowledged version, or the upload base of a copied file). The
/// local commits after the base that were not downloads are the unsynced changes. The
/// next bind, without identity, gets a fresh bootstrap; integrating it ends the reset
/// (``FreshState``) and removes the record.
///
/// Layout: metadata `openrealm.sync.reset`, one little-endian `u64`, the base.
enum ClientResetStore {
    static let markerKey = "openrealm.sync.reset"

    /// The base of the reset under way, or nil when none is.
    static func marker(_ txn: ORCoreTransaction) -> UInt64? {
        (try? txn.metaUInt64s(markerKey))?.first
    }

    static func setMarker(_ txn: ORCoreTransaction, base: UInt64?) throws {
        if let base {
            try txn.setMeta(markerKey, uint64s: [base])
        } else {
            try? txn.deleteMeta(markerKey)
        }
    }

    /// The version the sync consumer of the changeset log holds from: the acknowledged
    /// version, and during a reset no later than its base, so that the unsynced changes
    /// stay readable until they are recovered.
    static func logHoldVersion(_ txn: ORCoreTransaction, _ progress: SyncProgressStore.Progress) -> UInt64 {
        guard let base = marker(txn) else { return progress.acknowledgedClientVersion }
        return min(base, progress.acknowledgedClientVersion)
    }

    /// The unsynced local changes after `base`, oldest first: each commit that was not a
    /// download, as the client holds it (`pending`, transformed past later list edits,
    /// when it has it; else as committed).
    static func unsyncedChanges(_ txn: ORCoreTransaction, after base: UInt64,
                                pending: [UInt64: [WireInstruction]]) throws -> [WireInstruction] {
        var out: [WireInstruction] = []
        for v in ChangesetReader.localVersions(txn, after: base, through: txn.version) {
            out += try pending[v] ?? ChangesetReader.instructions(txn.handle, version: v)
        }
        return out
    }
}

/// A client reset the session is performing: the frozen realm of the state before it,
/// for the `afterReset` callback. Nil `before` when the reset was picked up from the file
/// after a restart (no callback then sees the old state).
struct ClientResetState {
    var before: Realm?
}
