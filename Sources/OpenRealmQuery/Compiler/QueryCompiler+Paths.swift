/// Key path resolution: from a class through properties, links, lists of links,
/// embedded objects, dictionaries and backlinks, to the ORCore `path` bytes and what
/// the path yields.
///
/// States while walking (mirroring ORCore's own resolution):
///
/// ```
/// at an object of class C --property p-->      at p's target class (p links; also for a
///                                                list / set / dictionary of links)
///                                              at values (any other property): final
///                         --LinkingObjects p--> at origin class (BACKLINK step)
///                         --@links.K.p-->      at class K (BACKLINK step)
/// after a dictionary property --['key']-->     its value at that key (DICT_KEY step)
/// ```
extension QueryCompiler {
    /// What a resolved key path yields.
    struct ResolvedPath {
        /// The ORCore `path` bytes: `u8 nsteps step{nsteps} u8 agg`.
        var bytes: [UInt8]
        /// The type of the values (`.link` for objects; the aggregate's result type).
        var type: QueryPropertyType
        /// For `.link`: the class of the objects reached.
        var target: QuerySchemaClass?
        /// Whether the path yields many values per object (and is quantified).
        var isMulti: Bool
        /// Whether a value may be null (an optional property, a null link on the way,
        /// a missing dictionary key, @min / @max / @avg of nothing).
        var isNullable: Bool
        /// `'Person.dog.name'`, for messages.
        var name: String
        /// The type as messages give it ("int", "list of string", ...).
        var typeDescription: String
        /// Whether the path ends at an unkeyed dictionary property.
        var endsAtDictionary: Bool
    }

    /// Resolves `path` from objects of `cls`.
    ///
    /// - Throws: ``QueryError`` `.unknownProperty` for a name the class does not have,
    ///   `.typeMismatch` for a step or aggregate that does not apply.
    func resolve(_ path: QueryKeyPath, from cls: QuerySchemaClass) throws -> ResolvedPath {
        let name = "'\(cls.name)\(path.components.isEmpty ? "" : ".")\(path)'"
        var w = QueryProgramWriter()
        var steps = 0
        var current: QuerySchemaClass? = cls          // nil once at values
        var stoppedAt: (owner: String, property: QuerySchemaProperty)?
        var type = QueryPropertyType.link
        var target: QuerySchemaClass? = cls
        var multi = false, multiBeforeDictionary = false
        var nullable = false, throughToOneLink = false
        var openDictionary: QuerySchemaProperty?
        var typeDescription = "object '\(cls.name)'"
        var lastPlain: QuerySchemaProperty?          // the last step, when a plain non-collection property

        func atObject(_ what: String) throws -> QuerySchemaClass {
            if let c = current { return c }
            let (owner, p) = stoppedAt!
            throw QueryError(.unknownProperty,
                             "Invalid query: '\(owner).\(p.name)' is a \(p.typeDescription), not a link, so '\(what)' cannot follow it in key path \(name)")
        }

        func linkedClass(_ className: String?, from owner: String, _ p: QuerySchemaProperty) throws -> QuerySchemaClass {
            guard let className, let c = schema.queryClass(named: className) else {
                throw QueryError(.unknownProperty,
                                 "Invalid query: '\(owner).\(p.name)' links to class '\(className ?? "?")', which is not in the schema")
            }
            return c
        }

        func backlink(to c: QuerySchemaClass, originClass: String, originProperty: String) throws {
            guard let origin = schema.queryClass(named: originClass) else {
                throw QueryError(.unknownProperty, "Invalid query: no class named '\(originClass)' (in key path \(name))")
            }
            guard let forward = origin.property(named: originProperty), !forward.isBacklink else {
                throw QueryError(.unknownProperty,
                                 "Invalid query: class '\(originClass)' has no property '\(originProperty)' (in key path \(name))")
            }
            guard forward.type == .link, forward.linkTargetClass == c.name else {
                throw QueryError(.typeMismatch,
                                 "Invalid query: '\(originClass).\(originProperty)' is a \(forward.typeDescription), not a link to class '\(c.name)', so it has no backlinks from \(name)")
            }
            w.u8(QueryProgramWriter.stepBacklink)
            w.u32(origin.table)
            w.u16(forward.column)
            steps += 1
            current = origin
            target = origin
            type = .link
            multi = true
            openDictionary = nil
            lastPlain = nil
            nullable = false
            typeDescription = "linking objects of '\(originClass)'"
        }

        for component in path.components {
            switch component {
            case .property(let propertyName):
                let c = try atObject(propertyName)
                guard let p = c.property(named: propertyName) else {
                    throw QueryError(.unknownProperty,
                                     "Invalid query: class '\(c.name)' has no property '\(propertyName)'" +
                                        (path.components.count > 1 ? " (in key path \(name))" : ""))
                }
                if p.isBacklink {
                    try backlink(to: c, originClass: p.originClass ?? "?", originProperty: p.originProperty ?? "?")
                    continue
                }
                w.u8(QueryProgramWriter.stepProperty)
                w.u16(p.column)
                steps += 1
                type = p.type
                typeDescription = p.typeDescription
                if p.type == .link {
                    let t = try linkedClass(p.linkTargetClass, from: c.name, p)
                    current = t
                    target = t
                    if p.collection == .none { throughToOneLink = true }
                } else {
                    current = nil
                    target = nil
                    stoppedAt = (c.name, p)
                }
                if p.collection == .dictionary { multiBeforeDictionary = multi }
                if p.collection != .none { multi = true }
                openDictionary = p.collection == .dictionary ? p : nil
                lastPlain = p.collection == .none ? p : nil
                nullable = throughToOneLink || p.isOptional || p.type == .mixed
                    || (p.type == .link && p.collection == .none)
            case .dictionaryKey(let key):
                guard let d = openDictionary else {
                    throw QueryError(.typeMismatch,
                                     "Invalid query: the subscript [\(QueryRenderer.string(key))] needs a dictionary, but key path \(name) reaches a \(typeDescription) before it")
                }
                w.u8(QueryProgramWriter.stepDictionaryKey)
                w.lengthPrefixed(Array(key.utf8))
                steps += 1
                multi = multiBeforeDictionary
                nullable = true
                openDictionary = nil
                lastPlain = nil
                typeDescription = (d.type == .link ? "object '\(d.linkTargetClass ?? "?")'" : d.type.name)
            case .backlink(let className, let property):
                let c = try atObject("@links.\(className).\(property)")
                try backlink(to: c, originClass: className, originProperty: property)
            }
        }
        guard steps <= 255 else {
            throw QueryError(.unsupported, "Invalid query: key path \(name) has more than 255 steps")
        }

        var result = ResolvedPath(bytes: [], type: type, target: type == .link ? target : nil, isMulti: multi,
                                  isNullable: nullable, name: name, typeDescription: typeDescription,
                                  endsAtDictionary: openDictionary != nil)
        if let agg = path.aggregate {
            try applyAggregate(agg, to: &result, lastPlain: lastPlain)
        }
        var out = QueryProgramWriter()
        out.u8(UInt8(steps))
        out.append(w.bytes)
        out.u8(path.aggregate?.rawValue ?? 0)
        result.bytes = out.bytes
        return result
    }

