import Foundation

/// The positions a collection change reports (see `RealmCollectionChange.update`):
/// deletions in the old collection, insertions in the new, modifications in the old.
/// Removing `deletions` from the old collection and inserting the new elements at
/// `insertions` gives the new collection.
struct IndexChanges: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// Every old element deleted and every new one inserted.
    static func replaceAll(oldCount: Int, newCount: Int) -> IndexChanges {
        IndexChanges(deletions: Array(0..<oldCount), insertions: Array(0..<newCount))
    }
}

/// The algorithms that turn two versions of a collection into `IndexChanges`.
enum CollectionDiff {
    /// Compares two sequences of distinct object keys. With `inKeyOrder`, both are
    /// ascending and nothing can move; otherwise an object whose position relative to
    /// the others changed is reported as deleted and inserted, keeping the longest run
    /// of objects whose relative order held. `modified` are the objects that changed.
    static func keys(old: [UInt64], new: [UInt64], inKeyOrder: Bool, modified: Set<UInt64>) -> IndexChanges {
        var changes = IndexChanges()
        // The common prefix and suffix are unchanged in place: only the middle needs maps.
        var prefix = 0
        let limit = Swift.min(old.count, new.count)
        while prefix < limit && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < limit - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let oldMiddle = prefix..<(old.count - suffix)
        let newMiddle = prefix..<(new.count - suffix)

        var removedOld = Set<Int>()   // old positions deleted or moved
        if !oldMiddle.isEmpty || !newMiddle.isEmpty {
            var oldPosition: [UInt64: Int] = [:]
            oldPosition.reserveCapacity(oldMiddle.count)
            for i in oldMiddle { oldPosition[old[i]] = i }
            var newPosition = Set<UInt64>()
            newPosition.reserveCapacity(newMiddle.count)
            for j in newMiddle { newPosition.insert(new[j]) }
            for i in oldMiddle where !newPosition.contains(old[i]) {
                changes.deletions.append(i)
                removedOld.insert(i)
            }
            // Objects in both, in new order, with their old positions.
            var common: [(old: Int, new: Int)] = []
            for j in newMiddle {
                if let i = oldPosition[new[j]] { common.append((i, j)) } else { changes.insertions.append(j) }
            }
            if !inKeyOrder && !common.isEmpty {
                let kept = longestIncreasingRun(common.map(\.old))
                for (position, pair) in common.enumerated() where !kept.contains(position) {
                    changes.deletions.append(pair.old)
                    changes.insertions.append(pair.new)
                    removedOld.insert(pair.old)
                }
            }
        }
        if !modified.isEmpty {
            for i in old.indices where modified.contains(old[i]) && !removedOld.contains(i) {
                changes.modifications.append(i)
            }
        }
        changes.deletions.sort()
        changes.insertions.sort()
        return changes
    }

    /// The positions (into `values`) of a longest strictly increasing subsequence.
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []          // positions: tails[k] ends a run of length k+1
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result = Set<Int>()
        var position = tails.last!
        while position >= 0 {
            result.insert(position)
            position = previous[position]
        }
        return result
    }

    /// Replays list operations on the old positions of a list. Returns nil when the
    /// operations do not fit a list of `oldCount` elements ending with `newCount`
    /// (the caller then reports a full replacement). `isModified(oldPosition)` adds
    /// modifications of elements that stayed (a changed linked object).
    static func list(oldCount: Int, newCount: Int, operations: [ChangeSummary.CollectionOp],
                     isModified: (Int) -> Bool) -> IndexChanges? {
        // Each entry is the element's old position, or -1 for an element added since.
        var entries = Array(0..<oldCount)
        var replaced = Set<Int>()
        for operation in operations {
            switch operation {
            case .insert(let i):
                guard i >= 0 && i <= entries.count else { return nil }
                entries.insert(-1, at: i)
            case .erase(let i):
                guard i >= 0 && i < entries.count else { return nil }
                entries.remove(at: i)
            case .set(let i):
                guard i >= 0 && i < entries.count else { return nil }
                if entries[i] >= 0 { replaced.insert(entries[i]) }
            case .move(let from, let to):
                guard from >= 0 && from < entries.count && to >= 0 && to < entries.count else { return nil }
                entries.remove(at: from)
                entries.insert(-1, at: to)
            case .clear:
                entries.removeAll()
            case .setChanged, .dictSet, .dictErase:
                return nil
            }
        }
        guard entries.count == newCount else { return nil }
        var changes = IndexChanges()
        var kept = [Bool](repeating: false, count: oldCount)
        for (position, entry) in entries.enumerated() {
            if entry < 0 { changes.insertions.append(position) } else { kept[entry] = true }
        }
        for i in 0..<oldCount {
            if !kept[i] {
                changes.deletions.append(i)
            } else if replaced.contains(i) || isModified(i) {
                changes.modifications.append(i)
            }
        }
        return changes
    }

    /// Compares two versions of a collection whose elements are distinct and kept in
    /// one order (a set): no element moves.
    static func ordered<T: Hashable>(old: [T], new: [T], isModified: (T) -> Bool) -> IndexChanges {
        let newSet = Set(new), oldSet = Set(old)
        var changes = IndexChanges()
        for (i, element) in old.enumerated() {
            if !newSet.contains(element) { changes.deletions.append(i) } else if isModified(element) { changes.modifications.append(i) }
        }
        for (j, element) in new.enumerated() where !oldSet.contains(element) { changes.insertions.append(j) }
        return changes
    }
}
