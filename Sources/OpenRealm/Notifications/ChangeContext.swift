import Foundation
import ORCore

/// Everything one delivery needs to compute registrations' changes: the summary of
/// the commits, the transaction that sees the new version (and the old one when it is
/// still open), the schema, and caches shared by the registrations of one delivery.
final class ChangeContext {
    let summary: ChangeSummary
    /// Reads the new version.
    let txn: OpaquePointer
    /// Reads the version the summary starts from, when it is still open.
    let oldTxn: OpaquePointer?
    let schema: StoredSchema
    /// Whether the changes end with a commit of the delivering realm itself.
    let isLocalCommit: Bool
    private(set) lazy var graph = LinkGraph(schema)
    private var deepCache: [UInt32: Set<UInt64>] = [:]
    private var pathCache: [[[KeyPathStep]]: Set<UInt64>] = [:]

    /// How many links deep a change still counts as a change of the object linking to it.
    static let linkDepth = 4

    init(summary: ChangeSummary, txn: OpaquePointer, oldTxn: OpaquePointer?, schema: StoredSchema, isLocalCommit: Bool) {
        self.summary = summary
        self.txn = txn
        self.oldTxn = oldTxn
        self.schema = schema
        self.isLocalCommit = isLocalCommit
    }

    /// The objects of `table` that changed, or whose linked objects (up to `linkDepth`
    /// links away) changed.
    func deepModified(table: UInt32) -> Set<UInt64> {
        if let cached = deepCache[table] { return cached }
        let reachable = graph.reachable(from: table, depth: Self.linkDepth)
        var result = Set(summary[table: table].modified.keys)
        // Start from every changed object a link path from `table` can reach, and walk the
        // links backwards: whoever links to a changed object changed, up to the depth.
        var frontier: [ObjectRef] = []
        var seen = Set<ObjectRef>()
        for source in reachable {
            for key in summary[table: source].modified.keys {
                let ref = ObjectRef(table: source, key: key)
                seen.insert(ref)
                frontier.append(ref)
            }
        }
        var depth = 0
        while !frontier.isEmpty && depth < Self.linkDepth {
            depth += 1
            var next: [ObjectRef] = []
            for ref in frontier {
                for edge in graph.incoming(ref.table) where reachable.contains(edge.table) {
                    for origin in Backlinks.keys(txn, ref, originTable: edge.table, originColumn: edge.column) {
                        let found = ObjectRef(table: edge.table, key: origin)
                        guard seen.insert(found).inserted else { continue }
                        if found.table == table { result.insert(origin) }
                        next.append(found)
                    }
                }
            }
            frontier = next
        }
        deepCache[table] = result
        return result
    }

    /// The objects of the first step's class that changed along one of `paths`: a
    /// property on the path changed, or a link on it now leads to an object that did.
    func modified(paths: [[KeyPathStep]]) -> Set<UInt64> {
        if let cached = pathCache[paths] { return cached }
        var result = Set<UInt64>()
        for path in paths { result.formUnion(modified(path: path)) }
        pathCache[paths] = result
        return result
    }

    private func modified(path: [KeyPathStep]) -> Set<UInt64> {
        var beyond = Set<UInt64>()   // objects of the next step's class that changed along the rest
        for (position, step) in path.enumerated().reversed() {
            var here = Set<UInt64>()
            switch step {
            case let .property(table, column, _):
                for (key, columns) in summary[table: table].modified where columns.contains(column) { here.insert(key) }
                if position + 1 < path.count {
                    let target = path[position + 1].table
                    for key in beyond {
                        here.formUnion(Backlinks.keys(txn, ObjectRef(table: target, key: key), originTable: table, originColumn: column))
                    }
                }
            case let .linkingObjects(table, originTable, originColumn, originCollection):
                // The objects linking here changed (their link did), or changed along the rest.
                var origins = beyond
                for (key, columns) in summary[table: originTable].modified where columns.contains(originColumn) { origins.insert(key) }
                for origin in origins {
                    for target in Backlinks.targets(txn, table: originTable, key: origin, column: originColumn, collection: originCollection)
                    where target.table == table {
                        here.insert(target.key)
                    }
                }
            }
            beyond = here
        }
        return beyond
    }
}
