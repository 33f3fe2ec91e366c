import Foundation

/// Decides whether an object matches a query predicate without ORCore: the server's
/// test of an object image (a post-image from the history, a row of another database)
/// against a view's predicate. It agrees with ORCore's query engine
/// (`CSources/ORCore/query_eval.c`) on everything the query language accepts; the
/// differential test `QueryEvaluatorDifferentialTests` runs both on random objects and
/// predicates.
///
/// Made once per predicate (key paths resolved against the schema, constants converted
/// as the compiler converts them), then asked per object:
///
/// ```swift
/// let query = try QueryParser.parse("age >= $0 AND name BEGINSWITH[c] 'a'", arguments: [18])
/// let evaluator = try QueryEvaluator(query.predicate, className: "Person", schema: schema)
/// if try evaluator.matches(image) { ... }
/// ```
///
/// The predicate must be bound (no `$n` left); it is checked by ``QueryCompiler``'s type
/// rules, so what the compiler refuses is refused here with the same ``QueryError``.
/// The semantics, as ORCore's:
///
/// - A key path yields values: one for a path of single properties (null when it
///   crosses a null link or a missing dictionary key), any number when it crosses a
///   list, set, dictionary (without a key) or LinkingObjects. Many values compare as
///   ANY unless `ALL` (every one, true for none) or `NONE` (no one) is written.
/// - A right side of many values (a key path, IN's list) matches a left value when any
///   of them compares true; `BETWEEN {lo, hi}` is `lo <= x AND x <= hi`.
/// - Values compare as ``QueryValueComparison`` says, strings as ``QueryText``.
/// - Aggregates reduce every value the path yields to one (``QueryAccumulator``).
/// - `SUBQUERY(path, $x, p).@count` counts the linked objects that match `p`.
package struct QueryEvaluator {
    /// The class the predicate is about.
    package let className: String
    private let table: UInt32
    private let root: Node

    /// Prepares `predicate` for objects of `className`.
    ///
    /// - Throws: ``QueryError`` as ``QueryCompiler`` throws it (unknown classes and
    ///   properties, type mismatches, unbound placeholders).
    package init(_ predicate: QueryPredicate, className: String, schema: any QuerySchema) throws {
        let compiler = QueryCompiler(schema: schema)
        _ = try compiler.compile(predicate, className: className) // the type rules, and their messages
        let cls = try compiler.queryClass(className)
        self.className = className
        table = cls.table
        root = try QueryEvaluator.Resolver(schema: schema).node(predicate.normalized(), cls)
    }

    /// Whether `object`, an object of ``className``, matches the predicate.
    ///
    /// - Throws: ``QueryEvaluationError`` when the object (or an object it links to)
    ///   lacks a property the predicate reads, gives it in another shape than the schema,
    ///   or cannot give a key or linking objects the predicate needs.
    package func matches(_ object: any QueryEvaluable) throws -> Bool {
        try evaluate(root, object, table)
    }

    // MARK: - The resolved predicate

    indirect enum Node {
        case constant(Bool)
        case and([Node])
        case or([Node])
        case not(Node)
        case comparison(Comparison)
    }

    struct Comparison {
        var lhs: Operand
        var op: QueryOperator
        /// `[c]` / `[d]` as ORCore's flag bits.
        var flags: UInt8
        /// `.implicit` (ANY), `.all` or `.none`.
        var quantifier: QueryQuantifier
        var rhs: Operand
    }

    enum Operand {
        case path(Path)
        case constant(QueryValue)
        case list([QueryValue])
        /// A SUBQUERY count: the collection, the predicate on its objects, their table.
        case subquery(Path, Node, table: UInt32)
    }

    /// A value a path yields: a plain value, or an object reached through a link (its
    /// key is asked for only when it is compared with another object).
    enum Item {
        case value(QueryValue)
        case object(any QueryEvaluable, table: UInt32)

        var isObject: Bool {
            switch self {
            case .object, .value(.link): return true
            default: return false
            }
        }

        /// The value to compare; an object compared with a non-object needs no key (the
        /// kinds differ, which decides), with an object it does.
        func value(keyed: Bool) throws -> QueryValue {
            switch self {
            case .value(let v):
                return v
            case .object(let o, let table):
                guard keyed else { return .link(table: table, key: 0) }
                guard let key = o.queryObjectKey else {
                    throw QueryEvaluationError("Cannot compare objects: an object of table \(table) has no key (queryObjectKey is nil)")
                }
                return .link(table: table, key: key)
            }
        }
    }

    // MARK: - Evaluation

    func evaluate(_ node: Node, _ object: any QueryEvaluable, _ table: UInt32) throws -> Bool {
        switch node {
        case .constant(let b):
            return b
        case .and(let parts):
            for p in parts {
                if try !evaluate(p, object, table) { return false }
            }
            return true
        case .or(let parts):
            for p in parts {
                if try evaluate(p, object, table) { return true }
            }
            return false
        case .not(let inner):
            return try !evaluate(inner, object, table)
        case .comparison(let c):
            return try evaluate(c, object, table)
        }
    }

    /// `eval_cmp`: the right side's values first, then each left value against them.
    private func evaluate(_ c: Comparison, _ object: any QueryEvaluable, _ table: UInt32) throws -> Bool {
        let right: [Item]
        switch c.rhs {
        case .constant(let v):
            right = [.value(v)]
        case .list(let values):
            right = values.map { .value($0) }
        case .path(let p):
            var items: [Item] = []
            _ = try each(p, object, table) { items.append($0); return false }
            right = items
        case .subquery(let p, let predicate, let target):
            right = [.value(.int(try count(p, predicate, target, object, table)))]
        }
        var hit = false // ANY / NONE: a value matched; ALL: a value failed
        let visit: (Item) throws -> Bool = { left in
            var m = try self.matchOne(c, left, right)
            if c.quantifier == .all { m = !m }
            if m { hit = true }
            return m
        }
        switch c.lhs {
        case .constant(let v):
            _ = try visit(.value(v))
        case .list:
            throw QueryEvaluationError("Invalid query: a list can only be the right side of IN or BETWEEN")
        case .path(let p):
            _ = try each(p, object, table, visit)
        case .subquery(let p, let predicate, let target):
            _ = try visit(.value(.int(try count(p, predicate, target, object, table))))
        }
        return c.quantifier == .all || c.quantifier == .none ? !hit : hit
    }

    /// `match_one`: whether one left value matches the right side.
    private func matchOne(_ c: Comparison, _ left: Item, _ right: [Item]) throws -> Bool {
        func pair(_ r: Item) throws -> (QueryValue, QueryValue) {
            (try left.value(keyed: r.isObject), try r.value(keyed: left.isObject))
        }
        switch c.op {
        case .in:
            for r in right {
                let (a, b) = try pair(r)
                if QueryValueComparison.equal(a, b, c.flags) { return true }
            }
            return false
        case .between:
            guard right.count == 2 else { return false }
            let (a, lo) = try pair(right[0])
            let (_, hi) = try pair(right[1])
            guard let x = QueryValueComparison.order(a, lo, c.flags), x >= 0,
                  let y = QueryValueComparison.order(a, hi, c.flags), y <= 0 else { return false }
            return true
        default:
            for r in right {
                let (a, b) = try pair(r)
                if QueryValueComparison.holds(c.op, c.flags, a, b) { return true }
            }
            return false
        }
    }

    /// How many objects the SUBQUERY's collection yields that match its predicate.
    private func count(_ p: Path, _ predicate: Node, _ target: UInt32, _ object: any QueryEvaluable,
                       _ table: UInt32) throws -> Int64 {
        var n: Int64 = 0
        _ = try each(p, object, table) { item in
            if case .object(let o, _) = item, try self.evaluate(predicate, o, target) { n += 1 }
            return false
        }
        return n
    }
}
