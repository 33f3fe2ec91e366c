/// SORT / DISTINCT / LIMIT descriptors, alone or after a predicate, and the property
/// an aggregate (`min(ofProperty:)`, ...) runs over.
///
/// A program is `pred descriptor*`, so descriptor bytes compiled here may be appended
/// to any compiled predicate: `sorted(byKeyPath:)` on a filtered `Results` is
/// `compile(predicate) + compileSort(...)`.
extension QueryCompiler {
    /// The bytes of `descriptors`, in order, for objects of `cls`.
    func descriptors(_ descriptors: [QueryDescriptor], _ cls: QuerySchemaClass) throws -> [UInt8] {
        var w = QueryProgramWriter()
        for d in descriptors {
            switch d {
            case .sort(let keys):
                guard keys.count <= 255 else {
                    throw QueryError(.unsupported, "Invalid query: SORT takes at most 255 key paths, not \(keys.count)")
                }
                w.u8(QueryProgramWriter.descSort)
                w.u8(UInt8(keys.count))
                for key in keys {
                    w.append(try descriptorPath(key.keyPath.normalized(), cls, for: "SORT"))
                    w.u8(key.ascending ? 1 : 0)
                }
            case .distinct(let paths):
                guard paths.count <= 255 else {
                    throw QueryError(.unsupported, "Invalid query: DISTINCT takes at most 255 key paths, not \(paths.count)")
                }
                w.u8(QueryProgramWriter.descDistinct)
                w.u8(UInt8(paths.count))
                for path in paths { w.append(try descriptorPath(path.normalized(), cls, for: "DISTINCT")) }
            case .limit(let n):
                w.u8(QueryProgramWriter.descLimit)
                w.u64(n)
            }
        }
        return w.bytes
    }

    /// The bytes of `descriptors` for objects of `className` (to append to a predicate).
    func compileDescriptors(_ descriptors: [QueryDescriptor], className: String) throws -> [UInt8] {
        try self.descriptors(descriptors, try queryClass(className))
    }

    /// One SORT descriptor from key path strings (`sorted(byKeyPath:ascending:)`,
    /// `sorted(by: [SortDescriptor])`).
    ///
    /// - Throws: ``QueryError``: `.syntax` for a malformed key path, `.unknownProperty`,
    ///   `.typeMismatch` for a path of many values or to an object.
    func compileSort(_ keys: [(keyPath: String, ascending: Bool)], className: String) throws -> [UInt8] {
        let sortKeys = try keys.map { QuerySortKey(try QueryParser.parseKeyPath($0.keyPath), ascending: $0.ascending) }
        return try compileDescriptors([.sort(sortKeys)], className: className)
    }

    /// One DISTINCT descriptor from key path strings (`distinct(by:)`).
    func compileDistinct(_ keyPaths: [String], className: String) throws -> [UInt8] {
        let paths = try keyPaths.map { try QueryParser.parseKeyPath($0) }
        return try compileDescriptors([.distinct(paths)], className: className)
    }

    /// The ORCore `path` bytes of a key path from objects of `className`.
    func compilePath(_ path: QueryKeyPath, className: String) throws -> [UInt8] {
        try resolve(path.normalized(), from: try queryClass(className)).bytes
    }

    private func descriptorPath(_ path: QueryKeyPath, _ cls: QuerySchemaClass, for what: String) throws -> [UInt8] {
        let r = try resolve(path, from: cls)
        if r.isMulti {
            throw QueryError(.typeMismatch, "Invalid query: \(what) needs a key path of one value per object, but \(r.name) is a \(r.typeDescription)")
        }
        if what == "SORT", r.type == .link {
            throw QueryError(.typeMismatch, "Invalid query: SORT cannot order by \(r.name), an \(r.typeDescription); sort by one of its properties")
        }
        return r.bytes
    }

    // MARK: - Aggregates

    /// The column and type of the property an aggregate over `Results` runs on
    /// (`orc_query_aggregate`): a direct, non-collection property of the class.
    package struct AggregateTarget: Hashable, Sendable {
        package var column: UInt16
        package var type: QueryPropertyType
        package var isOptional: Bool
    }

    /// Checks that `aggregate` (@min, @max, @sum, @avg or @count) applies to `property`
    /// of `className` and returns its column.
    ///
    /// - Throws: ``QueryError``: `.unknownProperty`; `.typeMismatch` when the type does
    ///   not fit (@sum / @avg need numbers, @min / @max numbers or dates); `.unsupported`
    ///   for a key path through links or a collection property.
    package func aggregateTarget(_ property: String, className: String, aggregate: QueryAggregate) throws -> AggregateTarget {
        let cls = try queryClass(className)
        let path = try QueryParser.parseKeyPath(property)
        guard path.aggregate == nil, path.components.count == 1, case .property(let name) = path.components[0] else {
            throw QueryError(.unsupported, "Invalid query: @\(aggregate.name) runs on a property of '\(className)' itself, not on the key path '\(property)'")
        }
        guard let p = cls.property(named: name) else {
            throw QueryError(.unknownProperty, "Invalid query: class '\(className)' has no property '\(name)'")
        }
        guard p.collection == .none, !p.isBacklink else {
            throw QueryError(.unsupported, "Invalid query: @\(aggregate.name) over '\(className).\(name)' (a \(p.typeDescription)) is not supported; aggregate a property of single values")
        }
        let fits: Bool
        switch aggregate {
        case .sum, .avg: fits = p.type.isNumeric
        case .min, .max: fits = p.type.isNumeric || p.type == .timestamp
        case .count, .size: fits = true
        case .keys, .values: fits = false
        }
        guard fits else {
            throw QueryError(.typeMismatch, "Invalid query: @\(aggregate.name) does not apply to '\(className).\(name)', a \(p.typeDescription)")
        }
        return AggregateTarget(column: p.column, type: p.type, isOptional: p.isOptional)
    }
}
