/// Queries name properties by their Swift names; the file and the sync server know
/// them by the names they are stored under (``ObjectBase/propertiesMapping()``). A
/// query that leaves the process — a Flexible Sync subscription — is renamed to the
/// stored names first, following each key path through the classes it links to.
extension ParsedQuery {
    /// This query with every property named as it is stored, starting at class
    /// `className`. Names of classes this process has no model for stay as written.
    package func withStoredNames(from className: String) -> ParsedQuery {
        ParsedQuery(predicate: predicate.withStoredNames(from: className),
                    descriptors: descriptors.map { $0.withStoredNames(from: className) })
    }
}

extension QueryPredicate {
    /// See ``ParsedQuery/withStoredNames(from:)``.
    package func withStoredNames(from className: String?) -> QueryPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .and(let parts): return .and(parts.map { $0.withStoredNames(from: className) })
        case .or(let parts): return .or(parts.map { $0.withStoredNames(from: className) })
        case .not(let inner): return .not(inner.withStoredNames(from: className))
        case .comparison(var comparison):
            comparison.lhs = comparison.lhs.withStoredNames(from: className)
            comparison.rhs = comparison.rhs.withStoredNames(from: className)
            return .comparison(comparison)
        }
    }
}

extension QueryOperand {
    func withStoredNames(from className: String?) -> QueryOperand {
        switch self {
        case .keyPath(let path): return .keyPath(path.withStoredNames(from: className).path)
        case .list(let elements): return .list(elements.map { $0.withStoredNames(from: className) })
        case .subqueryCount(var subquery):
            let (collection, elementClass) = subquery.collection.withStoredNames(from: className)
            subquery.collection = collection
            subquery.predicate = subquery.predicate.withStoredNames(from: elementClass)
            return .subqueryCount(subquery)
        case .value, .argument, .keyPathArgument: return self
        }
    }
}

extension QueryDescriptor {
    func withStoredNames(from className: String) -> QueryDescriptor {
        switch self {
        case .sort(let keys):
            return .sort(keys.map { QuerySortKey($0.keyPath.withStoredNames(from: className).path, ascending: $0.ascending) })
        case .distinct(let paths): return .distinct(paths.map { $0.withStoredNames(from: className).path })
        case .limit: return self
        }
    }
}

extension QueryKeyPath {
    /// The path renamed, and the class it ends at (nil past a value or an unknown class).
    func withStoredNames(from className: String?) -> (path: QueryKeyPath, endClass: String?) {
        var current = className
        var renamed: [QueryKeyPathComponent] = []
        for component in components {
            switch component {
            case .property(let name):
                let info = current.flatMap(ObjectTypeInfo.named)
                guard let info, let index = info.index(ofProperty: name) else {
                    renamed.append(component)
                    current = nil
                    continue
                }
                let property = info.properties[index]
                renamed.append(.property(property.columnName))
                current = property.descriptor.target.map { ObjectTypeInfo.className(of: $0) }
            case .backlink(let originClass, let name):
                renamed.append(.backlink(className: originClass,
                                         property: ObjectTypeInfo.named(originClass)?.columnName(ofProperty: name) ?? name))
                current = originClass
            case .dictionaryKey:
                renamed.append(component)
            }
        }
        return (QueryKeyPath(renamed, aggregate: aggregate), current)
    }
}
