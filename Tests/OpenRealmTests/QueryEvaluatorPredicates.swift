import Foundation
@testable import OpenRealmQuery
import OpenRealmTestSupport

/// Random RQL predicates over ``QueryEvaluatorFixture``'s classes, as text (and `$n`
/// arguments), so that the parser, the binder, the normalizer, the compiler, ORCore and
/// the evaluator all see them: comparisons of every operator on every type with edge
/// constants, string operators with `[c]` / `[d]` / `[cd]`, IN, BETWEEN, ANY / SOME /
/// ALL / NONE over lists, sets, dictionaries and to-many links, `@count` / `@size` /
/// `@min` / `@max` / `@sum` / `@avg` / `@keys` / `@values`, dictionary subscripts, link
/// and LinkingObjects paths, key path against key path, constants on the left,
/// SUBQUERY, TRUEPREDICATE / FALSEPREDICATE and AND / OR / NOT in their spellings. A
/// few comparisons are deliberately ill-typed: ORCore and the evaluator must refuse
/// them alike.
struct QueryEvaluatorPredicates {
    typealias Values = QueryEvaluatorValues

    var rng: SplitMix64
    let values: Values
    /// The `$n` arguments of the predicate being built.
    private(set) var args: [Any] = []

    init(seed: UInt64, values: Values) {
        rng = SplitMix64(seed: seed)
        self.values = values
    }

    /// A path of the fixture, with what the generator needs to know about it.
    struct PathInfo {
        var text: String
        var type: QueryPropertyType
        var multi: Bool
        var nullable: Bool
    }

    // MARK: - Paths

    private static let objSingles: [PathInfo] = QueryEvaluatorFixture.objProperties
        .filter { $0.collection == .none && $0.type != .link }
        .map { PathInfo(text: $0.name, type: $0.type, multi: false, nullable: $0.optional) }
        + [PathInfo(text: "t.name", type: .string, multi: false, nullable: true),
           PathInfo(text: "t.n", type: .int, multi: false, nullable: true),
           PathInfo(text: "t.x", type: .double, multi: false, nullable: true),
           PathInfo(text: "dt['a'].name", type: .string, multi: false, nullable: true),
           PathInfo(text: "dt[\"b\"].x", type: .double, multi: false, nullable: true)]

    private static let objCollections: [PathInfo] = QueryEvaluatorFixture.objProperties
        .filter { $0.collection != .none && $0.type != .link }
        .map { PathInfo(text: $0.name, type: $0.type, multi: true, nullable: $0.optional || $0.type == .mixed) }
        + [PathInfo(text: "lt.name", type: .string, multi: true, nullable: false),
           PathInfo(text: "lt.x", type: .double, multi: true, nullable: false),
           PathInfo(text: "st.n", type: .int, multi: true, nullable: true),
           PathInfo(text: "dt.x", type: .double, multi: true, nullable: false),
           PathInfo(text: "lt.tags", type: .string, multi: true, nullable: false),
           PathInfo(text: "t.tags", type: .string, multi: true, nullable: false)]

    private static let objDictionaryKeys: [PathInfo] = QueryEvaluatorFixture.objProperties
        .filter { $0.collection == .dictionary && $0.type != .link }
        .map { PathInfo(text: $0.name, type: $0.type, multi: false, nullable: true) }

    private static let objLinks = ["t", "lt", "st", "dt"]
    private static let objLinkCollections = ["lt", "st", "dt", "lt", "st"]
    private static let backlinks = ["owners", "@links.Obj.lt", "@links.Obj.t", "@links.Obj.st", "@links.Obj.dt"]

    private static let targetSingles: [PathInfo] = [
        PathInfo(text: "name", type: .string, multi: false, nullable: false),
        PathInfo(text: "n", type: .int, multi: false, nullable: true),
        PathInfo(text: "x", type: .double, multi: false, nullable: false),
    ]

    private static func isOrderable(_ t: QueryPropertyType) -> Bool { t != .bool && t != .link }
    private static func isStringish(_ t: QueryPropertyType) -> Bool { t == .string || t == .binary || t == .mixed }

    // MARK: - Predicates

