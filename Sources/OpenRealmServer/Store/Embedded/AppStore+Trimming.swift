import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// History trimming. The history is needed to transform a changeset against what others
/// integrated after the server version it was made at (its `lastIntegratedServerVersion`,
/// its **base**), and, when the file's own earlier changesets were integrated after that
/// base, to carry those earlier list edits forward from *their* bases
/// (``ConcurrentEdits/instructions(_:origin:after:through:on:index:memo:)``). A client's
/// changesets are made in order, each after the one before, so their bases never
/// decrease: no later upload of a file is based below the base of its last integrated
/// changeset. Each client file therefore records `uploadBase`, the lowest version whose
/// later history an upload of it may still need: the base of its last integrated
/// changeset, lowered to the base of each of its own changesets integrated after that
/// (version and base pairs, metadata `server.uploads.<file>`), repeatedly; the server version it was
/// created at while it has integrated nothing. It also records when it was last seen
/// (bind, upload, end of a session, and every trim while it is bound).
///
/// The history at or below the lowest `uploadBase`, over the files of bound sessions and
/// the files seen within the retention period, is needed by no one and is deleted; the
/// version up to which it was trimmed is the **floor**. The version a client reports at
/// bind (what it downloaded) does not count: changesets it made earlier and has not
/// uploaded yet are based below it. A file that comes back after being away longer than
/// the retention period, once the floor passed its `uploadBase`, gets
/// `clientResetRequired`.
extension AppStore {
    /// The version up to which the history was trimmed (0: nothing trimmed).
    static func historyFloor(_ txn: StoreTransaction) throws -> UInt64 {
        try txn.metaUInt64("server.history_floor") ?? 0
    }

    /// The floor, read in its own transaction.
    func historyFloor() throws -> UInt64 {
        try environment.read { try Self.historyFloor($0) }
    }

    /// Records that client file `ident` reported having integrated up to `serverVersion`
    /// (its download progress, never going back) and was seen now.
    static func recordProgress(_ txn: StoreTransaction, ident: UInt64, serverVersion: UInt64) throws {
        guard let row = try txn.readRow("__client_files", .int(Int64(ident))) else { return }
        let known = UInt64(max(0, row.int("lastServerVersion") ?? 0))
        try txn.updateRow("__client_files", .int(Int64(ident)), [
            "lastServerVersion": .int(Int64(max(known, serverVersion))), "lastSeenAt": .int(nowMilliseconds),
        ])
    }

    /// Records that the server integrated, as server version `version`, a changeset of
    /// client file `ident` based on server version `base`, and that the file was seen now.
    /// The record is kept in memory for the rest of the transaction and written once at
    /// its end (``UploadRecords``): a far-behind client's backlog, all based on one old
    /// version, keeps a long list.
    static func recordUpload(_ txn: StoreTransaction, ident: UInt64, base: UInt64, version: UInt64) throws {
        try txn.deferredWrite { UploadRecords() }.record(txn, ident: ident, base: base, version: version)
    }

    /// Records that client file `ident` was seen at `now` (milliseconds since the epoch).
    static func recordSeen(_ txn: StoreTransaction, ident: UInt64, now: Int64 = nowMilliseconds) throws {
        guard try txn.readRow("__client_files", .int(Int64(ident))) != nil else { return }
        try txn.updateRow("__client_files", .int(Int64(ident)), ["lastSeenAt": .int(now)])
    }

    /// The lowest server version a later upload of client file `ident` can be based on.
    /// A file recorded by a store older than `uploadBase` counts as based at the floor.
    static func uploadBase(_ txn: StoreTransaction, ident: UInt64) throws -> UInt64 {
        guard let row = try txn.readRow("__client_files", .int(Int64(ident))) else { return 0 }
        return try uploadBase(row, floor: historyFloor(txn))
    }

    private static func uploadBase(_ row: [String: WireValue], floor: UInt64) -> UInt64 {
        recordedUploadBase(row) ?? floor
    }

    /// The upload base a client file's row records; nil in a row written before upload
    /// bases were.
    static func recordedUploadBase(_ row: [String: WireValue]) -> UInt64? {
        row.int("uploadBase").map { UInt64(max(0, $0)) }
    }

    /// Deletes the history no client file still needs and raises the floor
    /// (``HistoryTrimmer``); returns the new floor. The files of bound sessions are
    /// recorded as seen at `now`.
    ///
    /// - Parameters:
    ///   - retentionSeconds: files not seen for longer are not waited for.
    ///   - bound: the files of bound sessions, always waited for.
    ///   - now: the time, in milliseconds since the epoch.
    @discardableResult
    func trimHistory(retentionSeconds: Int64, bound: Set<UInt64>, now: Int64 = AppStore.nowMilliseconds) throws -> UInt64 {
        try environment.write { txn in
            try HistoryTrimmer.trim(txn, latest: txn.serverVersion(), retentionSeconds: retentionSeconds,
                                    bound: bound, now: now)
        }
    }

