import Foundation

/// A recursive-descent parser for the Realm Query Language.
///
/// Grammar (keywords case-insensitive; `&&` `||` `!` are AND OR NOT):
///
/// ```
/// query       := predicate descriptor* END
/// predicate   := and ( OR and )*
/// and         := not ( AND not )*
/// not         := NOT not | primary
/// primary     := '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison  := operand operator options? operand | keypath GEOWITHIN shape
/// shape       := geoBox '(' point ',' point ')' | geoPolygon '(' ring ( ',' ring )* ')'
///              | geoCircle '(' point ',' number ')' | $n | %@
/// ring        := '{' point ( ',' point )* '}'           point := '[' lng ',' lat ( ',' alt )? ']'
/// operator    := == = != <> < <= =< > >= => BEGINSWITH ENDSWITH CONTAINS LIKE IN BETWEEN
/// options     := '[c]' | '[d]' | '[cd]'
/// operand     := quantifier? keypath | quantifier? %K | quantifier? list
///              | constant | $n | %@ | SUBQUERY '(' keypath ',' $var ',' predicate ')' '.' @count
/// quantifier  := ANY | SOME | ALL | NONE
/// keypath     := element ( '.' element )* ( '.' aggregate ( '.' name )? )?
/// element     := name ( '[' string ']' )? | '@links' '.' Class '.' property | $var
/// aggregate   := @count | @size | @min | @max | @sum | @avg | @keys | @values
/// list        := '{' ( constant ( ',' constant )* )? '}'
/// constant    := [+-]number | string | true | false | nil | null | infinity | nan
///              | T<s>:<ns> | YYYY-MM-DD@HH:MM:SS[:ns] | B64"..." | oid(hex) | uuid(...)
///              | decimal128(...) | L<table>:<key> | $n | %@
/// descriptor  := SORT '(' keypath (ASC|DESC)? ( ',' keypath (ASC|DESC)? )* ')'
///              | DISTINCT '(' keypath ( ',' keypath )* ')' | LIMIT '(' integer ')'
/// ```
///
/// Precedence: NOT binds tighter than AND, AND tighter than OR. `$n` arguments are
/// numbered as written; `%@` and `%K` take the next positional index, counting from 0
/// in the order they appear (NSPredicate style). `path.@sum.prop` is read as
/// `path.prop.@sum`. Words that are keywords in operand position (`not`, `any`,
/// `true`, `nil`, `subquery`, `infinity`, ...) cannot be used as property names there,
/// after a quantifier included (`ANY any == 1` is refused).
package struct QueryParser {
    private let tokens: [QueryToken]
    private let source: String
    private var index = 0
    private var positional = 0
    /// SUBQUERY variables in scope, innermost last; key paths inside must start with the last.
    private var variables: [String] = []
    /// Open parentheses, NOTs and SUBQUERYs around the current token.
    private var nesting = 0
    /// The deepest nesting read (ORCore runs at most 64 levels of predicates; this
    /// bounds the parser's recursion well before the stack).
    static let maxNesting = 100

    private init(_ source: String) throws {
        self.source = source
        self.tokens = try QueryLexer.tokenize(source)
    }

    // MARK: - Entry points

    /// Parses a whole query; arguments stay as placeholders (`.argument`, `.keyPathArgument`).
    package static func parse(_ text: String) throws -> ParsedQuery {
        var parser = try QueryParser(text)
        return try parser.query()
    }

    /// Parses a whole query and binds its arguments (see ``ParsedQuery/binding(_:rawValue:)``).
    package static func parse(_ text: String, arguments: [Any],
                              rawValue: @escaping QueryArgumentRawValue = QueryArgumentBinder.noRawValue) throws -> ParsedQuery {
        try parse(text).binding(arguments, rawValue: rawValue)
    }

    /// Parses a lone key path (`"dog.name"`, `"items.@count"`, `"dict['k']"`), as given to
    /// `%K`, `sorted(byKeyPath:)` or `distinct(by:)`.
    package static func parseKeyPath(_ text: String) throws -> QueryKeyPath {
        var parser = try QueryParser(text)
        guard parser.startsKeyPath(parser.current) else {
            throw parser.unexpected(parser.current, expected: "a key path")
        }
        return try parser.finishKeyPath(parser.keyPath())
    }

    private mutating func finishKeyPath(_ path: QueryKeyPath) throws -> QueryKeyPath {
        guard case .end = current.kind else { throw unexpected(current, expected: "the end of the key path") }
        return path
    }

    // MARK: - Errors

    /// A syntax error: `Invalid query: <what> in "<query>"`, with the query shortened
    /// around `offset` when it is long.
    static func syntaxError(_ what: String, at offset: Int, in source: String) -> QueryError {
        QueryError(.syntax, "Invalid query: \(what) in \"\(excerpt(source, around: offset))\"", offset: offset)
    }

    static func excerpt(_ source: String, around offset: Int) -> String {
        let scalars = Array(source.unicodeScalars)
        guard scalars.count > 200 else { return source }
        let lo = max(0, offset - 80), hi = min(scalars.count, offset + 80)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[lo..<hi])
        return (lo > 0 ? "…" : "") + String(view) + (hi < scalars.count ? "…" : "")
    }

    func unexpected(_ token: QueryToken, expected: String) -> QueryError {
        if case .end = token.kind {
            return Self.syntaxError("unexpected end of query at offset \(token.offset) (expected \(expected))",
                                    at: token.offset, in: source)
        }
        return Self.syntaxError("unexpected '\(token.text)' at offset \(token.offset) (expected \(expected))",
                                at: token.offset, in: source)
    }

    func error(_ what: String, at token: QueryToken) -> QueryError {
        Self.syntaxError("\(what) at offset \(token.offset)", at: token.offset, in: source)
    }

    func unsupported(_ what: String, at token: QueryToken) -> QueryError {
        QueryError(.unsupported, "Invalid query: \(what) at offset \(token.offset) is not supported in \"\(Self.excerpt(source, around: token.offset))\"",
                   offset: token.offset)
    }

    // MARK: - Token helpers

    var current: QueryToken { tokens[index] }

    func peekToken(_ ahead: Int) -> QueryToken {
        tokens[min(index + ahead, tokens.count - 1)]
    }

    mutating func advance() -> QueryToken {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    static func word(_ t: QueryToken) -> String? {
        if case .word(let w) = t.kind { return w.lowercased() }
        return nil
    }

    func isWord(_ t: QueryToken, _ names: String...) -> Bool {
        guard let w = Self.word(t) else { return false }
        return names.contains(w)
    }

    func isSymbol(_ t: QueryToken, _ s: String) -> Bool {
        t.kind == .symbol(s)
    }

    mutating func expect(_ s: String, _ what: String) throws -> QueryToken {
        guard isSymbol(current, s) else { throw unexpected(current, expected: what) }
        return advance()
    }

    // MARK: - Query and predicates

    private mutating func query() throws -> ParsedQuery {
        if case .end = current.kind {
            throw Self.syntaxError("empty query at offset 0", at: 0, in: source)
        }
        let predicate = try orPredicate()
        let descriptors = try descriptorList()
        guard case .end = current.kind else {
            throw unexpected(current, expected: "AND, OR, SORT, DISTINCT, LIMIT or the end of the query")
        }
        return ParsedQuery(predicate: predicate, descriptors: descriptors)
    }

    private mutating func orPredicate() throws -> QueryPredicate {
        var parts = [try andPredicate()]
        while isWord(current, "or") || isSymbol(current, "||") {
            _ = advance()
            parts.append(try andPredicate())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func andPredicate() throws -> QueryPredicate {
        var parts = [try notPredicate()]
        while isWord(current, "and") || isSymbol(current, "&&") {
            _ = advance()
            parts.append(try notPredicate())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func notPredicate() throws -> QueryPredicate {
        if isWord(current, "not") || isSymbol(current, "!") {
            try enter(advance())
            defer { nesting -= 1 }
            return .not(try notPredicate())
        }
        return try primaryPredicate()
    }

    private mutating func enter(_ t: QueryToken) throws {
        nesting += 1
        if nesting > Self.maxNesting {
            throw unsupported("nesting deeper than \(Self.maxNesting) levels ('\(t.text)')", at: t)
        }
    }

    private mutating func primaryPredicate() throws -> QueryPredicate {
        if isSymbol(current, "(") {
            try enter(advance())
            defer { nesting -= 1 }
            let inner = try orPredicate()
            _ = try expect(")", "')' or AND or OR")
            return inner
        }
        if isWord(current, "truepredicate") { _ = advance(); return .truePredicate }
        if isWord(current, "falsepredicate") { _ = advance(); return .falsePredicate }
        if case .end = current.kind { throw unexpected(current, expected: "a predicate") }
        if isSymbol(current, ")") || isWord(current, "and", "or") || isSymbol(current, "&&") || isSymbol(current, "||") {
            throw unexpected(current, expected: "a predicate")
        }
        return try comparison()
    }

    // MARK: - Comparisons

    struct Side {
        var operand: QueryOperand
        var quantifier: QueryQuantifier
        var token: QueryToken
    }

    private mutating func comparison() throws -> QueryPredicate {
        let lhs = try operand(after: nil)
        if isWord(current, "geowithin") { return .geoWithin(try geoWithin(lhs)) }
        let opToken = current
        guard let op = comparisonOperator(opToken) else {
            throw unexpected(opToken, expected: "a comparison operator after '\(lhs.token.text)'")
        }
        _ = advance()
        let options = try stringOptions()
        let rhs = try operand(after: opToken)
        return .comparison(try combine(lhs, op, opToken, options, rhs))
    }

    private func comparisonOperator(_ t: QueryToken) -> QueryOperator? {
        switch t.kind {
        case .symbol("=="): return .equal
        case .symbol("!="): return .notEqual
        case .symbol("<"): return .lessThan
        case .symbol("<="): return .lessThanOrEqual
        case .symbol(">"): return .greaterThan
        case .symbol(">="): return .greaterThanOrEqual
        default: break
        }
        switch Self.word(t) {
        case "beginswith": return .beginsWith
        case "endswith": return .endsWith
        case "contains": return .contains
        case "like": return .like
        case "in": return .in
        case "between": return .between
        default: return nil
        }
    }

    private mutating func stringOptions() throws -> QueryStringOptions {
        guard isSymbol(current, "[") else { return [] }
        let open = advance()
        guard let w = Self.word(current), !w.isEmpty, w.allSatisfy({ $0 == "c" || $0 == "d" }), w.count <= 2,
              Set(w).count == w.count else {
            throw unexpected(current, expected: "an option c, d or cd after '['")
        }
        _ = advance()
        _ = try expect("]", "']' after the options that start at offset \(open.offset)")
        var options: QueryStringOptions = []
        if w.contains("c") { options.insert(.caseInsensitive) }
        if w.contains("d") { options.insert(.diacriticInsensitive) }
        return options
    }

    /// Applies the rules that only the written form decides: where a quantifier was
    /// written, `== {list}` meaning IN, BETWEEN's two values.
    private func combine(_ lhs: Side, _ op: QueryOperator, _ opToken: QueryToken, _ options: QueryStringOptions,
                         _ rhs: Side) throws -> QueryComparison {
        var op = op
        if case .list = lhs.operand {
            throw unsupported("a list on the left of '\(opToken.text)'", at: lhs.token)
        }
        if case .list(let elements) = rhs.operand {
            if rhs.quantifier == .all || rhs.quantifier == .none {
                throw unsupported("'\(rhs.quantifier == .all ? "ALL" : "NONE")' before a list", at: rhs.token)
            }
            switch op {
            case .equal: op = .in
            case .in: break
            case .between:
                if elements.count != 2 {
                    throw error("BETWEEN needs a list of 2 values, found \(elements.count)", at: rhs.token)
                }
            default:
                throw unsupported("a list after '\(opToken.text)' (only ==, IN and BETWEEN take a list)", at: rhs.token)
            }
            return QueryComparison(lhs.operand, op, rhs.operand, options: options, quantifier: lhs.quantifier)
        }
        if op == .between {
            if case .argument = rhs.operand {} else {
                throw unexpected(rhs.token, expected: "a list {low, high} after BETWEEN")
            }
        }
        if op == .in {
            switch rhs.operand {
            case .value: throw unexpected(rhs.token, expected: "a list or a key path after IN")
            default: break
            }
        }
        switch rhs.quantifier {
        case .implicit, .any:
            // A many-valued right side already matches when any of its values does.
            return QueryComparison(lhs.operand, op, rhs.operand, options: options, quantifier: lhs.quantifier)
        case .all, .none:
            // ORCore quantifies the left side: move the path there when the left is a constant.
            let lhsIsConstant: Bool
            switch lhs.operand {
            case .value, .argument: lhsIsConstant = true
            default: lhsIsConstant = false
            }
            let base: QueryOperator = op == .in ? .equal : op
            guard lhsIsConstant, lhs.quantifier == .implicit, let mirrored = base.mirrored else {
                throw unsupported("'\(rhs.quantifier == .all ? "ALL" : "NONE")' on the right of '\(opToken.text)'",
                                  at: rhs.token)
            }
            return QueryComparison(rhs.operand, mirrored, lhs.operand, options: options, quantifier: rhs.quantifier)
        }
    }

    // MARK: - Operands

    private mutating func operand(after op: QueryToken?) throws -> Side {
        let start = current
        var quantifier = QueryQuantifier.implicit
        if let w = Self.word(start), ["any", "some", "all", "none"].contains(w) {
            quantifier = w == "all" ? .all : w == "none" ? .none : .any
            _ = advance()
            let t = current
            if isSymbol(t, "{") {
                return Side(operand: try listLiteral(), quantifier: quantifier, token: t)
            }
            if t.kind == .keyPathArgument {
                _ = advance()
                defer { positional += 1 }
                return Side(operand: .keyPathArgument(positional), quantifier: quantifier, token: t)
            }
            // A keyword cannot start the key path here either: `ANY any == 1` would print
            // as `any == 1` (ANY is implicit in the canonical form), which reads differently.
            guard startsKeyPath(t), !isWord(t, "any", "some", "all", "none", "truepredicate", "falsepredicate") else {
                throw unexpected(t, expected: "a key path after '\(start.text)'")
            }
            return Side(operand: .keyPath(try keyPath()), quantifier: quantifier, token: t)
        }
        let expectation = op.map { "a value or key path after '\($0.text)'" } ?? "a key path or value"
        switch start.kind {
        case .symbol("{"):
            return Side(operand: try listLiteral(), quantifier: .implicit, token: start)
        case .keyPathArgument:
            _ = advance()
            defer { positional += 1 }
            return Side(operand: .keyPathArgument(positional), quantifier: .implicit, token: start)
        case .argument, .positionalArgument:
            return Side(operand: try constantOrArgument(expected: expectation), quantifier: .implicit, token: start)
        case .word:
            if isWord(start, "subquery"), isSymbol(peekToken(1), "(") {
                return Side(operand: try subquery(), quantifier: .implicit, token: start)
            }
            if isConstantWord(start) {
                return Side(operand: try constantOrArgument(expected: expectation), quantifier: .implicit, token: start)
            }
            if isWord(start, "and", "or", "not", "truepredicate", "falsepredicate") {
                throw unexpected(start, expected: expectation)
            }
            return Side(operand: .keyPath(try keyPath()), quantifier: .implicit, token: start)
        case .atWord:
            return Side(operand: .keyPath(try keyPath()), quantifier: .implicit, token: start)
        default:
            return Side(operand: try constantOrArgument(expected: expectation), quantifier: .implicit, token: start)
        }
    }

    private func startsKeyPath(_ t: QueryToken) -> Bool {
        switch t.kind {
        case .word: return !isConstantWord(t) && !isWord(t, "and", "or", "not", "subquery")
        case .atWord: return true
        default: return false
        }
    }

    private func isConstantWord(_ t: QueryToken) -> Bool {
        isWord(t, "true", "false", "nil", "null", "inf", "infinity", "nan")
    }

    private mutating func listLiteral() throws -> QueryOperand {
        _ = try expect("{", "'{'")
        var elements: [QueryOperand] = []
        if isSymbol(current, "}") {
            _ = advance()
            return .list(elements)
        }
        while true {
            elements.append(try constantOrArgument(expected: "a constant in the list"))
            if isSymbol(current, ",") { _ = advance(); continue }
            _ = try expect("}", "',' or '}' in the list")
            return .list(elements)
        }
    }

    /// A literal, `$n` or `%@`.
    mutating func constantOrArgument(expected: String) throws -> QueryOperand {
        let t = current
        switch t.kind {
        case .argument(let n):
            _ = advance()
            return .argument(n)
        case .positionalArgument:
            _ = advance()
            defer { positional += 1 }
            return .argument(positional)
        case .string(let s): _ = advance(); return .value(.string(s))
        case .binary(let d): _ = advance(); return .value(.binary(d))
        case .timestamp(let s, let ns): _ = advance(); return .value(.timestamp(seconds: s, nanoseconds: ns))
        case .objectId(let o): _ = advance(); return .value(.objectId(o))
        case .uuid(let u): _ = advance(); return .value(.uuid(u))
        case .decimal(let d): _ = advance(); return .value(.decimal(d))
        case .link(let table, let key): _ = advance(); return .value(.link(table: table, key: key))
        case .integer, .floating:
            _ = advance()
            return .value(try number(t, negative: false))
        case .symbol("-"), .symbol("+"):
            _ = advance()
            let n = current
            let negative = t.kind == .symbol("-")
            switch n.kind {
            case .integer, .floating:
                _ = advance()
                return .value(try number(n, negative: negative))
            default:
                if isWord(n, "inf", "infinity") { _ = advance(); return .value(.double(negative ? -.infinity : .infinity)) }
                if isWord(n, "nan") { _ = advance(); return .value(.double(.nan)) }
                throw unexpected(n, expected: "a number after '\(t.text)'")
            }
        case .word:
            switch Self.word(t) {
            case "true": _ = advance(); return .value(.bool(true))
            case "false": _ = advance(); return .value(.bool(false))
            case "nil", "null": _ = advance(); return .value(.null)
            case "inf", "infinity": _ = advance(); return .value(.double(.infinity))
            case "nan": _ = advance(); return .value(.double(.nan))
            default: throw unexpected(t, expected: expected)
            }
        default:
            throw unexpected(t, expected: expected)
        }
    }

    /// The value of a number token: ints that fit are `.int`, longer ones `.decimal`;
    /// floating literals are `.double` (or `.float` with an `f` suffix), and `.decimal`
    /// when they have more significant digits than a double keeps (over 17).
    private func number(_ t: QueryToken, negative: Bool) throws -> QueryValue {
        let sign = negative ? "-" : ""
        switch t.kind {
        case .integer(let digits):
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                guard let magnitude = UInt64(digits.dropFirst(2), radix: 16) else {
                    throw error("hex number '\(t.text)' does not fit in 64 bits", at: t)
                }
                if negative {
                    guard magnitude <= UInt64(Int64.max) + 1 else {
                        throw error("hex number '-\(t.text)' does not fit in 64 bits", at: t)
                    }
                    return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
                }
                guard magnitude <= UInt64(Int64.max) else {
                    throw error("hex number '\(t.text)' does not fit in a signed 64-bit integer", at: t)
                }
                return .int(Int64(magnitude))
            }
            if let v = Int64(sign + digits) { return .int(v) }
            if let d = try? Decimal128(string: sign + digits) { return .decimal(d) }
            return .double(Double(sign + digits) ?? .nan)
        case .floating(let text, let isFloat):
            if isFloat {
                guard let f = Float(sign + text) else { throw error("malformed number '\(t.text)'", at: t) }
                return .float(f)
            }
            guard let d = Double(sign + text) else { throw error("malformed number '\(t.text)'", at: t) }
            if Self.significantDigits(text) > 17, let dec = try? Decimal128(string: sign + text) {
                return .decimal(dec)
            }
            return .double(d)
        default:
            throw unexpected(t, expected: "a number")
        }
    }

    private static func significantDigits(_ text: String) -> Int {
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        let digits = mantissa.filter { $0 != "." }.drop { $0 == "0" }
        return digits.reversed().drop { $0 == "0" }.count
    }

    // MARK: - Key paths

    private mutating func keyPath() throws -> QueryKeyPath {
        let start = current
        var components: [QueryKeyPathComponent] = []
        var aggregate: QueryAggregate?
        var first = true
        loop: while true {
            let t = current
            switch t.kind {
            case .word(let name) where name.hasPrefix("$"):
                guard first else { throw unexpected(t, expected: "a property name") }
                guard let innermost = variables.last else {
                    throw error("variable '\(name)' outside a SUBQUERY", at: t)
                }
                guard name == innermost else {
                    throw error("unknown variable '\(name)' (the SUBQUERY variable here is '\(innermost)')", at: t)
                }
                _ = advance()
            case .word(let name):
                if first, let innermost = variables.last {
                    throw error("key path '\(name)' inside SUBQUERY must start with its variable '\(innermost)'", at: t)
                }
                _ = advance()
                components.append(.property(name))
            case .atWord("links"):
                if first, let innermost = variables.last {
                    throw error("key path '@links' inside SUBQUERY must start with its variable '\(innermost)'", at: t)
                }
                _ = advance()
                _ = try expect(".", "'.' and a class name after '@links'")
                if case .atWord(let agg) = current.kind, agg == "count" || agg == "size" {
                    throw unsupported("'@links.@\(agg)' (counting every backlink)", at: current)
                }
                guard case .word(let className) = current.kind else {
                    throw unexpected(current, expected: "a class name after '@links.'")
                }
                _ = advance()
                _ = try expect(".", "'.' and a property name after '@links.\(className)'")
                guard case .word(let property) = current.kind else {
                    throw unexpected(current, expected: "a property name after '@links.\(className).'")
                }
                _ = advance()
                components.append(.backlink(className: className, property: property))
            default:
                throw unexpected(t, expected: first ? "a key path" : "a property name after '.'")
            }
            while isSymbol(current, "[") { components.append(try subscriptKey()) }
            first = false
            guard isSymbol(current, ".") else { break loop }
            let next = peekToken(1)
            if case .atWord(let name) = next.kind, name != "links" {
                _ = advance()
                _ = advance()
                aggregate = try aggregateNamed(name, next)
                if let agg = aggregate, [.min, .max, .sum, .avg].contains(agg), isSymbol(current, "."),
                   case .word(let prop) = peekToken(1).kind, !prop.hasPrefix("$") {
                    // `items.@sum.price` is `items.price.@sum`.
                    _ = advance()
                    _ = advance()
                    components.append(.property(prop))
                }
                if isSymbol(current, ".") {
                    throw unexpected(peekToken(1), expected: "nothing after the aggregate '\(next.text)'")
                }
                break loop
            }
            _ = advance()
        }
        if components.isEmpty && aggregate == nil && variables.isEmpty {
            throw unexpected(start, expected: "a key path")
        }
        return QueryKeyPath(components, aggregate: aggregate)
    }

    private func aggregateNamed(_ name: String, _ t: QueryToken) throws -> QueryAggregate {
        switch name.lowercased() {
        case "count": return .count
        case "size": return .size
        case "min": return .min
        case "max": return .max
        case "sum": return .sum
        case "avg", "average": return .avg
        case "keys": return .keys
        case "values": return .values
        case "type": throw unsupported("'@type'", at: t)
        default: throw error("unknown aggregate '\(t.text)'", at: t)
        }
    }

    private mutating func subscriptKey() throws -> QueryKeyPathComponent {
        _ = advance() // [
        let t = current
        switch t.kind {
        case .string(let key):
            _ = advance()
            _ = try expect("]", "']' after the dictionary key")
            return .dictionaryKey(key)
        case .integer, .argument, .positionalArgument:
            throw unsupported("a list index or argument subscript '[\(t.text)]'", at: t)
        default:
            if isWord(t, "first", "last", "size") {
                throw unsupported("the subscript '[\(t.text)]'", at: t)
            }
            throw unexpected(t, expected: "a quoted dictionary key after '['")
        }
    }

    // MARK: - SUBQUERY

    private mutating func subquery() throws -> QueryOperand {
        let keyword = advance()
        try enter(keyword)
        defer { nesting -= 1 }
        _ = try expect("(", "'(' after SUBQUERY")
        guard startsKeyPath(current) else { throw unexpected(current, expected: "a collection key path in SUBQUERY") }
        let collection = try keyPath()
        if collection.aggregate != nil {
            throw error("the SUBQUERY collection '\(collection)' cannot end in an aggregate", at: keyword)
        }
        _ = try expect(",", "',' after the SUBQUERY collection")
        guard case .word(let variable) = current.kind, variable.hasPrefix("$"), variable.count > 1 else {
            throw unexpected(current, expected: "a variable such as $x in SUBQUERY")
        }
        _ = advance()
        _ = try expect(",", "',' after the SUBQUERY variable")
        variables.append(variable)
        let predicate = try orPredicate()
        variables.removeLast()
        _ = try expect(")", "')' closing the SUBQUERY")
        _ = try expect(".", "'.@count' after SUBQUERY(...)")
        guard case .atWord(let agg) = current.kind, agg == "count" || agg == "size" else {
            throw unexpected(current, expected: "'@count' after SUBQUERY(...).")
        }
        _ = advance()
        return .subqueryCount(QuerySubquery(collection: collection, predicate: predicate))
    }

    // MARK: - Descriptors

    private mutating func descriptorList() throws -> [QueryDescriptor] {
        var out: [QueryDescriptor] = []
        while isWord(current, "sort", "distinct", "limit"), isSymbol(peekToken(1), "(") {
            let keyword = advance()
            _ = advance()
            switch Self.word(keyword) {
            case "sort":
                var keys: [QuerySortKey] = []
                repeat {
                    if !keys.isEmpty { _ = advance() }
                    guard startsKeyPath(current) else { throw unexpected(current, expected: "a key path in SORT") }
                    let path = try keyPath()
                    var ascending = true
                    if isWord(current, "asc", "ascending") { _ = advance() } else if isWord(current, "desc", "descending") {
                        _ = advance()
                        ascending = false
                    }
                    keys.append(QuerySortKey(path, ascending: ascending))
                } while isSymbol(current, ",")
                _ = try expect(")", "ASC, DESC, ',' or ')' in SORT")
                out.append(.sort(keys))
            case "distinct":
                var paths: [QueryKeyPath] = []
                repeat {
                    if !paths.isEmpty { _ = advance() }
                    guard startsKeyPath(current) else { throw unexpected(current, expected: "a key path in DISTINCT") }
                    paths.append(try keyPath())
                } while isSymbol(current, ",")
                _ = try expect(")", "',' or ')' in DISTINCT")
                out.append(.distinct(paths))
            default:
                let t = current
                guard case .integer(let digits) = t.kind, let n = UInt64(digits) else {
                    throw unexpected(t, expected: "a non-negative integer in LIMIT")
                }
                _ = advance()
                _ = try expect(")", "')' after the LIMIT count")
                out.append(.limit(n))
            }
        }
        return out
    }
}