    /// The next predicate over objects of `className`, and its arguments.
    mutating func next(_ className: String) -> (text: String, arguments: [Any]) {
        args = []
        let text = predicate(className)
        return (text, args)
    }

    /// A predicate over objects of `className` (`prefix` is a SUBQUERY variable's `$x.`).
    mutating func predicate(_ className: String, prefix: String = "", depth: Int = 0) -> String {
        if depth < 3 && rng.chance(0.3) {
            switch rng.int(0...4) {
            case 0, 1:
                let parts = (0..<rng.int(2...3)).map { _ in predicate(className, prefix: prefix, depth: depth + 1) }
                return "(" + parts.joined(separator: rng.pick([" AND ", " and ", " && "])) + ")"
            case 2, 3:
                let parts = (0..<rng.int(2...3)).map { _ in predicate(className, prefix: prefix, depth: depth + 1) }
                return "(" + parts.joined(separator: rng.pick([" OR ", " or ", " || "])) + ")"
            default:
                return rng.pick(["NOT ", "!", "not "]) + "(" + predicate(className, prefix: prefix, depth: depth + 1) + ")"
            }
        }
        if rng.chance(0.03) { return rng.pick(["TRUEPREDICATE", "FALSEPREDICATE"]) }
        return className == "Obj" ? objLeaf(prefix, depth: depth) : targetLeaf(prefix, depth: depth)
    }

    private mutating func objLeaf(_ prefix: String, depth: Int) -> String {
        switch rng.int(0...19) {
        case 0...5:
            return comparison(prefix, rng.pick(Self.objSingles))
        case 6...8:
            return comparison(prefix, rng.pick(Self.objCollections))
        case 9:
            var p = rng.pick(Self.objDictionaryKeys)
            p.text += "[\(QueryRenderer.string(rng.pick(Values.dictionaryKeys)))]"
            return comparison(prefix, p)
        case 10:
            return aggregate(prefix, rng.pick(Self.objCollections))
        case 11:
            let p = rng.pick(Self.objSingles.filter { $0.type == .string || $0.type == .binary })
            return comparison(prefix, PathInfo(text: p.text + rng.pick([".@count", ".@size"]), type: .int, multi: false, nullable: true))
        case 12:
            let d = rng.pick(QueryEvaluatorFixture.objProperties.filter { $0.collection == .dictionary })
            return comparison(prefix, PathInfo(text: d.name + ".@keys", type: .string, multi: true, nullable: false))
        case 13:
            let d = rng.pick(QueryEvaluatorFixture.objProperties.filter { $0.collection == .dictionary && $0.type != .link })
            return comparison(prefix, PathInfo(text: d.name + ".@values", type: d.type, multi: true, nullable: d.optional))
        case 14:
            return pathAgainstPath(prefix, Self.objSingles + Self.objCollections)
        case 15:
            return constantOnTheLeft(prefix, rng.pick(Self.objSingles + Self.objCollections))
        case 16:
            return links(prefix)
        case 17:
            let n = rng.int(0...3)
            return "\(prefix)\(rng.pick(Self.objLinkCollections + ["lt.tags", "t.tags", "li", "sm", "dm"])).\(rng.pick(["@count", "@size"])) \(rng.pick(["==", ">", "<=", "!="])) \(n)"
        case 18 where depth < 2 && prefix.isEmpty:
            let inner = predicate("Target", prefix: "$x.", depth: depth + 1)
            return "SUBQUERY(\(rng.pick(Self.objLinkCollections)), $x, \(inner)).@count \(rng.pick([">", "==", ">=", "<"])) \(rng.int(0...2))"
        default:
            return comparison(prefix, rng.pick(Self.objSingles))
        }
    }

