import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Turns the file's local commits into `upload` frames: every commit after the cursor
/// that carries synced changes, read from the changeset log and encoded once — the bytes
/// that size a changeset for progress and for the batch bound go into the frame as they
/// are (``WireEncoder/encodeUpload(session:changesets:)``).
///
/// Commits that integrated a download are skipped (they are the server's changes), and
/// each changeset keeps the server version its commit was made on and its clock stamp
/// (``CommitStamps``), so the server can transform and order it. Used on the session's
/// queue only.
struct ChangesetUploader {
    /// The last local version read for upload on the current connection; the next
    /// upload starts after it. A new connection sets it from the server's `ident`.
    var cursor: UInt64 = 0

    /// The most changeset bytes one frame carries (a single larger changeset goes alone).
    static let frameBudget = 8 << 20

    /// The frames that upload the commits in (cursor, head], in order, and moves the
    /// cursor to `head`. Each changeset is counted in `progress` as measured.
    ///
    /// - Throws: a failure to read the file, or `SyncError` `.otherError` naming a
    ///   changeset that cannot be encoded (the cursor then stays).
    mutating func frames(_ file: FileAccess, upTo head: UInt64, session: UInt64, clock: SyncClock,
                         progress: inout TransferProgress) throws -> [[UInt8]] {
        guard head > cursor else { return [] }
        let changesets = try file.read { txn in try Self.changesets(txn, after: cursor, upTo: head, clock: clock) }
        cursor = head
        var frames: [[UInt8]] = []
        var batch: [WireEncoder.EncodedUploadChangeset] = []
        var size = 0
        func flush() {
            if let frame = try? WireEncoder().encodeUpload(session: session, changesets: batch) { frames.append(frame) }
            batch = []
            size = 0
        }
        for c in changesets {
            let bytes = c.instructions.count
            progress.measuredUpload(version: c.clientVersion, bytes: bytes, upTo: head)
            if !batch.isEmpty && size + bytes > Self.frameBudget { flush() }
            batch.append(c)
            size += bytes
        }
        if !batch.isEmpty { flush() }
        return frames
    }

    /// The encoded changesets of the local commits in (after, head] that carry synced
    /// changes.
    private static func changesets(_ txn: ORCoreTransaction, after: UInt64, upTo head: UInt64,
                                   clock: SyncClock) throws -> [WireEncoder.EncodedUploadChangeset] {
        let integrations = SyncProgressStore.integrations(txn)
        let stamps = CommitStamps.all(txn)
        var out: [WireEncoder.EncodedUploadChangeset] = []
        for (v, instructions) in try ChangesetReader.localChanges(txn, after: after, through: head) {
            let bytes: [UInt8]
            do { bytes = try WireChangeset(instructions).encoded() } catch {
                throw SyncError(.otherError, "The local changeset of version \(v) cannot be encoded for upload: \(error)")
            }
            out.append(WireEncoder.EncodedUploadChangeset(
                clientVersion: v, lastIntegratedServerVersion: SyncProgressStore.serverVersion(before: v, integrations),
                timestamp: stamps[v] ?? clock.tick(), instructions: bytes))
        }
        return out
    }
}
