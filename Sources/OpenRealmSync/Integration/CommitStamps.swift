import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire
import Synchronization

/// A client file's hybrid logical clock (`docs/PROTOCOL.md` §6.6): every downloaded
/// changeset moves it past the changeset's reading, and every local commit takes a
/// reading, so a change made after seeing another is stamped later. Shared by the
/// file's session and the commit hook; safe from any thread.
final class SyncClock: Sendable {
    private let last = Mutex(WireHybridTimestamp(milliseconds: 0))

    private static var now: UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }

    /// A new reading, later than every reading taken or received before.
    func tick() -> WireHybridTimestamp {
        last.withLock { clock in
            clock = clock.advanced(to: Self.now)
            return clock
        }
    }

    /// Moves the clock past `remote` (a downloaded changeset's reading, or a reading
    /// this file stored before a restart).
    func receive(_ remote: WireHybridTimestamp) {
        last.withLock { $0 = $0.receiving(remote, now: Self.now) }
    }
}

/// The stamp of each local commit not yet acknowledged: the clock reading taken when it
/// was committed (``SyncClock``), kept in the file's metadata under ``key`` as
/// little-endian u64 triples (version, milliseconds, counter). The upload carries it,
/// so the server orders the commit's writes by when they were made rather than when
/// they were uploaded, and the client compares it with downloaded writes
/// (``PendingEdits``) as the server will.
enum CommitStamps {
    static let key = "openrealm.sync.stamps"

    /// Local version → its stamp.
    static func all(_ txn: ORCoreTransaction) -> [UInt64: WireHybridTimestamp] {
        let v = (try? txn.metaUInt64s(key)) ?? []
        var out: [UInt64: WireHybridTimestamp] = [:]
        for i in stride(from: 0, to: v.count - v.count % 3, by: 3) {
            out[v[i]] = WireHybridTimestamp(milliseconds: v[i + 1], counter: UInt32(truncatingIfNeeded: v[i + 2]))
        }
        return out
    }

    private static func store(_ txn: ORCoreTransaction, _ stamps: [UInt64: WireHybridTimestamp]) throws {
        if stamps.isEmpty {
            try? txn.deleteMeta(key)
            return
        }
        try txn.setMeta(key, uint64s: stamps.keys.sorted().flatMap {
            [$0, stamps[$0]!.milliseconds, UInt64(stamps[$0]!.counter)]
        })
    }

    /// Records `stamp` for the commit `txn` is about to make.
    static func record(_ txn: ORCoreTransaction, _ stamp: WireHybridTimestamp) throws {
        var stamps = all(txn)
        stamps[txn.version + 1] = stamp
        try store(txn, stamps)
    }

    /// Forgets the stamps of commits up to `version` (acknowledged by the server).
    static func prune(_ txn: ORCoreTransaction, upTo version: UInt64) throws {
        let stamps = all(txn)
        let kept = stamps.filter { $0.key > version }
        if kept.count != stamps.count { try store(txn, kept) }
    }

    /// The step before a commit (`RealmSync.willCommit`): stamps a local commit of a synced
    /// realm with its session's clock. A realm without a running session (its user
    /// logged out) gets no stamp; its commit is stamped when it is uploaded.
    static func stampCommit(_ path: String, _ txn: OpaquePointer) {
        guard let session = SyncSessionRegistry.shared.existing(path: path) else { return }
        try? record(ORCoreTransaction(borrowing: txn), session.clock.tick())
    }
}