    private mutating func targetLeaf(_ prefix: String, depth: Int) -> String {
        switch rng.int(0...9) {
        case 0...2:
            return comparison(prefix, rng.pick(Self.targetSingles))
        case 3:
            return comparison(prefix, PathInfo(text: "tags", type: .string, multi: true, nullable: false))
        case 4, 5:
            // Through LinkingObjects to a value of the linking object.
            var p = rng.pick(Self.objSingles.filter { !$0.text.contains(".") && !$0.text.contains("[") })
            p.text = rng.pick(Self.backlinks) + "." + p.text
            p.multi = true
            return rng.chance(0.3) ? aggregate(prefix, p) : comparison(prefix, p)
        case 6:
            return "\(prefix)\(rng.pick(Self.backlinks)).\(rng.pick(["@count", "@size"])) \(rng.pick(["==", ">", "<", ">="])) \(rng.int(0...2))"
        case 7 where depth < 2 && prefix.isEmpty:
            let inner = predicate("Obj", prefix: "$y.", depth: depth + 1)
            return "SUBQUERY(\(rng.pick(Self.backlinks)), $y, \(inner)).@count \(rng.pick([">", "==", ">="])) \(rng.int(0...1))"
        case 8:
            return aggregate(prefix, PathInfo(text: "tags", type: .string, multi: true, nullable: false))
        default:
            return pathAgainstPath(prefix, Self.targetSingles + [PathInfo(text: "tags", type: .string, multi: true, nullable: false)])
        }
    }

    // MARK: - Comparisons

    private mutating func quantifier(_ p: PathInfo) -> String {
        if p.multi { return rng.pick(["", "", "ANY ", "SOME ", "ALL ", "NONE "]) }
        return rng.chance(0.05) ? rng.pick(["ALL ", "NONE ", "ANY "]) : ""
    }

    private mutating func options(_ type: QueryPropertyType) -> String {
        guard type == .string || type == .mixed || rng.chance(0.03) else { return "" }
        return rng.pick(["", "", "[c]", "[d]", "[cd]"])
    }

