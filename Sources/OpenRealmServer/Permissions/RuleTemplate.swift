import Foundation
import OpenRealmQuery

/// A read or write rule's RQL with the user variables `%user.id` and `%user.email`.
///
/// The variables become query arguments, so a user id or email is never spliced into
/// the query text: `owner == %user.id` is parsed as `owner == $0` and bound to the id.
struct RuleTemplate: Sendable, Hashable {
    /// The rule as configured.
    let text: String
    /// The text with the variables turned into `$0` (id) and `$1` (email).
    private let parameterized: String
    /// `parameterized` parsed, its arguments unbound.
    private let unbound: ParsedQuery

    /// Checks a rule at configuration time.
    ///
    /// - Parameter key: the configuration key, for messages (`rules.Task.read`).
    /// - Throws: ``ServerError`` naming the key: arguments (`$0`, `%@`, `%K`) or an
    ///   unknown `%` variable, an RQL syntax error, SORT / DISTINCT / LIMIT, a path
    ///   through a link, a backlink or a SUBQUERY.
    init(_ text: String, key: String) throws {
        self.text = text
        self.parameterized = try Self.parameterize(text, key: key)
        let parsed: ParsedQuery
        do {
            parsed = try QueryParser.parse(parameterized, arguments: ["user-id", "user@example.com"])
        } catch let error as QueryError {
            throw ServerError("'\(key)': \(error.message)")
        }
        unbound = try! QueryParser.parse(parameterized) // parsed above with arguments; binding them cannot fail
        guard parsed.descriptors.isEmpty else { throw ServerError("'\(key)': SORT, DISTINCT and LIMIT are not allowed in rules") }
        if let problem = Self.linkPath(in: parsed.predicate) {
            throw ServerError("'\(key)': \(problem); rules may use only the class's own fields")
        }
    }

    /// The rule's predicate for a user. `email` is the user's verified email
    /// (``UserRecord/verifiedEmail``); without one, every comparison with `%user.email`
    /// grants nothing: it is false where it would let an object in, and true under a
    /// `NOT` (so `NOT editor == %user.email` does not let in every object either). An
    /// unverified or absent address never matches a value, `""` and null included.
    func predicate(userId: String, email: String?) -> QueryPredicate {
        var query = unbound
        if email == nil { query.predicate = Self.withoutEmail(query.predicate, granting: true) }
        // The text parsed at configuration time; binding strings cannot fail.
        return (try? query.binding([userId, email ?? ""]).normalized().predicate) ?? .falsePredicate
    }

    /// `predicate` with each comparison that mentions `%user.email` (`$1`) replaced by
    /// the constant that grants nothing at its polarity.
    private static func withoutEmail(_ predicate: QueryPredicate, granting: Bool) -> QueryPredicate {
        func mentionsEmail(_ operand: QueryOperand) -> Bool {
            switch operand {
            case .argument(1): return true
            case .list(let items): return items.contains(where: mentionsEmail)
            default: return false
            }
        }
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .and(let ps): return .and(ps.map { withoutEmail($0, granting: granting) })
        case .or(let ps): return .or(ps.map { withoutEmail($0, granting: granting) })
        case .not(let inner): return .not(withoutEmail(inner, granting: !granting))
        case .comparison(let c):
            guard mentionsEmail(c.lhs) || mentionsEmail(c.rhs) else { return predicate }
            return granting ? .falsePredicate : .truePredicate
        case .geoWithin(let g):
            guard g.shape == .argument(1) else { return predicate }
            return granting ? .falsePredicate : .truePredicate
        }
    }

    /// The text with `%user.id` → `$0` and `%user.email` → `$1` outside string literals.
    private static func parameterize(_ text: String, key: String) throws -> String {
        let chars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        var quote: Unicode.Scalar?
        func word(at j: Int) -> String {
            var k = j
            var s = ""
            while k < chars.count, chars[k].properties.isAlphabetic || chars[k] == "." || chars[k] == "_" || ("0"..."9").contains(chars[k]) {
                s.unicodeScalars.append(chars[k])
                k += 1
            }
            return s
        }
        while i < chars.count {
            let c = chars[i]
            if let q = quote {
                out.append(c)
                if c == "\\", i + 1 < chars.count { out.append(chars[i + 1]); i += 2; continue }
                if c == q { quote = nil }
                i += 1
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
                out.append(c)
                i += 1
            case "$" where i + 1 < chars.count && ("0"..."9").contains(chars[i + 1]):
                throw ServerError("'\(key)': arguments ($0, %@, %K) are not allowed in rules; use %user.id or %user.email")
            case "%":
                let name = word(at: i + 1)
                switch name {
                case "user.id": out.append(contentsOf: "$0".unicodeScalars)
                case "user.email": out.append(contentsOf: "$1".unicodeScalars)
                default:
                    throw ServerError("'\(key)': unknown variable '%\(name)' (known: %user.id, %user.email; arguments are not allowed)")
                }
                i += 1 + name.unicodeScalars.count
            default:
                out.append(c)
                i += 1
            }
        }
        return String(out)
    }

    /// Why the predicate leaves the object (a link path, backlink or SUBQUERY), or nil.
    private static func linkPath(in p: QueryPredicate) -> String? {
        func operand(_ o: QueryOperand) -> String? {
            switch o {
            case .keyPath(let path):
                for (i, component) in path.components.enumerated() {
                    switch component {
                    case .backlink(let c, let prop): return "'@links.\(c).\(prop)' follows links"
                    case .property where i > 0: return "'\(path)' goes through a link"
                    default: continue
                    }
                }
                return nil
            case .subqueryCount: return "SUBQUERY follows links"
            case .list(let items): return items.lazy.compactMap(operand).first
            default: return nil
            }
        }
        switch p {
        case .truePredicate, .falsePredicate: return nil
        case .and(let ps), .or(let ps): return ps.lazy.compactMap(linkPath).first
        case .not(let inner): return linkPath(in: inner)
        case .comparison(let c): return operand(c.lhs) ?? operand(c.rhs)
        case .geoWithin(let g): return "'\(g.keyPath) GEOWITHIN' reads an embedded object through a link"
        }
    }
}
