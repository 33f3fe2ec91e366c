import OpenRealmQuery
import OpenRealmWire

/// Checks one class's subscription query against the Flexible Sync rules and returns
/// its parsed form. Every refusal names the rule it breaks:
///
/// | rule | example refused |
/// |---|---|
/// | size (`limitsExceeded`) | a query over ``SubscriptionRules/maxQueryBytes`` |
/// | RQL syntax | `title ==` |
/// | no arguments | `title == $0` |
/// | no SORT / DISTINCT / LIMIT | `TRUEPREDICATE SORT(title ASC)` |
/// | no aggregates but `@count` on lists | `scores.@sum > 5`, `title.@count > 2` |
/// | no link or embedded paths | `owner.name == 'a'`, `@links.Person.dogs.@count > 0`, SUBQUERY, GEOWITHIN |
/// | no list compared with a list | `tags IN {'a', 'b'}` |
/// | queryable fields | a field the app's configuration does not list |
/// | indexed queryable field | no top-level `==` / `IN` on it |
/// | types and names | an unknown property, a string compared with an int |
///
/// A class the server's schema does not have yet (its declaration has not been
/// uploaded) passes the rules that need no schema; the others apply once it exists.
enum SubscriptionValidator {
    /// Validates `query` on `className`.
    ///
    /// - Parameters:
    ///   - schema: the server's synced schema.
    ///   - rules: the app's limits.
    /// - Returns: the parsed query, normalized.
    /// - Throws: ``SyncFailure`` `invalidSubscriptionQuery`, or `limitsExceeded` for a query
    ///   over the size limit; the message names the class and the rule.
    static func validate(className: String, query: String, schema: any QuerySchema,
                         rules: SubscriptionRules) throws -> ParsedQuery {
        let size = query.utf8.count
        guard size <= rules.maxQueryBytes else {
            throw SyncFailure(.limitsExceeded, "query on class '\(className)' is \(size) bytes, over the limit of \(rules.maxQueryBytes) bytes per subscription query")
        }
        func refuse(_ rule: String, _ detail: String) -> SyncFailure {
            SyncFailure(.invalidSubscriptionQuery, "invalid query on class '\(className)': \(detail) (rule: \(rule))")
        }
        let parsed: ParsedQuery
        do {
            parsed = try QueryParser.parse(query).normalized()
        } catch let error as QueryError {
            throw refuse("RQL syntax", error.message)
        }
        guard !parsed.hasPlaceholders else {
            throw refuse("no arguments", "arguments ($0, %@, %K) must be inlined as constants")
        }
        guard parsed.descriptors.isEmpty else {
            throw refuse("no SORT / DISTINCT / LIMIT", "SORT, DISTINCT and LIMIT are not allowed in subscriptions")
        }
        let cls = schema.queryClass(named: className)
        var checker = Checker(className: className, cls: cls, rules: rules, refuse: refuse)
        try checker.predicate(parsed.predicate)
        if let field = rules.indexedQueryableField, cls?.property(named: field) != nil {
            guard Self.constrainsIndexedField(parsed.predicate, field) else {
                throw refuse("indexed queryable field",
                             "the query must compare '\(field)' with == or IN against constants at the top level of an AND")
            }
        }
        if cls != nil {
            do {
                _ = try QueryCompiler(schema: schema).compile(parsed, className: className)
            } catch let error as QueryError {
                throw refuse("types and names", error.message)
            }
        }
        return parsed
    }

    /// Whether `p` is, or is an AND containing, `field == constant` or `field IN {constants}`.
    private static func constrainsIndexedField(_ p: QueryPredicate, _ field: String) -> Bool {
        func isConstraint(_ p: QueryPredicate) -> Bool {
            guard case .comparison(let c) = p, c.quantifier == .implicit || c.quantifier == .any,
                  case .keyPath(let path) = c.lhs, path.aggregate == nil,
                  path.components == [.property(field)] else { return false }
            switch (c.op, c.rhs) {
            case (.equal, .value): return true
            case (.in, .list(let items)): return items.allSatisfy { if case .value = $0 { return true } else { return false } }
            default: return false
            }
        }
        if case .and(let parts) = p { return parts.contains(where: isConstraint) }
        return isConstraint(p)
    }

    /// Walks a predicate applying the rules that look at its parts.
    private struct Checker {
        let className: String
        let cls: QuerySchemaClass?
        let rules: SubscriptionRules
        let refuse: (String, String) -> SyncFailure

        mutating func predicate(_ p: QueryPredicate) throws {
            switch p {
            case .truePredicate, .falsePredicate: return
            case .and(let parts), .or(let parts): for part in parts { try predicate(part) }
            case .not(let inner): try predicate(inner)
            case .geoWithin(let g):
                throw refuse("no link or embedded paths",
                             "'\(QueryRenderer.render(.geoWithin(g)))' reads the embedded object '\(g.keyPath)'; subscriptions may use only the class's own fields, so geospatial queries cannot be subscribed to")
            case .comparison(let c):
                let left = try operand(c.lhs)
                let right = try operand(c.rhs)
                if left && right {
                    throw refuse("no list compared with a list",
                                 "'\(QueryRenderer.render(.comparison(c)))' compares a list with a list")
                }
            }
        }

        /// Checks an operand; returns whether it yields many values (a list or set
        /// property, a literal list, dictionary keys or values).
        func operand(_ o: QueryOperand) throws -> Bool {
            switch o {
            case .value: return false
            case .list: return true
            case .argument, .keyPathArgument:
                throw refuse("no arguments", "arguments must be inlined as constants")
            case .subqueryCount:
                throw refuse("no link or embedded paths", "SUBQUERY follows links, which subscriptions cannot")
            case .keyPath(let path): return try keyPath(path)
            }
        }

        func keyPath(_ path: QueryKeyPath) throws -> Bool {
            guard case .property(let name)? = path.components.first else {
                if case .backlink(let c, let p)? = path.components.first {
                    throw refuse("no link or embedded paths", "'@links.\(c).\(p)' follows links, which subscriptions cannot")
                }
                throw refuse("no link or embedded paths", "a key path must start with a property")
            }
            for component in path.components.dropFirst() {
                switch component {
                case .dictionaryKey where path.components.count == 2: continue
                default:
                    throw refuse("no link or embedded paths",
                                 "'\(path)' goes through the link or embedded object '\(name)'; subscriptions may use only the class's own fields")
                }
            }
            if let allowed = rules.queryableFields?[className], !allowed.contains(name), name != rules.indexedQueryableField {
                throw refuse("queryable fields", "field '\(name)' of class '\(className)' is not queryable")
            }
            let property = cls?.property(named: name)
            if let cls, property == nil {
                throw refuse("types and names", "class '\(cls.name)' has no property '\(name)'")
            }
            if property?.isBacklink == true {
                throw refuse("no link or embedded paths", "'\(name)' is a LinkingObjects property, which follows links")
            }
            switch path.aggregate {
            case nil:
                guard let property else { return false }
                let isDictionaryValue = path.components.count == 2
                return property.collection != .none && !isDictionaryValue
            case .count?, .size?:
                if let property, property.collection != .list && property.collection != .set {
                    throw refuse("no aggregates but @count on lists", "@count applies only to lists and sets, not to '\(name)' (\(property.typeDescription))")
                }
                return false
            case .keys?, .values?:
                return true
            case let aggregate?:
                throw refuse("no aggregates but @count on lists", "@\(aggregate.name) is not allowed in subscriptions")
            }
        }
    }
}
