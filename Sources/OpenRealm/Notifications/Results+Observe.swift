import Foundation
import ORCore

/// The registration of a `Results` observer: the keys it last reported, and how to
/// find the new ones (see `ResultsEvaluationPlan`). When only the queried class's own
/// properties are read and nothing is sorted, only the objects the changes touched
/// are evaluated again; otherwise the query runs again only when a class it depends
/// on changed, and the key lists are compared.
final class ResultsRegistration<Element: RealmCollectionValue>: IndexedCollectionRegistration<Results<Element>> {
    private let plan: ResultsEvaluationPlan
    private var keys: [UInt64] = []
    /// The query compiled once more, for evaluating only the changed objects.
    private var probe: OpaquePointer?

    override init(_ results: Results<Element>, filter: KeyPathFilter?, block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) {
        plan = results.core.evaluationPlan
        super.init(results, filter: filter, block: block)
    }

    deinit { orc_query_free(probe) }

    override func deliverInitial(txn: OpaquePointer) {
        setKeys(observed.core.keys)
        deliver(.initial(observed))
    }

    override func rebase(_ context: ChangeContext) {
        setKeys(observed.core.keys)
    }

    override func deliverWithoutLog(txn: OpaquePointer) {
        deliverUpdate(rerun([]))
    }

    override func deliverChange(_ context: ChangeContext) {
        let core = observed.core
        guard let table = core.table else {
            // The class is not stored (yet): there is nothing to report.
            setKeys([])
            return
        }
        let summary = context.summary
        let bound = core.bound
        let queryColumns = Set(plan.properties.compactMap { name in
            bound.flatMap { bound in bound.info.index(ofProperty: name).map { bound.columns[$0] } }
        })
        let modified = filter.map { $0.modified(context) } ?? context.deepModified(table: table)
        let changes: IndexChanges
        if summary.schemaChanged || (plan.rerun == .anyChange && summary.touchesObjects) {
            changes = rerun(modified)
        } else if plan.rerun == .anyChange || !mayChangeMembership(summary[table: table], queryColumns) {
            // The same objects in the same order: only modifications to find.
            changes = IndexChanges(modifications: positions(of: modified, in: keys))
        } else if plan.incremental, let incremental = incrementalChanges(context, table, queryColumns, modified) {
            changes = incremental
        } else {
            changes = rerun(modified)
        }
        deliverUpdate(changes)
    }

    /// Runs the query again and compares the key lists.
    private func rerun(_ modified: Set<UInt64>) -> IndexChanges {
        let newKeys = observed.core.keys
        let changes = CollectionDiff.keys(old: keys, new: newKeys, inKeyOrder: plan.inKeyOrder, modified: modified)
        setKeys(newKeys)
        return changes
    }

    private func setKeys(_ newKeys: [UInt64]) {
        keys = newKeys
        positionMap = nil
    }

    /// Where each key is in `keys`, built when first needed after the keys changed.
    private var positionMap: [UInt64: Int]?

    /// The positions in `keys` of the `wanted` objects that are in it, ascending.
    private func positions(of wanted: Set<UInt64>, in keys: [UInt64]) -> [Int] {
        guard !wanted.isEmpty, !keys.isEmpty else { return [] }
        var result: [Int] = []
        if wanted.count > keys.count / 8 {
            for (index, key) in keys.enumerated() where wanted.contains(key) { result.append(index) }
            return result
        }
        if plan.inKeyOrder {
            for key in wanted { if let index = Self.search(keys, key) { result.append(index) } }
        } else {
            if positionMap == nil {
                var map: [UInt64: Int] = [:]
                map.reserveCapacity(keys.count)
                for (index, key) in keys.enumerated() { map[key] = index }
                positionMap = map
            }
            for key in wanted { if let index = positionMap![key] { result.append(index) } }
        }
        return result.sorted()
    }

