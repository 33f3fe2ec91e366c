import ORCore
import OpenRealmWire

/// The client's side of list convergence (`docs/PROTOCOL.md` §6.6, `docs/CONFLICTS.md`
/// "Lists"): each downloaded changeset was integrated by the server before the local
/// changesets it had not yet integrated (those after the changeset's
/// `lastIntegratedClientVersion`), so its list instructions are transformed against
/// them before they are applied, and they are transformed in turn against it.
///
/// The transformed local changesets are kept here, by local version, until the server
/// acknowledges them: a later download is transformed against them as the client holds
/// them, not as they were first committed. A changeset not kept yet is read from the
/// changeset log, which holds it as committed; that is what the client holds as long
/// as no download with list edits arrived after it (downloads without list edits
/// change nothing in it), which is when it is first kept.
struct PendingEdits {
    /// Local version → its synced instructions as the client holds them now.
    private(set) var byVersion: [UInt64: [WireInstruction]] = [:]

    /// The instructions of `changesets`, oldest first, each transformed against the
    /// local changesets the server had not integrated when it produced it; those are
    /// transformed past it in turn. `txn` is the write transaction that applies them.
    mutating func transform(_ changesets: [WireDownloadChangeset], _ txn: OpaquePointer) throws -> [WireInstruction] {
        guard changesets.contains(where: { ListTransform.editsLists($0.instructions) }) else {
            return changesets.flatMap(\.instructions)
        }
        try load(txn)
        var out: [WireInstruction] = []
        for changeset in changesets {
            let versions = byVersion.keys.filter { $0 > changeset.lastIntegratedClientVersion }.sorted()
            var pending = versions.map { byVersion[$0] ?? [] }
            out += ListTransform.integrateDownload(changeset.instructions, pending: &pending)
            for (v, p) in zip(versions, pending) { byVersion[v] = p }
        }
        return out
    }

    /// Forgets the local changesets the server has acknowledged (up to `version`).
    mutating func acknowledge(upTo version: UInt64) {
        byVersion = byVersion.filter { $0.key > version }
    }

    /// Reads the local changesets not kept yet from the changeset log: the commits after
    /// the acknowledged version (and the upload base) that were not downloads.
    private mutating func load(_ txn: OpaquePointer) throws {
        let progress = SyncProgressStore.progress(txn)
        let integrated = Set(SyncProgressStore.integrations(txn).map(\.local))
        let head = orc_txn_version(txn)
        var v = max(progress.acknowledgedClientVersion, SyncProgressStore.uploadBase(txn)) + 1
        while v <= head {
            defer { v += 1 }
            if integrated.contains(v) || byVersion[v] != nil { continue }
            byVersion[v] = try ChangesetReader.instructions(txn, version: v)
        }
    }
}