    private func applyAggregate(_ agg: QueryAggregate, to r: inout ResolvedPath,
                                lastPlain: QuerySchemaProperty?) throws {
        let before = r.typeDescription
        switch agg {
        case .count, .size:
            guard r.isMulti || lastPlain?.type == .string || lastPlain?.type == .binary else {
                throw QueryError(.typeMismatch,
                                 "Invalid query: @\(agg.name) needs a collection, string or binary, but \(r.name) is a \(before)")
            }
            r.type = .int
            r.isNullable = false
        case .min, .max:
            guard r.type.isNumeric || r.type == .timestamp || r.type == .mixed else {
                throw QueryError(.typeMismatch,
                                 "Invalid query: @\(agg.name) needs numbers or dates, but \(r.name) is a \(before)")
            }
            r.isNullable = true
        case .sum, .avg:
            guard r.type.isNumeric || r.type == .mixed else {
                throw QueryError(.typeMismatch,
                                 "Invalid query: @\(agg.name) needs numbers, but \(r.name) is a \(before)")
            }
            if r.type == .mixed { r.type = .double }
            r.isNullable = agg == .avg
        case .keys, .values:
            guard r.endsAtDictionary else {
                throw QueryError(.typeMismatch,
                                 "Invalid query: @\(agg.name) needs a dictionary, but \(r.name) is a \(before)")
            }
            if agg == .keys {
                r.type = .string
                r.target = nil
                r.isNullable = false
            }
            r.typeDescription = agg == .keys ? "string" : r.type.name
            return
        }
        r.target = nil
        r.isMulti = false
        r.typeDescription = r.type.name
        r.endsAtDictionary = false
    }
}
