import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// The part of an app's history that uploads are transformed against, decoded once and
/// indexed by top-level object (``ConcurrentEdits/instructions(_:origin:after:through:on:index:memo:)``).
///
/// For each version it covers, it keeps the changeset's instructions that can move list
/// indices, and the origin's list edits as uploaded, under the top-level object they act
/// on; and, per client file, the objects the server sent back whole to it. A changeset
/// of a client far behind needs only the versions that touched its own objects: looking
/// them up costs nothing for the others, and no history entry is decoded twice.
///
/// It covers the versions `from + 1 ... through`, read from the store as queries need
/// them (down to the lowest base asked for, up to the newest version). History is only
/// appended, and trimmed below the floor: versions at or below a new floor are dropped
/// when it is noticed. A write transaction that read versions it then aborted must
/// ``forget(after:)`` them.
///
/// Threading: used with the app's lock held.
final class HistoryIndex {
    /// What one version did to one top-level object.
    struct Item {
        let version: UInt64
        let origin: UInt64
        /// The server version the origin made the changeset at.
        let madeAt: UInt64?
        /// The changeset's instructions on the object that can move list indices.
        var changeset: [WireInstruction] = []
        /// The origin's list edits of the object, as it uploaded them.
        var uploadedEdits: [WireInstruction] = []
    }

    private(set) var from: UInt64 = 0
    private(set) var through: UInt64 = 0
    private var isEmpty = true
    private var byObject: [WireObjectRef: [Item]] = [:]
    /// Per client file, the versions whose compensation sent objects back whole, and those objects.
    private var resent: [UInt64: [(version: UInt64, objects: Set<WireObjectRef>)]] = [:]

    init() {}

    /// The versions the index holds (tests).
    var coveredVersions: ClosedRange<UInt64>? { isEmpty || from >= through ? nil : (from + 1)...through }

    /// Makes the index cover `after + 1 ... last` (above the history floor `floor`).
    ///
    /// - Throws: ``SyncFailure`` `clientResetRequired` when a version is missing.
    func cover(after: UInt64, through last: UInt64, floor: UInt64, _ history: any HistoryReading) throws {
        let low = max(after, floor)
        if !isEmpty && from < floor { dropThrough(floor) }
        if isEmpty {
            guard low < last else { return }
            try read(low + 1, last, history, prepending: false)
            from = low
            through = last
            isEmpty = false
            return
        }
        if low < from {
            try read(low + 1, from, history, prepending: true)
            from = low
        }
        if last > through {
            try read(through + 1, last, history, prepending: false)
            through = last
        }
    }

    /// The object's items of versions `first ... last`, in version order.
    func items(_ ref: WireObjectRef, _ first: UInt64, _ last: UInt64) -> ArraySlice<Item> {
        guard first <= last, let all = byObject[ref] else { return [] }
        var lo = 0
        var hi = all.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if all[mid].version < first { lo = mid + 1 } else { hi = mid }
        }
        var end = lo
        while end < all.count && all[end].version <= last { end += 1 }
        return all[lo..<end]
    }

    /// The objects sent back whole to client file `origin` in versions `first ... last`.
    func resentObjects(to origin: UInt64, _ first: UInt64, _ last: UInt64) -> Set<WireObjectRef> {
        var out: Set<WireObjectRef> = []
        for entry in resent[origin] ?? [] where entry.version >= first && entry.version <= last {
            out.formUnion(entry.objects)
        }
        return out
    }

    /// Forgets the versions after `version` (they were read in a write transaction that
    /// was aborted).
    func forget(after version: UInt64) {
        guard !isEmpty, through > version else { return }
        keepVersions { $0 <= version }
        through = max(from, version)
    }

    private func dropThrough(_ floor: UInt64) {
        keepVersions { $0 > floor }
        from = floor
        if through <= floor { isEmpty = true }
    }

    /// Keeps only the items and resent-object entries of the versions `keep` accepts.
    private func keepVersions(_ keep: (UInt64) -> Bool) {
        for (ref, items) in byObject {
            let kept = items.filter { keep($0.version) }
            byObject[ref] = kept.isEmpty ? nil : kept
        }
        for (origin, entries) in resent {
            let kept = entries.filter { keep($0.version) }
            resent[origin] = kept.isEmpty ? nil : kept
        }
    }

    /// Whether an instruction can move the index of a list instruction.
    static func movesListIndices(_ instruction: WireInstruction) -> Bool {
        if ListTransform.list(of: instruction) != nil { return true }
        if case .eraseObject = instruction { return true }
        return !(instruction.objectPath?.path.isEmpty ?? true)
    }

    private func read(_ first: UInt64, _ last: UInt64, _ history: any HistoryReading, prepending: Bool) throws {
        guard first <= last else { return }
        var objects: [WireObjectRef: [Item]] = [:]
        var compensations: [UInt64: [(version: UInt64, objects: Set<WireObjectRef>)]] = [:]
        for version in first...last {
            guard let entry = try history.historyEntry(version) else {
                throw SyncFailure(.clientResetRequired, "the history after server version \(first - 1) was trimmed; reset the file")
            }
            // One item per object this version touched (each object's items stay in version order).
            var here: [WireObjectRef: Item] = [:]
            let fresh = Item(version: version, origin: entry.originFileIdent, madeAt: entry.originServerVersion)
            if !entry.changeset.isEmpty {
                for instruction in try WireChangeset(decoding: entry.changeset).instructions where Self.movesListIndices(instruction) {
                    guard let ref = instruction.topLevelObject else { continue }
                    here[ref, default: fresh].changeset.append(instruction)
                }
            }
            if !entry.uploadedListEdits.isEmpty {
                for instruction in try WireChangeset(decoding: entry.uploadedListEdits).instructions {
                    guard let ref = instruction.topLevelObject else { continue }
                    here[ref, default: fresh].uploadedEdits.append(instruction)
                }
            }
            for (ref, item) in here { objects[ref, default: []].append(item) }
            if !entry.compensation.isEmpty {
                // An object sent whole starts with its create (and clears its collections);
                // a write to a property or a list alike made before it arrived lost to it.
                var whole: Set<WireObjectRef> = []
                for instruction in try WireChangeset(decoding: entry.compensation).instructions {
                    switch instruction {
                    case .createObject, .clearCollection:
                        if let ref = instruction.topLevelObject { whole.insert(ref) }
                    default:
                        break
                    }
                }
                if !whole.isEmpty { compensations[entry.originFileIdent, default: []].append((version, whole)) }
            }
        }
        for (ref, items) in objects {
            if prepending { byObject[ref] = items + (byObject[ref] ?? []) } else { byObject[ref, default: []].append(contentsOf: items) }
        }
        for (origin, entries) in compensations {
            if prepending { resent[origin] = entries + (resent[origin] ?? []) } else { resent[origin, default: []].append(contentsOf: entries) }
        }
    }
}
