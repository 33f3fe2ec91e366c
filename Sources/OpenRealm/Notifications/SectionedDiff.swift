import Foundation

/// The index paths a sectioned results notification reports (see
/// `SectionedResultsChange.update`).
struct SectionedChanges: Equatable {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// Only what concerns the section of `key`: its rows at its old position
    /// (deletions, modifications, its deletion) and at its new one (insertions, its
    /// insertion), index paths into the whole sectioned results as they are.
    func restricted(toOld old: Int?, new: Int?) -> SectionedChanges {
        var result = SectionedChanges()
        if let old {
            result.deletions = deletions.filter { $0.section == old }
            result.modifications = modifications.filter { $0.section == old }
            if sectionsToDelete.contains(old) { result.sectionsToDelete.insert(old) }
        }
        if let new {
            result.insertions = insertions.filter { $0.section == new }
            if sectionsToInsert.contains(new) { result.sectionsToInsert.insert(new) }
        }
        return result
    }
}

/// Turns two evaluations of sectioned results into `SectionedChanges`.
///
/// Sections are matched by key: an old key without a new section is a deleted section
/// (its rows are not listed as deletions), a new key without an old one an inserted
/// section (its rows are listed as insertions). Inside a section present in both, the
/// elements are compared as a collection's are (`CollectionDiff.keys`: an element
/// whose position relative to the others changed is deleted and inserted), and a
/// modified element whose index path is not the same before and after is reported as
/// deleted and inserted rather than modified, as the Realm Swift SDK reports it.
enum SectionedDiff {
    /// - Parameters:
    ///   - old, new: the section keys and, per section, the identities of its elements.
    ///   - modified: the identities of the elements that changed.
    static func changes<Key: Hashable>(old: (keys: [Key], members: [[UInt64]]), new: (keys: [Key], members: [[UInt64]]),
                                       modified: Set<UInt64>) -> SectionedChanges {
        var changes = SectionedChanges()
        var oldIndex: [Key: Int] = [:]
        for (i, key) in old.keys.enumerated() { oldIndex[key] = i }
        var newKeys = Set<Key>()
        for key in new.keys { newKeys.insert(key) }
        for (i, key) in old.keys.enumerated() where !newKeys.contains(key) { changes.sectionsToDelete.insert(i) }

        for (j, key) in new.keys.enumerated() {
            let newIDs = new.members[j]
            guard let i = oldIndex[key] else {
                changes.sectionsToInsert.insert(j)
                changes.insertions += newIDs.indices.map { IndexPath(item: $0, section: j) }
                continue
            }
            let oldIDs = old.members[i]
            var diff = CollectionDiff.keys(old: oldIDs, new: newIDs, inKeyOrder: false, modified: modified)
            if !diff.modifications.isEmpty {
                var newPosition: [UInt64: Int] = [:]
                for (item, id) in newIDs.enumerated() where modified.contains(id) { newPosition[id] = item }
                var kept: [Int] = []
                for item in diff.modifications {
                    let to = newPosition[oldIDs[item]]!
                    if i == j && item == to {
                        kept.append(item)
                    } else {
                        diff.deletions.append(item)
                        diff.insertions.append(to)
                    }
                }
                diff.modifications = kept
            }
            changes.deletions += diff.deletions.map { IndexPath(item: $0, section: i) }
            changes.insertions += diff.insertions.map { IndexPath(item: $0, section: j) }
            changes.modifications += diff.modifications.map { IndexPath(item: $0, section: i) }
        }
        changes.deletions.sort()
        changes.insertions.sort()
        changes.modifications.sort()
        return changes
    }
}
