import Foundation
import OpenRealmSyncCore
import OpenRealmWire

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
