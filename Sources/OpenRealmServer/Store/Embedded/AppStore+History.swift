import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// One integrated changeset of the server history.
package struct HistoryEntry: Sendable, Hashable {
    /// The server version it produced.
    package var serverVersion: UInt64
    /// The client file it came from (0: the server).
    package var originFileIdent: UInt64
    /// Its client version at the origin (0: the server).
    package var originClientVersion: UInt64
    /// The origin's clock reading.
    package var timestamp: WireHybridTimestamp
    /// When the server integrated it, in milliseconds since the epoch.
    package var integratedAt: Int64
    /// The instructions as integrated (after conflict resolution), in wire form.
    package var changeset: [UInt8]
    /// In wire form, what the server sent back to the origin alone: the compensating
    /// write reverting its refused writes, and the partition values it stamped. Empty
    /// when none.
    package var compensation: [UInt8] = []
    /// In wire form, the changeset's list instructions as the origin uploaded them
    /// (before transformation), for transforming its later changesets (``ListTransform``).
    /// Empty when it had none.
    package var uploadedListEdits: [UInt8] = []
    /// The changeset's `lastIntegratedServerVersion` (what its origin had integrated when
    /// it made it); nil for the server's own entries and entries stored before it was kept.
    package var originServerVersion: UInt64?

    package init(serverVersion: UInt64, originFileIdent: UInt64, originClientVersion: UInt64, timestamp: WireHybridTimestamp,
                 integratedAt: Int64, changeset: [UInt8], compensation: [UInt8] = [], uploadedListEdits: [UInt8] = [],
                 originServerVersion: UInt64? = nil) {
        self.serverVersion = serverVersion
        self.originFileIdent = originFileIdent
        self.originClientVersion = originClientVersion
        self.timestamp = timestamp
        self.integratedAt = integratedAt
        self.changeset = changeset
        self.compensation = compensation
        self.uploadedListEdits = uploadedListEdits
        self.originServerVersion = originServerVersion
    }
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