    /// The position of `key` in ascending `keys`, nil when absent.
    private static func search(_ keys: [UInt64], _ key: UInt64) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }

    /// Whether the changes to the results' class can change which objects match or
    /// their order: objects were created or erased, or a property the query reads changed.
    private func mayChangeMembership(_ changes: ChangeSummary.TableChanges, _ queryColumns: Set<UInt16>) -> Bool {
        if !changes.created.isEmpty || !changes.erased.isEmpty { return true }
        return changes.modified.values.contains { !$0.isDisjoint(with: queryColumns) }
    }

    /// The change from the old keys and the objects the changes touched, for a query
    /// of the object's own properties in key order: objects that no longer exist or
    /// match leave, objects that now match (new or changed) enter. Costs a binary
    /// search per touched object, not a pass over the results. Nil when the query
    /// cannot be evaluated on its own (the caller runs it whole).
    private func incrementalChanges(_ context: ChangeContext, _ table: UInt32, _ queryColumns: Set<UInt16>,
                                    _ modified: Set<UInt64>) -> IndexChanges? {
        let changes = context.summary[table: table]
        var touched = changes.created
        for (key, columns) in changes.modified where !columns.isDisjoint(with: queryColumns) { touched.insert(key) }
        touched.subtract(changes.erased)
        guard let matching = evaluate(touched.sorted(), context.txn, table) else { return nil }
        let matchingSet = Set(matching)
        let old = keys
        var leaving = Set<UInt64>()
        var deletions: [Int] = []
        for key in changes.erased.union(touched) where !matchingSet.contains(key) {
            if let index = Self.search(old, key) {
                deletions.append(index)
                leaving.insert(key)
            }
        }
        let entering = matching.filter { Self.search(old, $0) == nil }
        // Merge: old keys minus those leaving, plus those entering (all ascending).
        var newKeys: [UInt64]
        if leaving.isEmpty && entering.isEmpty {
            newKeys = old
        } else {
            let removed = leaving.sorted()
            newKeys = []
            newKeys.reserveCapacity(old.count - removed.count + entering.count)
            var r = 0, e = 0
            for key in old {
                if r < removed.count && removed[r] == key { r += 1; continue }
                while e < entering.count && entering[e] < key { newKeys.append(entering[e]); e += 1 }
                newKeys.append(key)
            }
            newKeys.append(contentsOf: entering[e...])
        }
        let insertions = entering.compactMap { Self.search(newKeys, $0) }
        let modifications = modified.compactMap { key -> Int? in
            guard !leaving.contains(key), let index = Self.search(old, key) else { return nil }
            return index
        }
        if !(leaving.isEmpty && entering.isEmpty) {
            setKeys(newKeys)
            observed.core.installKeys(newKeys)
        }
        return IndexChanges(deletions: deletions.sorted(), insertions: insertions, modifications: modifications.sorted())
    }

    /// Which of `candidates` (ascending) match the query now.
    private func evaluate(_ candidates: [UInt64], _ txn: OpaquePointer, _ table: UInt32) -> [UInt64]? {
        if candidates.isEmpty { return [] }
        for attempt in 0..<2 {
            if probe == nil {
                guard let bytes = try? observed.core.programBytes() else { return nil }
                var compiled: OpaquePointer?
                let status = bytes.withUnsafeBytes { orc_query_compile(txn, table, $0.baseAddress, $0.count, &compiled) }
                guard status == ORC_OK else { return nil }
                probe = compiled
            }
            let setStatus = candidates.withUnsafeBufferPointer { orc_query_set_domain(probe, $0.baseAddress, $0.count) }
            guard setStatus == ORC_OK else { return nil }
            var out = orc_keys()
            defer { orc_keys_free(&out) }
            let status = orc_query_run(txn, probe, &out)
            if status == ORC_OK {
                return out.count == 0 ? [] : Array(UnsafeBufferPointer(start: out.keys, count: out.count))
            }
            orc_query_free(probe)
            probe = nil
            if status != ORC_ERR_SCHEMA || attempt == 1 { return nil }
        }
        return nil
    }
}

extension Results: _ObservableCollection {
    public typealias _ObservedElement = Element
    public var _observedRealm: Realm? { core.realm }
    public var _observedName: String { "Results<\(core.className)>" }

    public func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> AnyObject? {
        let core = self.core
        guard let rebound = realm === core.realm ? core : core.rebound(to: realm) else { return nil }
        return ResultsRegistration(Results(core: rebound), filter: KeyPathFilter(keyPaths, className: core.className, realm: realm), block: block)
    }
}