    /// Every client file with its upload base and when it was last seen.
    static func trimCandidates(_ txn: StoreTransaction) throws -> [TrimCandidate] {
        try txn.allRows("__client_files").map { row in
            TrimCandidate(ident: UInt64(max(0, row.int("_id") ?? 0)), uploadBase: recordedUploadBase(row),
                          lastSeenAt: row.int("lastSeenAt") ?? row.int("createdAt") ?? 0)
        }
    }

    /// Deletes the entries above the floor up to `version` and makes it the floor.
    static func trimHistory(_ txn: StoreTransaction, through version: UInt64) throws {
        let floor = try historyFloor(txn)
        guard version > floor else { return }
        for entry in (floor + 1)...version {
            try txn.deleteRow("__history", .int(Int64(entry)))
        }
        try txn.dropPostImages(floor + 1, through: version)
        try txn.setMeta("server.history_floor", version)
    }
}

/// The client files' records of their own changesets integrated after their `uploadBase`
/// (``AppStore/recordUpload(_:ident:base:version:)``) during one write transaction:
/// each file's record is read once, kept in memory, and written back at the end.
///
/// A record is the file's `uploadBase` (in `__client_files`) and its uploads integrated
/// after it, in version order, as 16-byte pairs (version, base; little-endian) in the
/// metadata value `server.uploads.<file>`. Stores written before kept the pairs as text
/// in the `uploadsAfterBase` column: read once, then moved.
final class UploadRecords: ORCoreDeferredWrite {
    /// One file's record, and whether an older store's text column held it.
    struct File {
        var record: UploadRecord
        /// The column of an older store held the pairs: cleared on write.
        var hadLegacyText = false

        var hold: UInt64? { record.hold }
        var live: ArraySlice<(version: UInt64, base: UInt64)> { record.live }
    }

    private var files: [UInt64: File] = [:]
    /// Files in the order first recorded (the writes' order).
    private var order: [UInt64] = []

    /// The metadata name of file `ident`'s uploads.
    static func metaName(_ ident: UInt64) -> String { "server.uploads.\(ident)" }

    func record(_ txn: StoreTransaction, ident: UInt64, base: UInt64, version: UInt64) throws {
        var file: File
        if let known = files.removeValue(forKey: ident) {
            file = known
        } else {
            guard let row = try txn.readRow("__client_files", .int(Int64(ident))) else { return }
            file = try Self.read(txn, ident: ident, row: row)
            order.append(ident)
        }
        file.record.record(base: base, version: version)
        files[ident] = file
    }

    func write(_ txn: StoreTransaction) throws {
        for ident in order {
            guard let file = files[ident] else { continue }
            var row: [String: WireValue] = ["lastSeenAt": .int(AppStore.nowMilliseconds)]
            if let hold = file.hold { row["uploadBase"] = .int(Int64(hold)) }
            if file.hadLegacyText { row["uploadsAfterBase"] = .null }
            try txn.updateRow("__client_files", .int(Int64(ident)), row)
            try txn.setMeta(Self.metaName(ident), bytes: file.record.encodedUploads())
        }
    }

    /// File `ident`'s record as stored.
    static func read(_ txn: StoreTransaction, ident: UInt64, row: [String: WireValue]) throws -> File {
        let hold = AppStore.recordedUploadBase(row)
        let legacy = row.string("uploadsAfterBase") ?? ""
        let record: UploadRecord
        if let bytes = try txn.metaBytes(metaName(ident)) {
            guard let decoded = UploadRecord(hold: hold, decoding: bytes) else {
                throw StoreError(status: 0, "metadata '\(metaName(ident))' holds \(bytes.count) bytes, not pairs of 16")
            }
            record = decoded
        } else {
            record = UploadRecord(hold: hold, uploads: parseLegacy(legacy))
        }
        return File(record: record, hadLegacyText: !legacy.isEmpty)
    }

    /// The "version:base" pairs of an older store's text (entries that do not parse are
    /// left out).
    static func parseLegacy(_ text: String) -> [(version: UInt64, base: UInt64)] {
        text.split(separator: ",").compactMap { pair in
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let version = UInt64(parts[0]), let base = UInt64(parts[1]) else { return nil }
            return (version, base)
        }
    }
}
