import Foundation

/// The canonical RQL form of a query: `ParsedQuery.description`.
///
/// The canonical string IDENTIFIES UNNAMED SYNC SUBSCRIPTIONS (an unnamed subscription
/// is its class plus this string) and is what the client sends to the server, so it
/// must stay stable across releases: changing any rule below changes the identity of
/// existing subscriptions. It is printed from the normal form (`QueryNormalizer.swift`),
/// so equivalent spellings print alike, and the parser reads it back to a query that
/// prints the same string again.
///
/// The rules:
///
/// - Tokens are separated by one space; no leading or trailing space.
/// - Logic: `AND`, `OR`, `NOT` in capitals. An OR inside an AND, and an AND inside an
///   OR, are parenthesized: `(a == 1 AND b == 2) OR c == 3`. NOT is always followed by
///   a parenthesized predicate: `NOT (a == 1)`. `TRUEPREDICATE`, `FALSEPREDICATE`.
/// - Comparisons: `lhs op rhs` with `==`, `!=`, `<`, `<=`, `>`, `>=`, `BEGINSWITH`,
///   `ENDSWITH`, `CONTAINS`, `LIKE`, `IN`, `BETWEEN`; options follow the operator with
///   no space: `==[c]`, `CONTAINS[cd]`, `LIKE[d]`. `ALL ` or `NONE ` precede the left
///   operand; ANY / SOME are never printed (they are the default).
/// - Key paths: property names joined by `.`, dictionary keys as `["key"]`, backlinks
///   as `@links.Class.property`, a trailing aggregate as `.@count`, `.@min`, `.@max`,
///   `.@sum`, `.@avg`, `.@keys`, `.@values` (never `@size`; `items.@sum.price` prints
///   as `items.price.@sum`).
/// - SUBQUERY: `SUBQUERY(path, $x, predicate).@count`, the variable named `$x`, and
///   `$x2`, `$x3`, ... in nested subqueries, whatever was written.
/// - Constants: `nil`; `true` / `false`; integers in decimal; doubles in Swift's
///   shortest round-trip form (`5.0`, `0.1`, `1e-05`, `-1.5e+300`), `infinity`,
///   `-infinity`, `nan`; floats likewise with an `f` suffix (`1.5f`; infinite and NaN
///   floats print as the double forms); strings in double quotes with `\"`, `\\`,
///   `\n`, `\r`, `\t`, `\b`, `\f`, `\0` and `\uXXXX` for other control characters, other
///   characters as they are; binary `B64"<standard base64 with padding>"`; dates
///   `T<seconds>:<nanoseconds>`; `decimal128(<Decimal128.stringValue>)`;
///   `oid(<24 lowercase hex digits>)`; `uuid(<lowercase 8-4-4-4-12>)`; objects
///   `L<table>:<key>`; lists `{a, b, c}` in the order given.
/// - Descriptors follow the predicate in the order written: `SORT(a ASC, b DESC)`,
///   `DISTINCT(a, b)`, `LIMIT(10)`.
/// - Placeholders left unbound print as `$n` and `%K` (such a string is not canonical).
package enum QueryRenderer {
    /// The canonical string of a query.
    package static func render(_ query: ParsedQuery) -> String {
        let q = query.normalized()
        var out = predicate(q.predicate, depth: 0, context: .top)
        for d in q.descriptors {
            out += " " + descriptor(d)
        }
        return out
    }

    /// The canonical string of a predicate alone.
    package static func render(_ p: QueryPredicate) -> String {
        predicate(p.normalized(), depth: 0, context: .top)
    }

    private enum Context { case top, and, or }

    private static func predicate(_ p: QueryPredicate, depth: Int, context: Context) -> String {
        switch p {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .and(let parts):
            if parts.isEmpty { return "TRUEPREDICATE" }
            let s = parts.map { predicate($0, depth: depth, context: .and) }.joined(separator: " AND ")
            return context == .or && parts.count > 1 ? "(\(s))" : s
        case .or(let parts):
            if parts.isEmpty { return "FALSEPREDICATE" }
            let s = parts.map { predicate($0, depth: depth, context: .or) }.joined(separator: " OR ")
            return context == .and && parts.count > 1 ? "(\(s))" : s
        case .not(let inner):
            return "NOT (\(predicate(inner, depth: depth, context: .top)))"
        case .comparison(let c):
            return comparison(c, depth: depth)
        case .geoWithin(let g):
            return keyPath(g.keyPath, depth: depth) + " GEOWITHIN " + geoOperand(g.shape)
        }
    }

    /// A shape as the parser reads it back: `geoBox([lng, lat], [lng, lat])`,
    /// `geoPolygon({[lng, lat], ...}, ...)`, `geoCircle([lng, lat], radians)`.
    static func geoOperand(_ o: QueryGeoOperand) -> String {
        func point(_ p: GeoPoint) -> String {
            let alt = p.altitude == 0 ? "" : ", " + value(.double(p.altitude))
            return "[" + value(.double(p.longitude)) + ", " + value(.double(p.latitude)) + alt + "]"
        }
        func ring(_ r: [GeoPoint]) -> String { "{" + r.map(point).joined(separator: ", ") + "}" }
        switch o {
        case .argument(let i):
            return "$\(i)"
        case .shape(.box(let b)):
            return "geoBox(" + point(b.bottomLeft) + ", " + point(b.topRight) + ")"
        case .shape(.polygon(let p)):
            return "geoPolygon(" + ([p.outerRing] + (p.holes ?? [])).map(ring).joined(separator: ", ") + ")"
        case .shape(.circle(let c)):
            return "geoCircle(" + point(c.center) + ", " + value(.double(c.radians)) + ")"
        }
    }

    private static func comparison(_ c: QueryComparison, depth: Int) -> String {
        var out = ""
        switch c.quantifier {
        case .all: out += "ALL "
        case .none: out += "NONE "
        case .any, .implicit: break
        }
        out += operand(c.lhs, depth: depth)
        out += " " + c.op.token + options(c.options) + " "
        out += operand(c.rhs, depth: depth)
        return out
    }

    private static func options(_ o: QueryStringOptions) -> String {
        switch (o.contains(.caseInsensitive), o.contains(.diacriticInsensitive)) {
        case (true, true): return "[cd]"
        case (true, false): return "[c]"
        case (false, true): return "[d]"
        case (false, false): return ""
        }
    }

    private static func operand(_ o: QueryOperand, depth: Int) -> String {
        switch o {
        case .keyPath(let path): return keyPath(path, depth: depth)
        case .value(let v): return value(v)
        case .list(let items): return "{" + items.map { operand($0, depth: depth) }.joined(separator: ", ") + "}"
        case .argument(let i): return "$\(i)"
        case .keyPathArgument: return "%K"
        case .subqueryCount(let s):
            let variable = variableName(depth: depth + 1)
            return "SUBQUERY(\(keyPath(s.collection, depth: depth)), \(variable), "
                + predicate(s.predicate, depth: depth + 1, context: .top) + ").@count"
        }
    }

    private static func variableName(depth: Int) -> String {
        depth <= 1 ? "$x" : "$x\(depth)"
    }

    /// A key path; inside a SUBQUERY (`depth` > 0) prefixed with its variable.
    static func keyPath(_ path: QueryKeyPath, depth: Int) -> String {
        var out = depth > 0 ? variableName(depth: depth) : ""
        for component in path.components {
            switch component {
            case .property(let name):
                out += (out.isEmpty ? "" : ".") + name
            case .dictionaryKey(let key):
                out += "[" + string(key) + "]"
            case .backlink(let className, let property):
                out += (out.isEmpty ? "" : ".") + "@links.\(className).\(property)"
            }
        }
        if let agg = path.aggregate {
            out += (out.isEmpty ? "" : ".") + "@" + (agg == .size ? "count" : agg.name)
        }
        return out
    }

    private static func descriptor(_ d: QueryDescriptor) -> String {
        switch d {
        case .sort(let keys):
            return "SORT(" + keys.map { keyPath($0.keyPath, depth: 0) + ($0.ascending ? " ASC" : " DESC") }
                .joined(separator: ", ") + ")"
        case .distinct(let paths):
            return "DISTINCT(" + paths.map { keyPath($0, depth: 0) }.joined(separator: ", ") + ")"
        case .limit(let n):
            return "LIMIT(\(n))"
        }
    }

    // MARK: - Constants

    /// The literal of a constant, as the parser reads it back.
    static func value(_ v: QueryValue) -> String {
        switch v {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return double(d)
        case .float(let f):
            if let integral = integralLiteral(Double(f)) { return integral }
            return f.isFinite ? f.description + "f" : double(Double(f))
        case .string(let s): return string(s)
        case .binary(let d): return "B64\"" + d.base64EncodedString() + "\""
        case .timestamp(let s, let ns): return "T\(s):\(ns)"
        case .decimal(let d): return "decimal128(\(d.stringValue))"
        case .objectId(let o): return "oid(\(o.stringValue.lowercased()))"
        case .uuid(let u): return "uuid(\(u.uuidString.lowercased()))"
        case .link(let table, let key): return "L\(table):\(key)"
        }
    }

    /// Integral numbers render as integers whatever their type (`3.0` and `3` are one
    /// query: ORCore compares numbers by value), so a typed query on a double property
    /// and the RQL a person writes for it get the same canonical string.
    private static func integralLiteral(_ d: Double) -> String? {
        guard d.isFinite, d == d.rounded(), abs(d) < 9_007_199_254_740_992, !(d == 0 && d.sign == .minus) else { return nil }
        return String(Int64(d))
    }

    private static func double(_ d: Double) -> String {
        if let integral = integralLiteral(d) { return integral }
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "infinity" }
        return d.description
    }

    /// A double-quoted string literal.
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}": out += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension ParsedQuery: CustomStringConvertible {
    /// The canonical RQL string (see `QueryRenderer`).
    package var description: String { QueryRenderer.render(self) }
}

extension QueryPredicate: CustomStringConvertible {
    /// The canonical RQL string of the predicate.
    package var description: String { QueryRenderer.render(self) }
}

extension QueryKeyPath: CustomStringConvertible {
    /// The key path as RQL writes it (`dog.name`, `dict["k"]`, `items.@count`).
    package var description: String { QueryRenderer.keyPath(self, depth: 0) }
}