    private mutating func orderingOperator() -> String { rng.pick(["<", "<=", ">", ">=", "=<", "=>"]) }
    private mutating func equalityOperator() -> String { rng.pick(["==", "=", "!=", "<>"]) }
    private mutating func stringOperator() -> String { rng.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "beginswith", "like"]) }

    /// `path op constant`, IN or BETWEEN.
    private mutating func comparison(_ prefix: String, _ p: PathInfo) -> String {
        let path = prefix + p.text
        let q = quantifier(p)
        switch rng.int(0...9) {
        case 0...3:
            return "\(q)\(path) \(equalityOperator())\(options(p.type)) \(constant(p.type, nullable: p.nullable))"
        case 4...5 where Self.isOrderable(p.type) || rng.chance(0.05):
            return "\(q)\(path) \(orderingOperator())\(options(p.type)) \(constant(p.type, nullable: false))"
        case 6...7 where Self.isStringish(p.type) || rng.chance(0.05):
            let op = stringOperator()
            let c = op.lowercased() == "like" && rng.chance(0.7)
                ? literal(.string(rng.pick(Values.patterns))) : constant(p.type == .mixed ? .string : p.type, nullable: false)
            return "\(q)\(path) \(op)\(options(p.type)) \(c)"
        case 8:
            let list = (0..<rng.int(0...3)).map { _ in constant(p.type, nullable: p.nullable, allowArgument: false) }
            return "\(q)\(path) IN {\(list.joined(separator: ", "))}"
        case 9 where Self.isOrderable(p.type):
            return "\(q)\(path) BETWEEN {\(constant(p.type, nullable: false, allowArgument: false)), \(constant(p.type, nullable: false, allowArgument: false))}"
        default:
            return "\(q)\(path) \(equalityOperator())\(options(p.type)) \(constant(p.type, nullable: p.nullable))"
        }
    }

    /// An aggregate of a many-valued path compared with a constant.
    private mutating func aggregate(_ prefix: String, _ p: PathInfo) -> String {
        let path = prefix + p.text
        let numeric = p.type.isNumeric || p.type == .mixed
        switch rng.int(0...3) {
        case 0:
            return "\(path).\(rng.pick(["@count", "@size"])) \(rng.pick(["==", ">", "<=", "!="])) \(rng.int(0...3))"
        case 1 where numeric || p.type == .timestamp:
            let type = p.type == .mixed ? rng.pick([QueryPropertyType.int, .double, .timestamp, .decimal]) : p.type
            return "\(path).\(rng.pick(["@min", "@max"])) \(rng.pick(["==", "!=", "<", ">=", ">"])) \(constant(type, nullable: rng.chance(0.1)))"
        case 2...3 where numeric:
            let type = rng.pick([QueryPropertyType.int, .double, .float, .decimal])
            let agg = rng.pick(["@sum", "@avg"])
            let nullable = agg == "@avg" && rng.chance(0.1)
            return "\(path).\(agg) \(rng.pick(["==", "!=", "<", ">=", ">", "<="])) \(constant(type, nullable: nullable))"
        default:
            return "\(path).@count \(rng.pick(["==", ">", ">="])) \(rng.int(0...2))"
        }
    }

    /// A key path against another key path of a comparable type.
    private mutating func pathAgainstPath(_ prefix: String, _ pool: [PathInfo]) -> String {
        let l = rng.pick(pool)
        let candidates = pool.filter {
            $0.type == l.type || ($0.type.isNumeric && l.type.isNumeric) || $0.type == .mixed || l.type == .mixed
        }
        let r = rng.chance(0.05) ? rng.pick(pool) : rng.pick(candidates)
        let orderable = Self.isOrderable(l.type) && Self.isOrderable(r.type)
        let stringish = Self.isStringish(l.type) && Self.isStringish(r.type)
        var ops = ["==", "!="]
        if orderable { ops += ["<", ">="] }
        if stringish { ops += ["BEGINSWITH", "CONTAINS", "LIKE", "ENDSWITH"] }
        return "\(quantifier(l))\(prefix)\(l.text) \(rng.pick(ops))\(options(l.type)) \(prefix)\(r.text)"
    }

    /// `constant op path` (mirrored by the normalizer), or `constant IN path`.
    private mutating func constantOnTheLeft(_ prefix: String, _ p: PathInfo) -> String {
        let c = constant(p.type, nullable: p.nullable)
        var ops = ["==", "!=", "IN"]
        if Self.isOrderable(p.type) { ops += ["<", ">="] }
        if Self.isStringish(p.type) { ops += ["BEGINSWITH", "CONTAINS", "LIKE"] }
        return "\(c) \(rng.pick(ops))\(options(p.type)) \(prefix)\(p.text)"
    }

    /// Links compared with nil, with objects, and with each other.
    private mutating func links(_ prefix: String) -> String {
        let link = rng.pick(Self.objLinks + ["dt['a']", "dt['é']"])
        let isMulti = link == "lt" || link == "st" || link == "dt"
        let q = isMulti ? rng.pick(["", "ANY ", "ALL ", "NONE "]) : ""
        switch rng.int(0...2) {
        case 0: return "\(q)\(prefix)\(link) \(rng.pick(["==", "!="])) \(rng.pick(["nil", "NULL"]))"
        case 1: return "\(q)\(prefix)\(link) \(rng.pick(["==", "!="])) \(constant(.link, nullable: true))"
        default: return "\(q)\(prefix)\(link) \(rng.pick(["==", "!="])) \(prefix)\(rng.pick(Self.objLinks))"
        }
    }

    // MARK: - Constants

    /// A constant for a path of `type`: mostly of that type (numbers of any number type,
    /// strings for binaries and valid UTF-8 bytes for strings, anything for mixed), now
    /// and then nil, and rarely of an unrelated type.
    private mutating func constant(_ type: QueryPropertyType, nullable: Bool, allowArgument: Bool = true) -> String {
        let v: QueryValue
        if rng.chance(0.03) {
            v = values.random(.mixed, &rng)
        } else if (nullable || type == .mixed) && rng.chance(0.12) {
            v = .null
        } else if type.isNumeric && rng.chance(0.35) {
            v = values.random(rng.pick([.int, .float, .double, .decimal]), &rng)
        } else if type == .binary && rng.chance(0.3) {
            v = .string(rng.pick(["abc", "a", "", "é", "A"]))
        } else if type == .string && rng.chance(0.1) {
            v = .binary(Data(rng.pick(Values.strings).utf8))
        } else {
            v = values.random(type, &rng)
        }
        if allowArgument && rng.chance(0.2) {
            args.append(v)
            return "$\(args.count - 1)"
        }
        return literal(v)
    }

    private func literal(_ v: QueryValue) -> String { QueryRenderer.value(v) }
}
