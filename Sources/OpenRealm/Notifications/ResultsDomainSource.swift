import Foundation
import ORCore

/// The collection property a `Results` ranges over (`list.filter(...)`,
/// `linkingObjects.sorted(...)`), named so it can be read in another realm: the
/// owner's class and key and the property's name.
struct ResultsDomainSource: @unchecked Sendable {
    let ownerType: ObjectBase.Type
    let ownerKey: UInt64
    let propertyName: String

    /// The domain of the same collection, read through whichever realm evaluates it.
    var domain: ResultsDomain {
        { [self] realm in keys(in: realm) }
    }

    /// The keys of the collection's objects in `realm` (empty when the owner is gone).
    func keys(in realm: Realm) -> [UInt64] {
        guard let bound = realm._bindOrNil(ownerType), let index = bound.info.index(ofProperty: propertyName) else { return [] }
        let txn = realm.txn
        guard orc_obj_exists(txn, bound.table, ownerKey) else { return [] }
        let property = bound.info.properties[index]
        if property.isLinkingObjects {
            guard let originType = property.descriptor.target, let originName = property.originProperty,
                  let origin = realm._bindOrNil(originType), let originIndex = origin.info.index(ofProperty: originName) else { return [] }
            return Backlinks.keys(txn, ObjectRef(table: bound.table, key: ownerKey),
                                  originTable: origin.table, originColumn: origin.columns[originIndex])
        }
        return Backlinks.targets(txn, table: bound.table, key: ownerKey, column: bound.columns[index],
                                 collection: property.descriptor.collection).map(\.key)
    }
}

/// Collections that can name themselves as a `ResultsDomainSource`.
protocol ResultsDomainProviding {
    var resultsDomainSource: ResultsDomainSource? { get }
}

extension CollectionLocation {
    var domainSource: ResultsDomainSource {
        ResultsDomainSource(ownerType: type(of: parent), ownerKey: key, propertyName: propertyName)
    }
}

extension List: ResultsDomainProviding {
    var resultsDomainSource: ResultsDomainSource? { location?.domainSource }
}

extension MutableSet: ResultsDomainProviding {
    var resultsDomainSource: ResultsDomainSource? { location?.domainSource }
}

extension LinkingObjects: ResultsDomainProviding {
    var resultsDomainSource: ResultsDomainSource? {
        guard let owner, owner._realm != nil, let bound = owner._bound,
              let index = bound.info.properties.firstIndex(where: { $0.isLinkingObjects && $0.originProperty == propertyName && $0.descriptor.target.map(ObjectIdentifier.init) == ObjectIdentifier(Element.self) })
        else { return nil }
        return ResultsDomainSource(ownerType: type(of: owner), ownerKey: owner._key, propertyName: bound.info.properties[index].name)
    }
}

extension ResultsCore {
    /// The same results read through another realm of the file; nil when the domain
    /// cannot be named there.
    func rebound(to other: Realm) -> ResultsCore? {
        // Domains are read through the realm that evaluates them, so the same closure serves.
        let core = ResultsCore(realm: other, type: type, dynamicClassName: dynamicClassName, domain: domain, query: query)
        core.domainSource = domainSource
        return core
    }

    /// How notifications find the new keys of these results after a change.
    var evaluationPlan: ResultsEvaluationPlan {
        // Dynamic results have no model class to tell which properties the query reads.
        if dynamicClassName != nil { return ResultsEvaluationPlan(rerun: .anyChange, inKeyOrder: false, incremental: false, properties: []) }
        let info = ObjectTypeInfo.of(type)
        let local = QueryLocality.isLocal(query, info)
        let sorted = query.descriptors.contains { if case .sort = $0 { return true } else { return false } }
        if domain != nil { return ResultsEvaluationPlan(rerun: .anyChange, inKeyOrder: false, incremental: false, properties: []) }
        if !local { return ResultsEvaluationPlan(rerun: .anyChange, inKeyOrder: !sorted, incremental: false, properties: []) }
        let properties = QueryLocality.properties(query)
        return ResultsEvaluationPlan(rerun: .ownTable, inKeyOrder: !sorted, incremental: query.descriptors.isEmpty, properties: properties)
    }
}

