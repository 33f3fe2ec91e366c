import Foundation
import OpenRealmWire

/// What an uploaded changeset is transformed against: the list instructions other
/// clients' changesets integrated after its base (`docs/CONFLICTS.md`, "Lists").
extension SyncConnection {
    /// The instructions other clients' changesets integrated after server version `after`
    /// (which the origin had not seen when it made its changeset) on the top-level
    /// objects `objects`, in server order, as they apply on the origin's copy: where the
    /// origin's own changesets were integrated in between, the others' list instructions
    /// before them are carried past them (they are transformed against the origin's list
    /// edits as it uploaded them, since its next changeset was made after those).
    ///
    /// Only instructions that can move list indices are returned (list edits, object
    /// erases, instructions on embedded objects); sets of top-level fields cannot.
    /// Instructions on different top-level objects never move each other's indices, so
    /// only those on `objects` are worked out.
    ///
    /// - Throws: ``SyncFailure`` `clientResetRequired` when the history after `after` was
    ///   trimmed.
    static func concurrentInstructions(_ txn: StoreTransaction, origin: UInt64, after: UInt64, through last: UInt64,
                                       on objects: Set<WireObjectRef>,
                                       memo: ConcurrentMemo = ConcurrentMemo()) throws -> [WireInstruction] {
        let range = try concurrentRange(txn, origin: origin, after: after, through: last, memo: memo)
        var out: [WireInstruction] = []
        for ref in objects { out += range.byObject[ref] ?? [] }
        return out
    }

    /// The others' instructions of one range, by the top-level object they act on.
    struct ConcurrentRange {
        var byObject: [WireObjectRef: [WireInstruction]] = [:]
    }

    /// What ``concurrentInstructions(_:origin:after:through:on:memo:)`` and
    /// ``resentWhole(_:to:after:through:memo:)`` computed for one origin, by the version
    /// they start after: the answers through a version.
    ///
    /// The history only grows, so an answer through one version is extended to a later
    /// one by reading the versions in between: the changesets of a client's upload,
    /// made at one server version, each need that range one version longer than the one
    /// before, and the ranges its own earlier changesets need nest inside. Computing each
    /// from scratch takes time growing with the square of how far the client lags.
    ///
    /// Each session keeps one for its file (``SyncSession/concurrentMemo``), across
    /// uploads and the parts of a large one, so a backlog is read once. Versions written
    /// by a transaction that was then aborted are not history: after an abort the
    /// memos the transaction extended are cleared (``clear()``). A trimmed history is
    /// noticed before any answer is used (the floor is checked first). At most
    /// ``capacity`` starting versions are kept, those extended last.
    ///
    /// Threading: used with the app's lock held.
    final class ConcurrentMemo {
        static let capacity = 8

        fileprivate var ranges: [UInt64: (last: UInt64, out: ConcurrentRange)] = [:]
        fileprivate var resent: [UInt64: (last: UInt64, out: Set<WireObjectRef>)] = [:]

        init() {}

        /// Forgets every answer.
        func clear() {
            ranges = [:]
            resent = [:]
        }

        /// Whether anything is kept (tests).
        var isEmpty: Bool { ranges.isEmpty && resent.isEmpty }

        fileprivate func keep(_ after: UInt64, _ last: UInt64, _ out: ConcurrentRange) {
            ranges[after] = (last, out)
            if ranges.count > Self.capacity, let oldest = ranges.min(by: { $0.value.last < $1.value.last })?.key {
                ranges[oldest] = nil
            }
        }

        fileprivate func keep(_ after: UInt64, _ last: UInt64, _ out: Set<WireObjectRef>) {
            resent[after] = (last, out)
            if resent.count > Self.capacity, let oldest = resent.min(by: { $0.value.last < $1.value.last })?.key {
                resent[oldest] = nil
            }
        }
    }

    /// Whether a concurrent instruction can move the index of a list instruction.
    private static func movesListIndices(_ instruction: WireInstruction) -> Bool {
        if ListTransform.list(of: instruction) != nil { return true }
        if case .eraseObject = instruction { return true }
        return !(instruction.objectPath?.path.isEmpty ?? true)
    }

