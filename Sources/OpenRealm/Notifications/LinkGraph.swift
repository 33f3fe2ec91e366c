import Foundation
import ORCore

/// The links between classes the stored schema allows: which columns of which
/// classes can link to objects of a class. Mixed properties can link to any class.
struct LinkGraph {
    /// A column of `table` that holds links (to `target`, or to any class for mixed values).
    struct Edge: Hashable {
        let table: UInt32
        let column: UInt16
        let collection: orc_collection
        /// The linked class; nil for a mixed property.
        let target: UInt32?

        static func == (a: Edge, b: Edge) -> Bool { a.table == b.table && a.column == b.column }
        func hash(into hasher: inout Hasher) { hasher.combine(table); hasher.combine(column) }
    }

    private var outgoingByTable: [UInt32: [Edge]] = [:]
    private var incomingByTarget: [UInt32: [Edge]] = [:]
    private var mixed: [Edge] = []
    private let allTables: [UInt32]

    init(_ schema: StoredSchema) {
        allTables = schema.classes.map(\.table)
        for entry in schema.classes {
            for property in entry.properties {
                if property.type == ORC_TYPE_LINK {
                    let edge = Edge(table: entry.table, column: property.column, collection: property.collection, target: property.linkTable)
                    outgoingByTable[entry.table, default: []].append(edge)
                    incomingByTarget[property.linkTable, default: []].append(edge)
                } else if property.type == ORC_TYPE_MIXED {
                    let edge = Edge(table: entry.table, column: property.column, collection: property.collection, target: nil)
                    outgoingByTable[entry.table, default: []].append(edge)
                    mixed.append(edge)
                }
            }
        }
    }

    /// The columns that can link to objects of `table`.
    func incoming(_ table: UInt32) -> [Edge] { (incomingByTarget[table] ?? []) + mixed }

    /// The link columns of `table`.
    func outgoing(_ table: UInt32) -> [Edge] { outgoingByTable[table] ?? [] }

    /// The classes reachable from `table` through at most `depth` links (`table` included).
    func reachable(from table: UInt32, depth: Int) -> Set<UInt32> {
        var result: Set<UInt32> = [table]
        var frontier: Set<UInt32> = [table]
        for _ in 0..<depth {
            var next: Set<UInt32> = []
            for source in frontier {
                for edge in outgoing(source) {
                    let targets = edge.target.map { [$0] } ?? allTables
                    for target in targets where result.insert(target).inserted { next.insert(target) }
                }
            }
            if next.isEmpty { break }
            frontier = next
        }
        return result
    }
}

/// One step of a notification key path (`"owner.name"` is two steps): from the
/// objects of `table`, either a stored property (`column`) or a `LinkingObjects`
/// property (the objects of `originTable` whose `originColumn` links here).
enum KeyPathStep: Hashable {
    case property(table: UInt32, column: UInt16, collection: orc_collection)
    case linkingObjects(table: UInt32, originTable: UInt32, originColumn: UInt16, originCollection: orc_collection)

    var table: UInt32 {
        switch self {
        case .property(let table, _, _), .linkingObjects(let table, _, _, _): return table
        }
    }

    static func == (a: KeyPathStep, b: KeyPathStep) -> Bool {
        switch (a, b) {
        case let (.property(t1, c1, _), .property(t2, c2, _)): return t1 == t2 && c1 == c2
        case let (.linkingObjects(t1, o1, c1, _), .linkingObjects(t2, o2, c2, _)): return t1 == t2 && o1 == o2 && c1 == c2
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case let .property(table, column, _): hasher.combine(0); hasher.combine(table); hasher.combine(column)
        case let .linkingObjects(table, origin, column, _): hasher.combine(1); hasher.combine(table); hasher.combine(origin); hasher.combine(column)
        }
    }
}

/// Turns notification key paths (`"owner.name"`, `\Dog.owner?.name`) into steps.
enum KeyPathSteps {
    /// The steps of a dotted key path from class `className`.
    ///
    /// - Throws: `.invalidArgument` naming the property that does not exist, or a step
    ///   past a property that is not a link.
    static func parse(_ path: String, from className: String, schema: StoredSchema) throws(RealmError) -> [KeyPathStep] {
        var steps: [KeyPathStep] = []
        var current = className
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, name) in names.enumerated() {
            guard let entry = schema[current] else {
                throw RealmError(.invalidArgument, "Invalid key path '\(path)': class '\(current)' is not in the realm.")
            }
            let isLast = position == names.count - 1
            if let property = entry.property(named: ObjectTypeInfo.named(current)?.columnName(ofProperty: name) ?? name) {
                steps.append(.property(table: entry.table, column: property.column, collection: property.collection))
                if isLast { break }
                guard property.type == ORC_TYPE_LINK, let target = schema.className(ofTable: property.linkTable) else {
                    throw RealmError(.invalidArgument, "Invalid key path '\(path)': property '\(current).\(name)' is not a link, so '\(names[position + 1])' cannot follow it.")
                }
                current = target
                continue
            }
            if let info = ObjectTypeInfo.named(current), let index = info.index(ofProperty: name),
               info.properties[index].isLinkingObjects,
               let originType = info.properties[index].descriptor.target,
               let originName = info.properties[index].originProperty,
               let originEntry = schema[originType.className()],
               let originProperty = originEntry.property(named: ObjectTypeInfo.of(originType).columnName(ofProperty: originName)) {
                steps.append(.linkingObjects(table: entry.table, originTable: originEntry.table,
                                             originColumn: originProperty.column, originCollection: originProperty.collection))
                current = originEntry.name
                continue
            }
            throw RealmError(.invalidArgument, "Invalid key path '\(path)': property '\(name)' does not exist on '\(current)'.")
        }
        return steps
    }
}
