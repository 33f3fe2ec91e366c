import Foundation
import OpenRealmWire

/// History trimming. Each client file records the last server version it reported
/// having integrated (its bind's `lastIntegratedServerVersion`, and each uploaded
/// changeset's) and when it was last seen. The history at or below the lowest of those
/// versions, over the files seen within the retention period and the files of bound
/// sessions, is needed by no one and is deleted; the version up to which it was trimmed
/// is the **floor**. A file that comes back with a version below the floor (one that
/// vanished for longer than the retention period) gets `clientResetRequired`.
extension AppStore {
    /// The version up to which the history was trimmed (0: nothing trimmed).
    static func historyFloor(_ txn: StoreTransaction) throws -> UInt64 {
        try txn.metaUInt64("server.history_floor") ?? 0
    }

    /// The floor, read in its own transaction.
    func historyFloor() throws -> UInt64 {
        try environment.read { try Self.historyFloor($0) }
    }

    /// Records that client file `ident` has integrated up to `serverVersion` (never
    /// going back) and was seen now.
    static func recordProgress(_ txn: StoreTransaction, ident: UInt64, serverVersion: UInt64) throws {
        guard let row = try txn.readRow("__client_files", .int(Int64(ident))) else { return }
        let known = UInt64(max(0, row.int("lastServerVersion") ?? 0))
        try txn.updateRow("__client_files", .int(Int64(ident)), [
            "lastServerVersion": .int(Int64(max(known, serverVersion))), "lastSeenAt": .int(nowMilliseconds),
        ])
    }

    /// Deletes the history no client file still needs and raises the floor; returns the
    /// new floor.
    ///
    /// - Parameters:
    ///   - retentionSeconds: files not seen for longer are not waited for.
    ///   - bound: the files of bound sessions, always waited for.
    ///   - now: the time, in milliseconds since the epoch.
    @discardableResult
    func trimHistory(retentionSeconds: Int64, bound: Set<UInt64>, now: Int64 = AppStore.nowMilliseconds) throws -> UInt64 {
        let latest = serverVersion
        return try environment.write { txn in
            let floor = try Self.historyFloor(txn)
            var needed = latest
            for row in try txn.allRows("__client_files") {
                let ident = UInt64(max(0, row.int("_id") ?? 0))
                let seen = row.int("lastSeenAt") ?? row.int("createdAt") ?? 0
                guard bound.contains(ident) || now - seen <= retentionSeconds * 1000 else { continue }
                needed = min(needed, UInt64(max(0, row.int("lastServerVersion") ?? 0)))
            }
            guard needed > floor else { return floor }
            for version in (floor + 1)...needed {
                try txn.deleteRow("__history", .int(Int64(version)))
            }
            try txn.setMeta("server.history_floor", needed)
            return needed
        }
    }

    /// Trims (``trimHistory(retentionSeconds:bound:now:)``) when at least `interval`
    /// server versions passed since the last attempt. Call with ``lock`` held.
    func trimHistoryIfDue(retentionSeconds: Int64, interval: Int64, bound: Set<UInt64>) throws {
        guard serverVersion >= lastTrimAttempt &+ UInt64(max(1, interval)) else { return }
        lastTrimAttempt = serverVersion
        try trimHistory(retentionSeconds: retentionSeconds, bound: bound)
    }
}
