import Foundation

/// Preparing a predicate for the evaluator: key paths resolved against the schema into
/// steps (mirroring ORCore's `resolve_path` in query.c), and constants converted to the
/// type of the key path they meet, as ``QueryCompiler`` converts them before ORCore
/// sees them (a string against a binary property becomes its UTF-8 bytes, valid UTF-8
/// bytes against a string property a string, numbers the property's number type where
/// exact). The predicate has passed the compiler's checks, so nothing here refuses.
extension QueryEvaluator {
    /// A resolved key path.
    struct Path {
        var steps: [Step]
        /// A reducing aggregate (`@count`, `@min`, ...; `@count` of a single string or
        /// binary is `.length`), or nil.
        var reduction: QueryAccumulator.Kind?
        /// `@keys`: yield a dictionary's keys instead of its values.
        var keys: Bool
        /// Whether the steps may yield other than exactly one value (ORCore's `multi`).
        var multi: Bool
        /// The type of the last step's property: the type of an empty `@sum`.
        var zeroType: QueryPropertyType?
        /// The type the compiler gives the path (after its aggregate), which constants
        /// compared with it are converted to.
        var type: QueryPropertyType
    }

    struct Step {
        enum Kind {
            /// A stored property; a dictionary without a key yields its values.
            case property
            /// A dictionary property and a key: the value at that key.
            case dictionaryKey(String)
            /// The objects of `next` whose property `name` links here.
            case backlink
        }

        var kind: Kind
        /// The property's name (for a backlink: the forward link's).
        var name: String
        /// The class the step starts from, for messages.
        var owner: String
        var collection: QueryCollectionKind
        var type: QueryPropertyType
        /// The class of the objects the step reaches (link target, or backlink origin).
        var next: QuerySchemaClass?
    }

    struct Resolver {
        let schema: any QuerySchema

        private func missing(_ what: String) -> QueryError {
            QueryError(.unknownProperty, "Invalid query: \(what) is not in the schema")
        }

        private func schemaClass(_ name: String?) throws -> QuerySchemaClass {
            guard let name, let c = schema.queryClass(named: name) else { throw missing("class '\(name ?? "?")'") }
            return c
        }

        func node(_ p: QueryPredicate, _ cls: QuerySchemaClass) throws -> Node {
            switch p {
            case .truePredicate: return .constant(true)
            case .falsePredicate: return .constant(false)
            case .and(let parts): return .and(try parts.map { try node($0, cls) })
            case .or(let parts): return .or(try parts.map { try node($0, cls) })
            case .not(let inner): return .not(try node(inner, cls))
            case .comparison(let c): return .comparison(try comparison(c, cls))
            case .geoWithin(let g):
                // The geometry is ORCore's alone (geo.c); the server refuses GEOWITHIN in
                // subscriptions and rules before it gets here.
                throw QueryError(.unsupported, "Invalid query: '\(QueryRenderer.render(.geoWithin(g)))': GEOWITHIN is evaluated by the local database only, not by the server's evaluator")
            }
        }

        private func comparison(_ c: QueryComparison, _ cls: QuerySchemaClass) throws -> Comparison {
            var lhs = try operand(c.lhs, cls)
            var rhs = try operand(c.rhs, cls)
            if let type = Self.type(of: lhs) {
                rhs = Self.converted(rhs, to: type)
            } else if let type = Self.type(of: rhs) {
                lhs = Self.converted(lhs, to: type)
            }
            return Comparison(lhs: lhs, op: c.op, flags: c.options.rawValue,
                              quantifier: c.quantifier == .any ? .implicit : c.quantifier, rhs: rhs)
        }

