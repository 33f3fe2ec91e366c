/// Queries name properties by their Swift names; the file and the sync server know
/// them by the names they are stored under (``ObjectBase/propertiesMapping()``). A
/// query that leaves the process — a Flexible Sync subscription — is renamed to the
/// stored names first, following each key path through the classes it links to.
extension ParsedQuery {
    /// This query on the model class `type`, with every property named as it is stored.
    /// Key paths are followed through the model classes they link to.
    package func withStoredNames(for type: ObjectBase.Type) -> ParsedQuery {
        withStoredNames(from: ObjectTypeInfo.of(type))
    }

    /// This query on the class stored as `className` (read as the first model class
    /// this process knows under that name), with every property named as it is stored.
    /// Names of classes this process has no model for stay as written.
    package func withStoredNames(from className: String) -> ParsedQuery {
        withStoredNames(from: ObjectTypeInfo.named(className))
    }

    func withStoredNames(from info: ObjectTypeInfo?) -> ParsedQuery {
        ParsedQuery(predicate: predicate.withStoredNames(from: info),
                    descriptors: descriptors.map { $0.withStoredNames(from: info) })
    }
}

extension QueryPredicate {
    /// See ``ParsedQuery/withStoredNames(for:)``.
    package func withStoredNames(for type: ObjectBase.Type) -> QueryPredicate {
        withStoredNames(from: ObjectTypeInfo.of(type))
    }

    func withStoredNames(from info: ObjectTypeInfo?) -> QueryPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .and(let parts): return .and(parts.map { $0.withStoredNames(from: info) })
        case .or(let parts): return .or(parts.map { $0.withStoredNames(from: info) })
        case .not(let inner): return .not(inner.withStoredNames(from: info))
        case .comparison(var comparison):
            comparison.lhs = comparison.lhs.withStoredNames(from: info)
            comparison.rhs = comparison.rhs.withStoredNames(from: info)
            return .comparison(comparison)
        case .geoWithin(var geo):
            geo.keyPath = geo.keyPath.withStoredNames(from: info).path
            return .geoWithin(geo)
        }
    }
}

extension QueryOperand {
    func withStoredNames(from info: ObjectTypeInfo?) -> QueryOperand {
        switch self {
        case .keyPath(let path): return .keyPath(path.withStoredNames(from: info).path)
        case .list(let elements): return .list(elements.map { $0.withStoredNames(from: info) })
        case .subqueryCount(var subquery):
            let (collection, elementClass) = subquery.collection.withStoredNames(from: info)
            subquery.collection = collection
            subquery.predicate = subquery.predicate.withStoredNames(from: elementClass)
            return .subqueryCount(subquery)
        case .value, .argument, .keyPathArgument: return self
        }
    }
}

extension QueryDescriptor {
    func withStoredNames(from info: ObjectTypeInfo?) -> QueryDescriptor {
        switch self {
        case .sort(let keys):
            return .sort(keys.map { QuerySortKey($0.keyPath.withStoredNames(from: info).path, ascending: $0.ascending) })
        case .distinct(let paths): return .distinct(paths.map { $0.withStoredNames(from: info).path })
        case .limit: return self
        }
    }
}

extension QueryKeyPath {
    /// The path renamed, and the model class it ends at (nil past a value or an unknown class).
    func withStoredNames(from info: ObjectTypeInfo?) -> (path: QueryKeyPath, end: ObjectTypeInfo?) {
        var current = info
        var renamed: [QueryKeyPathComponent] = []
        for component in components {
            switch component {
            case .property(let name):
                guard let info = current, let index = info.index(ofProperty: name) else {
                    renamed.append(component)
                    current = nil
                    continue
                }
                let property = info.properties[index]
                renamed.append(.property(property.columnName))
                current = property.descriptor.target.map(ObjectTypeInfo.of)
            case .backlink(let originClass, let name):
                let origin = ObjectTypeInfo.named(originClass)
                renamed.append(.backlink(className: originClass, property: origin?.columnName(ofProperty: name) ?? name))
                current = origin
            case .dictionaryKey:
                renamed.append(component)
            }
        }
        return (QueryKeyPath(renamed, aggregate: aggregate), current)
    }
}
