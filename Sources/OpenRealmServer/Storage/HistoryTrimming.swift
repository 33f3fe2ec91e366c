/// A client file as the history trim weighs it.
package struct TrimCandidate: Sendable, Hashable {
    package var ident: UInt64
    /// The lowest server version a later upload of the file can be based on; nil for a
    /// file recorded before upload bases were (it counts as based at the floor).
    package var uploadBase: UInt64?
    /// When the file was last seen (its creation when never), milliseconds since the
    /// epoch.
    package var lastSeenAt: Int64

    package init(ident: UInt64, uploadBase: UInt64?, lastSeenAt: Int64) {
        self.ident = ident
        self.uploadBase = uploadBase
        self.lastSeenAt = lastSeenAt
    }
}

/// The store's part of trimming the history, inside a unit holding the app's write
/// lock; what to trim is the engine's (``HistoryTrimmer``).
package protocol HistoryTrimming: HistoryWriting, ClientFileSeeing {
    /// Every client file of the app.
    func trimCandidates() throws -> [TrimCandidate]
    /// Deletes the entries above the floor up to `version`, which becomes the floor.
    func trimHistory(through version: UInt64) throws
}

/// What the history may lose: the entries at or below the lowest upload base over the
/// files still waited for — the files of bound sessions, and the files seen within the
/// retention period (`AppStore+Trimming.swift` says why the upload base is the bound).
///
/// With several processes, each passes its own bound files; the others' are waited for
/// through the seen times their heartbeats keep fresh.
package enum HistoryTrimmer {
    /// Trims what no file waited for still needs; returns the floor after.
    ///
    /// - Parameters:
    ///   - latest: the app's latest server version (nothing above it exists to trim).
    ///   - retentionSeconds: files not seen for longer are not waited for.
    ///   - bound: the files of this process's bound sessions: recorded as seen at `now`
    ///     (a session can stay bound longer than the retention period; once it ends,
    ///     the period counts from now, not from its bind) and always waited for.
    ///   - now: milliseconds since the epoch.
    @discardableResult
    package static func trim(_ unit: some HistoryTrimming, latest: UInt64, retentionSeconds: Int64, bound: Set<UInt64>,
                             now: Int64) throws -> UInt64 {
        let floor = try unit.historyFloor()
        var needed = latest
        var seenNow: [UInt64] = []
        for file in try unit.trimCandidates() {
            if bound.contains(file.ident) {
                seenNow.append(file.ident)
            } else if now - file.lastSeenAt > retentionSeconds * 1000 {
                continue
            }
            needed = min(needed, file.uploadBase ?? floor)
        }
        if !seenNow.isEmpty { try unit.recordSeen(seenNow, now: now) }
        guard needed > floor else { return floor }
        try unit.trimHistory(through: needed)
        return needed
    }
}