    /// The history floor, checked against `after` first: a range reaching below it cannot
    /// be worked out (nor taken from a memo made before the trim).
    private static func checkedFloor(_ txn: StoreTransaction, after: UInt64) throws -> UInt64 {
        let floor = try AppStore.historyFloor(txn)
        if after > 0 && after < floor {
            throw SyncFailure(.clientResetRequired, "the changeset was made after server version \(after), but the history after it was trimmed up to version \(floor); reset the file")
        }
        return floor
    }

    private static func concurrentRange(_ txn: StoreTransaction, origin: UInt64, after: UInt64, through last: UInt64,
                                        memo: ConcurrentMemo) throws -> ConcurrentRange {
        let floor = try checkedFloor(txn, after: after)
        if let known = memo.ranges[after], known.last == last { return known.out }
        // A file that had integrated nothing (after 0) made its changes on its own new objects.
        var first = max(after, floor) + 1
        var out = ConcurrentRange()
        // Taken out of the memo while it is extended, so that it is not copied.
        if let known = memo.ranges.removeValue(forKey: after), known.last < last {
            first = known.last + 1
            out = known.out
        }
        if first <= last {
            for version in first...last {
                guard let entry = try AppStore.historyEntry(txn, version) else {
                    throw SyncFailure(.clientResetRequired, "the history after server version \(after) was trimmed; reset the file")
                }
                guard entry.originFileIdent != origin else {
                    if !entry.uploadedListEdits.isEmpty, !out.byObject.isEmpty {
                        try carry(&out, past: entry, origin: origin, after: after, txn: txn, memo: memo)
                    }
                    continue
                }
                for instruction in try WireChangeset(decoding: entry.changeset).instructions where movesListIndices(instruction) {
                    guard let ref = instruction.topLevelObject else { continue }
                    out.byObject[ref, default: []].append(instruction)
                }
            }
        }
        memo.keep(after, last, out)
        return out
    }

    /// Carries the others' instructions in `out` past the origin's own changeset of
    /// history `entry`: they are transformed against its list edits as the origin held
    /// them once it had integrated `after` (made earlier, they were carried past what it
    /// integrated since).
    private static func carry(_ out: inout ConcurrentRange, past entry: HistoryEntry, origin: UInt64, after: UInt64,
                              txn: StoreTransaction, memo: ConcurrentMemo) throws {
        var edits: [WireObjectRef: [WireInstruction]] = [:]
        for instruction in try WireChangeset(decoding: entry.uploadedListEdits).instructions {
            guard let ref = instruction.topLevelObject, out.byObject[ref] != nil else { continue }
            edits[ref, default: []].append(instruction)
        }
        guard !edits.isEmpty else { return }
        var madeEarlier: ConcurrentRange?
        if let madeAt = entry.originServerVersion, madeAt < after {
            madeEarlier = try concurrentRange(txn, origin: origin, after: madeAt, through: after, memo: memo)
        }
        for (ref, var objectEdits) in edits {
            if let against = madeEarlier?.byObject[ref] {
                objectEdits = ListTransform.transform(objectEdits, against: against)
            }
            guard let others = out.byObject.removeValue(forKey: ref) else { continue }
            out.byObject[ref] = ListTransform.transform(others, against: objectEdits, incomingWinsTies: true)
        }
    }

    /// The objects the server sent back whole to client file `origin` (compensations of
    /// its own changesets, every collection cleared first) in server versions
    /// `after + 1 ... last`. Pending list edits of the origin made before such a copy
    /// arrived lost to its clears there (`docs/CONFLICTS.md`, "Lists").
    static func resentWhole(_ txn: StoreTransaction, to origin: UInt64, after: UInt64,
                            through last: UInt64, memo: ConcurrentMemo = ConcurrentMemo()) throws -> Set<WireObjectRef> {
        var first = max(after, try AppStore.historyFloor(txn)) + 1
        var out: Set<WireObjectRef> = []
        if let known = memo.resent.removeValue(forKey: after), known.last <= last {
            first = max(first, known.last + 1)
            out = known.out
        }
        if first <= last {
            for version in first...last {
                guard let entry = try AppStore.historyEntry(txn, version), entry.originFileIdent == origin,
                      !entry.compensation.isEmpty else { continue }
                for instruction in try WireChangeset(decoding: entry.compensation).instructions {
                    if case .clearCollection = instruction, let ref = instruction.topLevelObject { out.insert(ref) }
                }
            }
        }
        memo.keep(after, last, out)
        return out
    }
}
