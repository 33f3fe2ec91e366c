import OpenRealmWire

/// The stamp of a write for last-writer-wins (`docs/CONFLICTS.md`): the origin's hybrid
/// logical clock, then its client file identity to break ties. Greater stamps win.
///
/// The server keeps the stamp of each property's last write (its property clocks) and
/// the client compares downloaded writes with its pending ones by the same order, which
/// is what makes both ends pick the same winner.
public struct WriteStamp: Sendable, Hashable, Comparable {
    public var timestamp: WireHybridTimestamp
    public var originFileIdent: UInt64

    public init(timestamp: WireHybridTimestamp, originFileIdent: UInt64) {
        self.timestamp = timestamp
        self.originFileIdent = originFileIdent
    }

    public static func < (a: WriteStamp, b: WriteStamp) -> Bool {
        (a.timestamp, a.originFileIdent) < (b.timestamp, b.originFileIdent)
    }
}
