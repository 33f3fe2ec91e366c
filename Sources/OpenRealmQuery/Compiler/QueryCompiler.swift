import Foundation

/// Compiles query trees into ORCore query programs (orcore.h, "Queries"): the
/// predicate, then the descriptors. Key paths are resolved against a ``QuerySchema``
/// and comparisons type-checked here, so mistakes come back as a ``QueryError`` that
/// names the property, the class and the types rather than as an ORCore byte offset.
///
/// ```swift
/// let query = try QueryParser.parse("age > $0 AND 'comedy' IN genres SORT(name ASC)", arguments: [18])
/// let program = try QueryCompiler.compile(query, className: "Person", schema: schema)
/// // orc_query_compile(txn, personTable, program, program.count, &q)
/// ```
///
/// Type rules (the compiler converts constants where it can do so exactly, so that
/// ORCore's planner sees constants of the property's own type and can use an index):
///
/// - Numbers compare across int, float, double and decimal: `5` against a double
///   property is sent as `5.0`, `5.0` against an int property as `5`; a constant that
///   does not convert exactly (`5.5` against an int) is sent as written (ORCore
///   compares numbers by value).
/// - A string constant against a binary property is sent as its UTF-8 bytes, and
///   bytes that are valid UTF-8 against a string property as a string.
/// - Other types compare only with themselves; links only with objects of the
///   target class; mixed properties with anything.
/// - `nil` only against optional properties, links, mixed, missing dictionary keys,
///   paths through a to-one link, and @min / @max / @avg; never with `<`, `>`, ...
/// - `<`, `<=`, `>`, `>=`, BETWEEN never on bools or objects.
/// - BEGINSWITH, ENDSWITH, CONTAINS, LIKE only on strings, binaries and mixed, and
///   only with string, binary or nil constants (also against a mixed property);
///   `[c]` / `[d]` only on those too.
///
/// Placeholders must be bound first (``ParsedQuery/binding(_:rawValue:)``).
package struct QueryCompiler {
    /// The schema key paths are resolved against.
    package let schema: any QuerySchema

    package init(schema: any QuerySchema) {
        self.schema = schema
    }

    /// Compiles a whole query for objects of `className`: the ORCore program bytes.
    package static func compile(_ query: ParsedQuery, className: String, schema: any QuerySchema) throws -> [UInt8] {
        try QueryCompiler(schema: schema).compile(query, className: className)
    }

    /// Compiles a whole query (predicate, then descriptors) for objects of `className`.
    ///
    /// - Throws: ``QueryError``: `.unknownProperty` (a class or property the schema does
    ///   not have), `.typeMismatch`, `.badArgument` (a placeholder left unbound),
    ///   `.unsupported`.
    package func compile(_ query: ParsedQuery, className: String) throws -> [UInt8] {
        let q = query.normalized()
        let cls = try queryClass(className)
        var w = QueryProgramWriter()
        try predicate(q.predicate, cls, depth: 1, into: &w)
        w.append(try descriptors(q.descriptors, cls))
        return w.bytes
    }

    /// Compiles a predicate alone (a program without descriptors).
    package func compile(_ predicate: QueryPredicate, className: String) throws -> [UInt8] {
        var w = QueryProgramWriter()
        try self.predicate(predicate.normalized(), try queryClass(className), depth: 1, into: &w)
        return w.bytes
    }

    package func queryClass(_ name: String) throws -> QuerySchemaClass {
        guard let cls = schema.queryClass(named: name) else {
            throw QueryError(.unknownProperty, "Invalid query: no class named '\(name)' in the schema")
        }
        return cls
    }

    // MARK: - Predicates

    /// The deepest predicate nesting ORCore compiles (AND / OR / NOT and SUBQUERY levels).
    static let maxDepth = 64

    private func predicate(_ p: QueryPredicate, _ cls: QuerySchemaClass, depth: Int,
                           into w: inout QueryProgramWriter) throws {
        guard depth <= Self.maxDepth else {
            throw QueryError(.unsupported, "Invalid query: predicates nest deeper than \(Self.maxDepth) levels")
        }
        switch p {
        case .truePredicate:
            w.u8(QueryProgramWriter.opTrue)
        case .falsePredicate:
            w.u8(QueryProgramWriter.opFalse)
        case .and(let parts), .or(let parts):
            if case .and = p { w.u8(QueryProgramWriter.opAnd) } else { w.u8(QueryProgramWriter.opOr) }
            w.u32(UInt32(parts.count))
            for part in parts { try predicate(part, cls, depth: depth + 1, into: &w) }
        case .not(let inner):
            w.u8(QueryProgramWriter.opNot)
            try predicate(inner, cls, depth: depth + 1, into: &w)
        case .comparison(let c):
            try comparison(c, cls, depth: depth, into: &w)
        case .geoWithin(let g):
            try geoWithin(g, cls, into: &w)
        }
    }

    // MARK: - Comparisons

    /// An operand after resolution.
    private enum Operand {
        case path(ResolvedPath)
        case constant(QueryValue)
        case list([QueryValue])
        /// A SUBQUERY count: its collection path bytes and compiled predicate.
        case subquery(path: [UInt8], predicate: [UInt8])

        var isConstant: Bool {
            switch self {
            case .constant, .list: return true
            default: return false
            }
        }
    }

    /// The side of a comparison that gives the other its type.
    private struct Typed {
        var type: QueryPropertyType
        var target: QuerySchemaClass?
        var isNullable: Bool
        var name: String
        var typeDescription: String
    }

    private func typed(_ o: Operand) -> Typed? {
        switch o {
        case .path(let r):
            return Typed(type: r.type, target: r.target, isNullable: r.isNullable, name: r.name,
                         typeDescription: r.typeDescription)
        case .subquery:
            return Typed(type: .int, target: nil, isNullable: false, name: "the SUBQUERY count", typeDescription: "int")
        case .constant, .list:
            return nil
        }
    }

    private func comparison(_ c: QueryComparison, _ cls: QuerySchemaClass, depth: Int,
                            into w: inout QueryProgramWriter) throws {
        var lhs = try operand(c.lhs, cls, depth: depth)
        var rhs = try operand(c.rhs, cls, depth: depth)
        let op = c.op

        if case .list = lhs {
            throw QueryError(.unsupported, "Invalid query: a list can only be the right side of IN or BETWEEN (in '\(QueryRenderer.render(.comparison(c)))')")
        }
        switch (op, rhs) {
        case (.in, .list), (.between, .list): break
        case (.in, _), (.between, _):
            throw QueryError(.typeMismatch, "Invalid query: \(op.token) needs a list on its right side (in '\(QueryRenderer.render(.comparison(c)))')")
        case (_, .list):
            throw QueryError(.unsupported, "Invalid query: '\(op.token)' cannot take a list (only ==, IN and BETWEEN can)")
        default: break
        }
        if op == .between, case .list(let values) = rhs, values.count != 2 {
            throw QueryError(.typeMismatch, "Invalid query: BETWEEN needs a list of 2 values, found \(values.count)")
        }

        if let left = typed(lhs) {
            try checkOperator(op, options: c.options, on: left)
            switch rhs {
            case .constant(let v):
                rhs = .constant(try coerce(v, to: left, op: op))
            case .list(let values):
                rhs = .list(try values.map { try coerce($0, to: left, op: op) })
            case .path, .subquery:
                let right = typed(rhs)!
                try checkOperator(op, options: c.options, on: right)
                try checkCompatible(left, right, op: op)
            }
        } else if let right = typed(rhs) {
            // A constant on the left of a path that could not be mirrored (string operators).
            try checkOperator(op, options: c.options, on: right)
            if case .constant(let v) = lhs { lhs = .constant(try coerce(v, to: right, op: op)) }
        } else {
            try checkConstants(lhs, rhs, op: op)
        }

        w.u8(QueryProgramWriter.opCompare)
        w.u8(op.rawValue)
        w.u8(c.options.rawValue)
        w.u8(c.quantifier == .any ? 0 : c.quantifier.rawValue)
        expression(lhs, into: &w)
        expression(rhs, into: &w)
    }

    private func operand(_ o: QueryOperand, _ cls: QuerySchemaClass, depth: Int) throws -> Operand {
        switch o {
        case .keyPath(let path):
            return .path(try resolve(path, from: cls))
        case .value(let v):
            return .constant(v)
        case .list(let items):
            return .list(try items.map { item in
                guard case .value(let v) = item else {
                    if case .argument(let i) = item { throw unbound(i) }
                    throw QueryError(.unsupported, "Invalid query: a list may hold only constants")
                }
                return v
            })
        case .argument(let i), .keyPathArgument(let i):
            throw unbound(i)
        case .subqueryCount(let s):
            let collection = try resolve(s.collection, from: cls)
            guard collection.type == .link, let target = collection.target, s.collection.aggregate == nil else {
                throw QueryError(.typeMismatch, "Invalid query: SUBQUERY needs a collection of objects, but \(collection.name) is a \(collection.typeDescription)")
            }
            var inner = QueryProgramWriter()
            try predicate(s.predicate, target, depth: depth + 1, into: &inner)
            return .subquery(path: collection.bytes, predicate: inner.bytes)
        }
    }

    private func unbound(_ i: Int) -> QueryError {
        QueryError(.badArgument, "Invalid query: argument $\(i) is not bound (pass the query's arguments)")
    }

    private func expression(_ o: Operand, into w: inout QueryProgramWriter) {
        switch o {
        case .path(let r):
            w.u8(QueryProgramWriter.exprPath)
            w.append(r.bytes)
        case .constant(let v):
            w.u8(QueryProgramWriter.exprConstant)
            w.value(v)
        case .list(let values):
            w.u8(QueryProgramWriter.exprList)
            w.u32(UInt32(values.count))
            for v in values { w.value(v) }
        case .subquery(let path, let predicate):
            w.u8(QueryProgramWriter.exprSubquery)
            w.append(path)
            w.append(predicate)
        }
    }

    // MARK: - Type rules

    private static func isStringish(_ t: QueryPropertyType) -> Bool {
        t == .string || t == .binary || t == .mixed
    }

    private func checkOperator(_ op: QueryOperator, options: QueryStringOptions, on side: Typed) throws {
        if op.isOrdering, side.type == .bool || side.type == .link {
            throw QueryError(.typeMismatch, "Invalid query: '\(op.token)' cannot order \(side.name), a \(side.typeDescription)")
        }
        if op.isStringOperator, !Self.isStringish(side.type) {
            throw QueryError(.typeMismatch, "Invalid query: \(op.token) needs a string or binary, but \(side.name) is a \(side.typeDescription)")
        }
        if !options.isEmpty, !Self.isStringish(side.type) {
            throw QueryError(.typeMismatch, "Invalid query: the options [c] / [d] apply to strings, but \(side.name) is a \(side.typeDescription)")
        }
    }

    private func checkCompatible(_ a: Typed, _ b: Typed, op: QueryOperator) throws {
        let ok: Bool
        if a.type == .mixed || b.type == .mixed || (a.type.isNumeric && b.type.isNumeric) {
            ok = true
        } else if a.type != b.type {
            ok = false
        } else {
            ok = a.type != .link || a.target?.table == b.target?.table
        }
        if !ok {
            throw QueryError(.typeMismatch, "Invalid query: cannot compare \(a.name) (\(a.typeDescription)) with \(b.name) (\(b.typeDescription)) using '\(op.token)'")
        }
    }

    private func checkConstants(_ a: Operand, _ b: Operand, op: QueryOperator) throws {
        guard case .constant(let x) = a else { return }
        let ys: [QueryValue]
        switch b {
        case .constant(let y): ys = [y]
        case .list(let l): ys = l
        default: return
        }
        try checkConstant(x, op: op)
        for y in ys {
            try checkConstant(y, op: op)
            var ok = x == .null || y == .null || (x.isNumeric && y.isNumeric) || x.typeName == y.typeName
            if case .link(let a, _) = x, case .link(let b, _) = y, a != b { ok = false }
            if !ok {
                throw QueryError(.typeMismatch, "Invalid query: cannot compare \(QueryRenderer.value(x)) (\(x.typeName)) with \(QueryRenderer.value(y)) (\(y.typeName))")
            }
        }
    }

    /// Refuses a constant the operator cannot take, as ORCore's compiler does whatever
    /// the other side: a bool or object ordered, anything but a string, bytes or nil under
    /// BEGINSWITH / ENDSWITH / CONTAINS / LIKE.
    private func checkConstant(_ v: QueryValue, op: QueryOperator) throws {
        let bad: Bool
        switch v {
        case .bool, .link: bad = op.isOrdering || op.isStringOperator
        case .string, .binary, .null: bad = false
        default: bad = op.isStringOperator
        }
        if bad {
            throw QueryError(.typeMismatch, "Invalid query: '\(op.token)' cannot take \(QueryRenderer.value(v)) (\(v.typeName))")
        }
    }

    /// A constant compared with `side`, converted to the side's type where that is exact.
    private func coerce(_ v: QueryValue, to side: Typed, op: QueryOperator) throws -> QueryValue {
        func mismatch() -> QueryError {
            QueryError(.typeMismatch, "Invalid query: cannot compare \(side.name) (\(side.typeDescription)) with \(QueryRenderer.value(v)) (\(v.typeName)) using '\(op.token)'")
        }
        if v == .null {
            if op.isOrdering {
                throw QueryError(.typeMismatch, "Invalid query: '\(op.token)' cannot compare \(side.name) with nil")
            }
            guard side.isNullable || side.type == .mixed || op.isStringOperator else {
                throw QueryError(.typeMismatch, "Invalid query: \(side.name) (\(side.typeDescription)) is not optional, so it cannot be compared with nil")
            }
            return v
        }
        if op.isOrdering, case .bool = v { throw mismatch() }
        if op.isOrdering, case .link = v { throw mismatch() }
        if side.type == .mixed {
            try checkConstant(v, op: op)
            return v
        }
        if side.type.isNumeric, v.isNumeric { return Self.exactNumber(v, as: side.type) }
        switch (side.type, v) {
        case (.bool, .bool), (.string, .string), (.binary, .binary), (.timestamp, .timestamp),
             (.decimal, .decimal), (.objectId, .objectId), (.uuid, .uuid):
            return v
        case (.binary, .string(let s)):
            return .binary(Data(s.utf8))
        case (.string, .binary(let d)):
            guard let s = String(validatingUTF8Data: d) else { throw mismatch() }
            return .string(s)
        case (.link, .link(let table, _)):
            guard let target = side.target, target.table == table else {
                throw QueryError(.typeMismatch, "Invalid query: cannot compare \(side.name) (\(side.typeDescription)) with an object of another class (table \(table)) using '\(op.token)'")
            }
            return v
        default:
            throw mismatch()
        }
    }

    /// `v` as a number of type `t` when the conversion is exact, else `v` unchanged.
    static func exactNumber(_ v: QueryValue, as t: QueryPropertyType) -> QueryValue {
        switch (t, v) {
        case (.int, .double(let d)):
            if let i = Int64(exactly: d) { return .int(i) }
        case (.int, .float(let f)):
            if let i = Int64(exactly: f) { return .int(i) }
        case (.double, .int(let i)):
            if let d = Double(exactly: i) { return .double(d) }
        case (.double, .float(let f)):
            return .double(Double(f))
        case (.float, .int(let i)):
            if let f = Float(exactly: i) { return .float(f) }
        case (.float, .double(let d)):
            if let f = Float(exactly: d) { return .float(f) }
        case (.decimal, .int(let i)):
            if let d = try? Decimal128(string: String(i)) { return .decimal(d) }
        default:
            break
        }
        return v
    }
}

private extension String {
    /// The string of `data` when it is valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        guard let s = String(bytes: data, encoding: .utf8) else { return nil }
        self = s
    }
}