/// When the keys of a `Results` must be computed again, and how.
struct ResultsEvaluationPlan {
    enum Rerun {
        /// Only a change to the results' own class can change them.
        case ownTable
        /// A change to any class can (links in the query, a collection domain).
        case anyChange
    }
    let rerun: Rerun
    /// The keys are in ascending key order (nothing can move).
    let inKeyOrder: Bool
    /// Only the changed objects need evaluating: the query reads nothing but the
    /// object's own properties and has no sort, distinct or limit.
    let incremental: Bool
    /// For a query of the object's own properties: the properties it reads. A change
    /// to other properties cannot change which objects match, or their order.
    let properties: Set<String>
}

/// Whether a query reads only the queried object's own properties.
enum QueryLocality {
    static func isLocal(_ query: ParsedQuery, _ info: ObjectTypeInfo) -> Bool {
        guard isLocal(query.predicate, info) else { return false }
        for descriptor in query.descriptors {
            switch descriptor {
            case .sort(let keys): if !keys.allSatisfy({ isLocal($0.keyPath, info) }) { return false }
            case .distinct(let paths): if !paths.allSatisfy({ isLocal($0, info) }) { return false }
            case .limit: break
            }
        }
        return true
    }

    /// The names of the properties a local query reads (predicate and descriptors).
    static func properties(_ query: ParsedQuery) -> Set<String> {
        var names = Set<String>()
        func add(_ path: QueryKeyPath) {
            if case .property(let name)? = path.components.first { names.insert(name) }
        }
        func add(_ operand: QueryOperand) {
            switch operand {
            case .keyPath(let path): add(path)
            case .list(let items): items.forEach(add)
            default: break
            }
        }
        func add(_ predicate: QueryPredicate) {
            switch predicate {
            case .truePredicate, .falsePredicate: break
            case .and(let parts), .or(let parts): parts.forEach(add)
            case .not(let inner): add(inner)
            case .comparison(let comparison): add(comparison.lhs); add(comparison.rhs)
            case .geoWithin(let geo): add(geo.keyPath)
            }
        }
        add(query.predicate)
        for descriptor in query.descriptors {
            switch descriptor {
            case .sort(let keys): keys.forEach { add($0.keyPath) }
            case .distinct(let paths): paths.forEach(add)
            case .limit: break
            }
        }
        return names
    }

    private static func isLocal(_ predicate: QueryPredicate, _ info: ObjectTypeInfo) -> Bool {
        switch predicate {
        case .truePredicate, .falsePredicate: return true
        case .and(let parts), .or(let parts): return parts.allSatisfy { isLocal($0, info) }
        case .not(let inner): return isLocal(inner, info)
        case .comparison(let comparison): return isLocal(comparison.lhs, info) && isLocal(comparison.rhs, info)
        case .geoWithin: return false // it reads the linked location's properties
        }
    }

    private static func isLocal(_ operand: QueryOperand, _ info: ObjectTypeInfo) -> Bool {
        switch operand {
        case .keyPath(let path): return isLocal(path, info)
        case .value, .argument: return true
        case .list(let items): return items.allSatisfy { isLocal($0, info) }
        case .keyPathArgument, .subqueryCount: return false
        }
    }

    private static func isLocal(_ path: QueryKeyPath, _ info: ObjectTypeInfo) -> Bool {
        guard path.components.count == 1, case .property(let name) = path.components[0],
              let index = info.index(ofProperty: name) else { return false }
        // A link compared as a value is the object's own column; LinkingObjects are not.
        return !info.properties[index].isLinkingObjects
    }
}
