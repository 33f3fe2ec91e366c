import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// What an uploaded changeset is transformed against: the edits other clients'
/// changesets integrated after its base that can move its list indices
/// (`docs/CONFLICTS.md`, "Lists"), and the objects that went back to its origin whole
/// meanwhile.
enum ConcurrentEdits {
    /// The instructions other clients' changesets integrated after server version `after`
    /// (which the origin had not seen when it made its changeset) on the top-level
    /// objects `objects`, in server order per object, as they apply on the origin's copy:
    /// where the origin's own changesets were integrated in between, the others' list
    /// instructions before them are carried past them (they are transformed against the
    /// origin's list edits as it uploaded them, since its next changeset was made after
    /// those).
    ///
    /// Only instructions that can move list indices are returned (list edits, object
    /// erases, instructions on embedded objects); sets of top-level fields cannot.
    /// Instructions on different top-level objects never move each other's indices, so
    /// each object's are worked out on their own, from the versions that touched it
    /// (``HistoryIndex``).
    ///
    /// - Throws: ``SyncFailure`` `clientResetRequired` when the history after `after` was
    ///   trimmed.
    static func instructions(_ history: any HistoryReading, origin: UInt64, after: UInt64, through last: UInt64,
                             on objects: Set<WireObjectRef>, index: HistoryIndex,
                             memo: Memo = Memo()) throws -> [WireInstruction] {
        let floor = try checkedFloor(history, after: after)
        var out: [WireInstruction] = []
        for ref in objects {
            out += try objectRange(history, ref, origin: origin, after: after, through: last, floor: floor, index: index, memo: memo)
        }
        return out
    }

    /// What ``instructions(_:origin:after:through:on:index:memo:)`` computed
    /// for one origin, by object and the version it starts after: the instructions
    /// through a version.
    ///
    /// The history only grows, so an answer through one version is extended to a later
    /// one by the versions in between: the changesets of a client's upload, made at one
    /// server version, each need that range one version longer than the one before, and
    /// the ranges its own earlier changesets need nest inside. Computing each from
    /// scratch takes time growing with the square of how far the client lags.
    ///
    /// Each session keeps one for its file (``ServerSession/concurrentMemo``), across
    /// uploads and the parts of a large one. Versions written by a transaction that was
    /// then aborted are not history: after an abort the memos the transaction extended
    /// are cleared (``clear()``). A trimmed history is noticed before any answer is used
    /// (the floor is checked first). At most ``capacity`` ranges are kept, those
    /// extended last.
    ///
    /// Threading: used with the app's lock held.
    final class Memo {
        static let capacity = 64

        fileprivate struct Key: Hashable {
            let after: UInt64
            let object: WireObjectRef
        }

        fileprivate var ranges: [Key: (last: UInt64, out: [WireInstruction])] = [:]

        init() {}

        /// Forgets every answer.
        func clear() {
            ranges = [:]
        }

        /// Whether anything is kept (tests).
        var isEmpty: Bool { ranges.isEmpty }

        fileprivate func keep(_ key: Key, _ last: UInt64, _ out: [WireInstruction]) {
            ranges[key] = (last, out)
            if ranges.count > Self.capacity, let oldest = ranges.min(by: { $0.value.last < $1.value.last })?.key {
                ranges[oldest] = nil
            }
        }
    }

    /// The history floor, checked against `after` first: a range reaching below it cannot
    /// be worked out (nor taken from a memo made before the trim).
    private static func checkedFloor(_ history: any HistoryReading, after: UInt64) throws -> UInt64 {
        let floor = try history.historyFloor()
        if after > 0 && after < floor {
            throw SyncFailure(.clientResetRequired, "the changeset was made after server version \(after), but the history after it was trimmed up to version \(floor); reset the file")
        }
        return floor
    }

    /// One object's part of ``instructions(_:origin:after:through:on:index:memo:)``.
    private static func objectRange(_ history: any HistoryReading, _ ref: WireObjectRef, origin: UInt64, after: UInt64,
                                    through last: UInt64, floor: UInt64, index: HistoryIndex,
                                    memo: Memo) throws -> [WireInstruction] {
        let key = Memo.Key(after: after, object: ref)
        if let known = memo.ranges[key], known.last == last { return known.out }
        try index.cover(after: after, through: last, floor: floor, history)
        // A file that had integrated nothing (after 0) made its changes on its own new objects.
        var first = max(after, floor) + 1
        var out: [WireInstruction] = []
        // Taken out of the memo while it is extended, so that it is not copied.
        if let known = memo.ranges.removeValue(forKey: key), known.last < last {
            first = known.last + 1
            out = known.out
        }
        for item in index.items(ref, first, last) {
            guard item.origin != origin else {
                guard !item.uploadedEdits.isEmpty, !out.isEmpty else { continue }
                // The origin's edits as it held them once it had integrated `after`:
                // made earlier, they were carried past what it integrated since.
                var edits = item.uploadedEdits
                if let madeAt = item.madeAt, madeAt < after {
                    edits = ListTransform.transform(edits, against: try objectRange(
                        history, ref, origin: origin, after: madeAt, through: after, floor: floor, index: index, memo: memo))
                }
                out = ListTransform.transform(out, against: edits, incomingWinsTies: true)
                continue
            }
            out += item.changeset
        }
        memo.keep(key, last, out)
        return out
    }

    /// The objects the server sent back whole to client file `origin` (compensations of
    /// its own changesets, every collection cleared first) in server versions
    /// `after + 1 ... last`. Pending list edits of the origin made before such a copy
    /// arrived lost to its clears there (`docs/CONFLICTS.md`, "Lists").
    static func resentWhole(_ history: any HistoryReading, to origin: UInt64, after: UInt64,
                            through last: UInt64, index: HistoryIndex) throws -> Set<WireObjectRef> {
        let floor = try history.historyFloor()
        guard max(after, floor) < last else { return [] }
        try index.cover(after: after, through: last, floor: floor, history)
        return index.resentObjects(to: origin, max(after, floor) + 1, last)
    }
}
