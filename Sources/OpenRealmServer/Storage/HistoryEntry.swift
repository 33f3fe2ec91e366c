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