        private func operand(_ o: QueryOperand, _ cls: QuerySchemaClass) throws -> Operand {
            switch o {
            case .keyPath(let k):
                return .path(try path(k, from: cls))
            case .value(let v):
                return .constant(v)
            case .list(let items):
                return .list(try items.map { item in
                    guard case .value(let v) = item else {
                        throw QueryError(.badArgument, "Invalid query: a list holds an unbound argument")
                    }
                    return v
                })
            case .argument(let i), .keyPathArgument(let i):
                throw QueryError(.badArgument, "Invalid query: argument $\(i) is not bound (pass the query's arguments)")
            case .subqueryCount(let s):
                let p = try path(s.collection, from: cls)
                guard let target = p.steps.last?.next ?? (p.steps.isEmpty ? cls : nil) else {
                    throw QueryError(.typeMismatch, "Invalid query: SUBQUERY needs a collection of objects")
                }
                return .subquery(p, try node(s.predicate, target), table: target.table)
            }
        }

        /// The type an operand gives the other side's constants, or nil for constants.
        private static func type(of o: Operand) -> QueryPropertyType? {
            switch o {
            case .path(let p): return p.type
            case .subquery: return .int
            case .constant, .list: return nil
            }
        }

        private static func converted(_ o: Operand, to type: QueryPropertyType) -> Operand {
            switch o {
            case .constant(let v): return .constant(converted(v, to: type))
            case .list(let values): return .list(values.map { converted($0, to: type) })
            default: return o
            }
        }

        /// The compiler's conversion of a constant compared with a `type` path.
        static func converted(_ v: QueryValue, to type: QueryPropertyType) -> QueryValue {
            if case .null = v { return v }
            if type == .mixed { return v }
            if type.isNumeric && v.isNumeric { return QueryCompiler.exactNumber(v, as: type) }
            switch (type, v) {
            case (.binary, .string(let s)):
                return .binary(Data(s.utf8))
            case (.string, .binary(let d)):
                return String(bytes: d, encoding: .utf8).map { .string($0) } ?? v
            default:
                return v
            }
        }

        /// Resolves `k` from objects of `cls` (ORCore's `resolve_path`).
        func path(_ k: QueryKeyPath, from cls: QuerySchemaClass) throws -> Path {
            var steps: [Step] = []
            var current: QuerySchemaClass? = cls
            var multi = false, multiBeforeDictionary = false

            func backlink(originClass: String?, property: String?) throws {
                let origin = try schemaClass(originClass)
                steps.append(Step(kind: .backlink, name: property ?? "?", owner: current?.name ?? "?",
                                  collection: .list, type: .link, next: origin))
                multi = true
                current = origin
            }

            for component in k.components {
                switch component {
                case .property(let name):
                    guard let c = current, let p = c.property(named: name) else {
                        throw missing("property '\(name)' of key path '\(k)'")
                    }
                    if p.isBacklink {
                        try backlink(originClass: p.originClass, property: p.originProperty)
                        continue
                    }
                    let next = p.type == .link ? try schemaClass(p.linkTargetClass) : nil
                    steps.append(Step(kind: .property, name: name, owner: c.name, collection: p.collection,
                                      type: p.type, next: next))
                    if p.collection == .dictionary { multiBeforeDictionary = multi }
                    if p.collection != .none { multi = true }
                    current = next
                case .dictionaryKey(let key):
                    guard let last = steps.indices.last else { throw missing("a dictionary before ['\(key)']") }
                    steps[last].kind = .dictionaryKey(key)
                    multi = multiBeforeDictionary
                case .backlink(let className, let property):
                    try backlink(originClass: className, property: property)
                }
            }

            let last = steps.last
            var type = last?.type ?? .link
            var reduction: QueryAccumulator.Kind?
            var keys = false
            switch k.aggregate {
            case nil, .values?:
                break
            case .keys?:
                keys = true
                type = .string
            case .count?, .size?:
                reduction = multi ? .count : .length
                type = .int
            case .min?:
                reduction = .min
            case .max?:
                reduction = .max
            case .sum?, .avg?:
                reduction = k.aggregate == .sum ? .sum : .avg
                if type == .mixed { type = .double }
            }
            return Path(steps: steps, reduction: reduction, keys: keys, multi: multi,
                        zeroType: last?.type, type: type)
        }
    }
}
