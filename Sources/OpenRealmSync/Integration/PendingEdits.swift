import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// The client's unacknowledged local changesets as it holds them, and what a download
/// does to them (`docs/PROTOCOL.md` §6.6, `docs/CONFLICTS.md`).
///
/// Each downloaded changeset was integrated by the server before the local changesets it
/// had not yet integrated (those after the changeset's `lastIntegratedClientVersion`),
/// so its list instructions are transformed against them before they are applied, and
/// they are transformed in turn against it (``ListTransform``); then what those pending
/// changesets will win on the server is left out of it (``LastWriterWins``).
///
/// The pending changesets are kept here, by local version, until the server
/// acknowledges them: a later download is transformed against them as the client holds
/// them, not as they were first committed. One not kept yet is read from the changeset
/// log, which holds it as committed. Those a download transformed are also stored in
/// the file's metadata (``metadataKey``) in the write transaction that applies the
/// download, so that after a restart the next download meets them as transformed, not
/// as committed. (Uploads still carry them as committed: the server transforms an
/// upload from the server version it was made at, `docs/CONFLICTS.md` "Lists".)
struct PendingEdits {
    /// The metadata holding the transformed changesets: per changeset a little-endian
    /// u64 local version, a u64 byte count and the ``WireChangeset`` encoding.
    static let metadataKey = "openrealm.sync.pendingEdits"

    /// Local version → its synced instructions as the client holds them now.
    private(set) var byVersion: [UInt64: [WireInstruction]] = [:]
    /// Local version → the top-level objects its instructions act on, worked out once
    /// per version. A transform never moves an instruction to another object (it may
    /// drop one), so this stays true, at most too wide, as the changeset is transformed.
    private var objectsByVersion: [UInt64: Set<WireObjectRef>] = [:]
    /// The versions a download transformed (their log entry no longer says what the
    /// client holds).
    private var transformed: Set<UInt64> = []
    /// Whether the stored transformed changesets were read.
    private var restored = false
    /// Whether ``transformed`` changed since the last ``save(_:)``.
    private var changed = false
    /// The encodings ``save(_:)`` made of transformed changesets not changed since: a
    /// client far behind holds thousands, and a download changes a few.
    private var encodedByVersion: [UInt64: [UInt8]] = [:]

    /// The instructions of `changesets` (oldest first) to apply in `txn`: each one
    /// transformed against, and resolved with, the local changesets the server had not
    /// integrated when it produced it; those are transformed past it in turn.
    ///
    /// - Parameter viewServerVersion: the server version of the file's last view change
    ///   (its last completed bootstrap, this download's when it completes one).
    mutating func integrate(_ changesets: [WireDownloadChangeset], _ txn: ORCoreTransaction,
                            viewServerVersion: UInt64) throws -> [WireInstruction] {
        guard changesets.contains(where: { !$0.instructions.isEmpty }) else { return [] }
        try load(txn)
        let stamps = CommitStamps.all(txn)
        let ident = SyncProgressStore.identity(txn)?.ident ?? 0
        var out: [WireInstruction] = []
        // Only pending changesets on the same top-level objects can meet a downloaded
        // one: list transforms and last-writer-wins both act within one object (and what
        // is under it). A client far behind holds thousands of pending changesets,
        // almost all on objects a given download does not touch.
        var versionsByObject: [WireObjectRef: [UInt64]] = [:]
        for v in byVersion.keys.sorted() {
            for object in objects(of: v) { versionsByObject[object, default: []].append(v) }
        }
        for changeset in changesets {
            var meeting: Set<UInt64> = []
            for object in Set(changeset.instructions.compactMap(\.topLevelObject)) {
                for v in versionsByObject[object] ?? [] where v > changeset.lastIntegratedClientVersion { meeting.insert(v) }
            }
            let versions = meeting.sorted()
            guard !versions.isEmpty else {
                out += changeset.instructions
                continue
            }
            let before = versions.map { byVersion[$0] ?? [] }
            var pending = before
            var incoming = ListTransform.integrateDownload(changeset.instructions, pending: &pending)
            for (i, v) in versions.enumerated() where pending[i] != before[i] {
                byVersion[v] = pending[i]
                encodedByVersion[v] = nil
                transformed.insert(v)
                changed = true
            }
            if changeset.originFileIdent != 0 {
                // A commit without a stamp is stamped when it is uploaded: later than anything.
                let unstamped = WireHybridTimestamp(milliseconds: .max, counter: .max)
                incoming = LastWriterWins.resolve(
                    incoming, stamp: WriteStamp(timestamp: changeset.timestamp, originFileIdent: changeset.originFileIdent),
                    pending: zip(versions, pending).map { (WriteStamp(timestamp: stamps[$0] ?? unstamped, originFileIdent: ident), $1) })
            } else {
                // The server made this changeset itself (a bootstrap, a compensating
                // write, an object sent back whole): it states the server's copy as of
                // its version, without the pending changesets. Those made before the
                // file's last view change will be sent back whole once integrated
                // (`docs/SERVER.md`, "View changes and re-binds"), so the server's copy
                // is taken for them; those made after it were made knowing every write
                // the server integrated before them, so theirs win over this copy.
                let integrations = SyncProgressStore.integrations(txn)
                let later = zip(versions, pending).filter {
                    SyncProgressStore.serverVersion(before: $0.0, integrations) >= viewServerVersion
                }
                let first = WriteStamp(timestamp: WireHybridTimestamp(milliseconds: 0), originFileIdent: 0)
                let last = WriteStamp(timestamp: WireHybridTimestamp(milliseconds: .max, counter: .max), originFileIdent: .max)
                incoming = LastWriterWins.resolve(incoming, stamp: first, pending: later.map { (last, $1) })
            }
            out += incoming
        }
        return out
    }

