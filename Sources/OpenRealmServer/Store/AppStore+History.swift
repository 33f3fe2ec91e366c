import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// One integrated changeset of the server history.
struct HistoryEntry: Sendable, Hashable {
    /// The server version it produced.
    var serverVersion: UInt64
    /// The client file it came from (0: the server).
    var originFileIdent: UInt64
    /// Its client version at the origin (0: the server).
    var originClientVersion: UInt64
    /// The origin's clock reading.
    var timestamp: WireHybridTimestamp
    /// When the server integrated it, in milliseconds since the epoch.
    var integratedAt: Int64
    /// The instructions as integrated (after conflict resolution), in wire form.
    var changeset: [UInt8]
    /// In wire form, what the server sent back to the origin alone: the compensating
    /// write reverting its refused writes, and the partition values it stamped. Empty
    /// when none.
    var compensation: [UInt8] = []
    /// In wire form, the changeset's list instructions as the origin uploaded them
    /// (before transformation), for transforming its later changesets (``ListTransform``).
    /// Empty when it had none.
    var uploadedListEdits: [UInt8] = []
    /// The changeset's `lastIntegratedServerVersion` (what its origin had integrated when
    /// it made it); nil for the server's own entries and entries stored before it was kept.
    var originServerVersion: UInt64?
}

extension AppStore {
    /// Appends `entry` to the history inside the integration's transaction.
    static func appendHistory(_ txn: StoreTransaction, _ entry: HistoryEntry) throws {
        try txn.insertRow("__history", [
            "_id": .int(Int64(entry.serverVersion)),
            "originFileIdent": .int(Int64(bitPattern: entry.originFileIdent)),
            "originClientVersion": .int(Int64(bitPattern: entry.originClientVersion)),
            "hlcMilliseconds": .int(Int64(bitPattern: entry.timestamp.milliseconds)),
            "hlcCounter": .int(Int64(entry.timestamp.counter)),
            "integratedAt": .int(entry.integratedAt),
            "changeset": .binary(entry.changeset),
            "compensation": entry.compensation.isEmpty ? .null : .binary(entry.compensation),
            "uploadedListEdits": entry.uploadedListEdits.isEmpty ? .null : .binary(entry.uploadedListEdits),
            "originServerVersion": entry.originServerVersion.map { .int(Int64($0)) } ?? .null,
        ])
        try txn.setMeta("server.version", entry.serverVersion)
    }

    /// The history entry of `serverVersion`, or nil.
    func historyEntry(_ serverVersion: UInt64) throws -> HistoryEntry? {
        try environment.read { txn in try Self.historyEntry(txn, serverVersion) }
    }

    /// The history entry of `serverVersion` read in `txn`, or nil.
    static func historyEntry(_ txn: StoreTransaction, _ serverVersion: UInt64) throws -> HistoryEntry? {
        guard serverVersion <= UInt64(Int64.max),
              let row = try txn.readRow("__history", .int(Int64(serverVersion))) else { return nil }
        return HistoryEntry(
            serverVersion: serverVersion,
            originFileIdent: UInt64(bitPattern: row.int("originFileIdent") ?? 0),
            originClientVersion: UInt64(bitPattern: row.int("originClientVersion") ?? 0),
            timestamp: WireHybridTimestamp(milliseconds: UInt64(bitPattern: row.int("hlcMilliseconds") ?? 0),
                                           counter: UInt32(truncatingIfNeeded: row.int("hlcCounter") ?? 0)),
            integratedAt: row.int("integratedAt") ?? 0,
            changeset: row.binary("changeset") ?? [],
            compensation: row.binary("compensation") ?? [],
            uploadedListEdits: row.binary("uploadedListEdits") ?? [],
            originServerVersion: row.int("originServerVersion").map { UInt64(max(0, $0)) })
    }
}