    /// The top-level objects the pending changeset of local version `v` acts on.
    private mutating func objects(of v: UInt64) -> Set<WireObjectRef> {
        if let known = objectsByVersion[v] { return known }
        let objects = Set((byVersion[v] ?? []).compactMap(\.topLevelObject))
        objectsByVersion[v] = objects
        return objects
    }

    /// Forgets the local changesets the server has acknowledged (up to `version`).
    mutating func acknowledge(upTo version: UInt64) {
        byVersion = byVersion.filter { $0.key > version }
        objectsByVersion = objectsByVersion.filter { $0.key > version }
        encodedByVersion = encodedByVersion.filter { $0.key > version }
        let kept = transformed.filter { $0 > version }
        if kept.count != transformed.count { changed = true }
        transformed = kept
    }

    /// Stores the transformed changesets in the file's metadata (in the transaction that
    /// applies the download that transformed them), when they changed. Before they were
    /// read back (no download with instructions since the session started) nothing
    /// changed, and those stored stay as they are.
    ///
    /// - Throws: ``SyncError`` when a changeset does not encode or the metadata cannot be written.
    mutating func save(_ txn: ORCoreTransaction) throws {
        guard changed else { return }
        changed = false
        var bytes: [UInt8] = []
        func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        for v in transformed.sorted() {
            guard let instructions = byVersion[v] else { continue }
            let encoded: [UInt8]
            if let known = encodedByVersion[v] {
                encoded = known
            } else {
                do { encoded = try WireChangeset(instructions).encoded() } catch {
                    throw SyncError(.otherError, "Storing the transformed local changeset of version \(v) failed: \(error)")
                }
                encodedByVersion[v] = encoded
            }
            u64(v)
            u64(UInt64(encoded.count))
            bytes += encoded
        }
        if bytes.isEmpty {
            try? txn.deleteMeta(Self.metadataKey)
        } else {
            try txn.setMeta(Self.metadataKey, bytes: bytes)
        }
    }

    /// The transformed changesets stored by ``save(_:)``, by local version.
    ///
    /// - Throws: ``SyncError`` naming the offset when the stored bytes are damaged.
    static func stored(_ txn: ORCoreTransaction) throws -> [UInt64: [WireInstruction]] {
        guard let bytes = try? txn.metaBytes(metadataKey) else { return [:] }
        var out: [UInt64: [WireInstruction]] = [:]
        var i = 0
        func u64() -> UInt64? {
            guard i + 8 <= bytes.count else { return nil }
            defer { i += 8 }
            return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[i + $1]) << (8 * UInt64($1)) }
        }
        while i < bytes.count {
            let start = i
            guard let version = u64(), let count = u64(), count <= UInt64(bytes.count - i) else {
                throw SyncError(.otherError, "The stored pending changesets ('\(metadataKey)') are damaged at byte \(start).")
            }
            do {
                out[version] = try WireChangeset(decoding: Array(bytes[i..<i + Int(count)])).instructions
            } catch {
                throw SyncError(.otherError, "The stored pending changeset of version \(version) ('\(metadataKey)') is damaged: \(error)")
            }
            i += Int(count)
        }
        return out
    }

    /// Reads the local changesets not kept yet: the stored transformed ones, then from
    /// the changeset log the commits after the acknowledged version (and the upload
    /// base) that were not downloads.
    private mutating func load(_ txn: ORCoreTransaction) throws {
        let progress = SyncProgressStore.progress(txn)
        let base = max(progress.acknowledgedClientVersion, SyncProgressStore.uploadBase(txn))
        if !restored {
            restored = true
            for (v, instructions) in try Self.stored(txn) where v > base && byVersion[v] == nil {
                byVersion[v] = instructions
                transformed.insert(v)
            }
        }
        let values = ValueConversion(txn: txn.handle)
        for v in ChangesetReader.localVersions(txn, after: base, through: txn.version) where byVersion[v] == nil {
            byVersion[v] = try ChangesetReader.instructions(txn.handle, version: v, values: values)
        }
    }
}
