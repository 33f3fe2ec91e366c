import Foundation

/// One token of an RQL string, with the offset (in Unicode scalars, 0-based) where it starts.
internal struct QueryToken: Equatable, Sendable {
    /// What a token is.
    enum Kind: Equatable, Sendable {
        /// A word: a property name or a keyword (`AND`, `contains`, `SORT`, ... —
        /// the parser decides by position, case-insensitively). Includes `$x` variables.
        case word(String)
        /// `@count`, `@links`, ... (the name without the `@`).
        case atWord(String)
        /// An integer literal's digits (decimal, or hex with `0x`), no sign.
        case integer(String)
        /// A floating literal's text, no sign; `isFloat` when it ends in `f`.
        case floating(String, isFloat: Bool)
        /// A string literal's decoded contents.
        case string(String)
        /// `B64"..."`, decoded.
        case binary(Data)
        /// `T<s>:<ns>` or `YYYY-MM-DD@HH:MM:SS[:ns]`, decoded.
        case timestamp(seconds: Int64, nanoseconds: Int32)
        /// `oid(<24 hex digits>)`.
        case objectId(ObjectId)
        /// `uuid(<8-4-4-4-12 hex digits>)`.
        case uuid(UUID)
        /// `decimal128(<number>)`.
        case decimal(Decimal128)
        /// `L<table>:<key>`: an object by table id and key.
        case link(table: UInt32, key: UInt64)
        /// `$<n>`.
        case argument(Int)
        /// `%@`.
        case positionalArgument
        /// `%K`.
        case keyPathArgument
        /// An operator or punctuation: `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`,
        /// `(`, `)`, `{`, `}`, `[`, `]`, `,`, `.`, `+`, `-` (canonical spellings).
        case symbol(String)
        /// The end of the string.
        case end
    }

    let kind: Kind
    /// Where the token starts.
    let offset: Int
    /// The token as written (for messages).
    let text: String
}

/// Splits an RQL string into tokens. Literals are decoded here (strings, dates,
/// ObjectIds, UUIDs, base64), so a malformed literal is reported at its own offset.
internal struct QueryLexer {
    private let scalars: [Unicode.Scalar]
    private let source: String
    private var pos = 0

    init(_ source: String) {
        self.source = source
        self.scalars = Array(source.unicodeScalars)
    }

    /// Every token of the string, ending with `.end`.
    static func tokenize(_ source: String) throws -> [QueryToken] {
        var lexer = QueryLexer(source)
        var tokens: [QueryToken] = []
        while true {
            let t = try lexer.next()
            tokens.append(t)
            if t.kind == .end { return tokens }
        }
    }

    // MARK: - Helpers

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        let i = pos + ahead
        return i < scalars.count ? scalars[i] : nil
    }

    private func text(_ from: Int, _ to: Int) -> String {
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[from..<min(to, scalars.count)])
        return String(s)
    }

    /// The length of a numeric format specifier at `start` (`%d`, `%lld`, `%f`, ...), or nil.
    /// Queries written for `NSPredicate` pass numbers with them; like `%@`, each takes the
    /// next positional argument, which is bound as the value it is.
    private func numericSpecifierLength(at start: Int) -> Int? {
        var i = start + 1
        for modifier in ["hh", "ll", "h", "l", "q", "L"] {
            let scalars = Array(modifier.unicodeScalars)
            if scalars.indices.allSatisfy({ start + 1 + $0 < self.scalars.count && self.scalars[start + 1 + $0] == scalars[$0] }) {
                i += scalars.count
                break
            }
        }
        guard i < scalars.count, "diufeg".unicodeScalars.contains(scalars[i]) else { return nil }
        // A word character right after (`%dx`) is not a specifier.
        if i + 1 < scalars.count, Self.isWordChar(scalars[i + 1]) { return nil }
        return i + 1 - start
    }

    private static func isDigit(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return c >= "0" && c <= "9"
    }

    private static func isHex(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return isDigit(c) || (c >= "a" && c <= "f") || (c >= "A" && c <= "F")
    }

    private static func isWordStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c == "$" || (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c.value >= 0x80 && c.properties.isAlphabetic)
    }

    private static func isWordChar(_ c: Unicode.Scalar) -> Bool {
        isWordStart(c) || isDigit(c) || (c.value >= 0x80 && (c.properties.numericType != nil || c.properties.generalCategory == .nonspacingMark))
    }

    func error(_ message: String, at offset: Int) -> QueryError {
        QueryParser.syntaxError(message, at: offset, in: source)
    }

    /// The digits of an unsigned run starting at `i`, and the index after them.
    private func digits(from i: Int) -> (String, Int) {
        var j = i
        while j < scalars.count, Self.isDigit(scalars[j]) { j += 1 }
        return (text(i, j), j)
    }

    /// An optionally signed run of digits starting at `i`.
    private func signedDigits(from i: Int) -> (String, Int)? {
        var j = i
        var sign = ""
        if j < scalars.count, scalars[j] == "-" || scalars[j] == "+" {
            sign = scalars[j] == "-" ? "-" : ""
            j += 1
        }
        let (d, end) = digits(from: j)
        return d.isEmpty ? nil : (sign + d, end)
    }

    // MARK: - Tokens

    /// The operators of two characters and the symbol each stands for (`=<`, `=>` and
    /// `<>` are other spellings of `<=`, `>=` and `!=`).
    private static let twoCharacterOperators: [String: String] = [
        "==": "==", "=<": "<=", "=>": ">=", "!=": "!=", "<=": "<=", "<>": "!=", ">=": ">=", "&&": "&&", "||": "||",
    ]

    /// The operators of one character and the symbol each stands for (`=` is `==`); a
    /// lone `&` or `|` is none.
    private static let oneCharacterOperators: [Unicode.Scalar: String] = ["=": "==", "!": "!", "<": "<", ">": ">"]

    mutating func next() throws -> QueryToken {
        while let c = peek(), c == " " || c == "\t" || c == "\n" || c == "\r" { pos += 1 }
        let start = pos
        guard let c = peek() else { return QueryToken(kind: .end, offset: start, text: "") }

        func symbol(_ s: String, length: Int) -> QueryToken {
            let written = text(start, start + length)
            pos += length
            return QueryToken(kind: .symbol(s), offset: start, text: written)
        }

        switch c {
        case "'", "\"":
            return try stringLiteral()
        case "(", ")", "{", "}", "[", "]", ",", "+", "-":
            return symbol(String(c), length: 1)
        case ".":
            if Self.isDigit(peek(1)) { return try number() }
            return symbol(".", length: 1)
        case "=", "!", "<", ">", "&", "|":
            if let second = peek(1), let op = Self.twoCharacterOperators["\(c)\(second)"] { return symbol(op, length: 2) }
            if let op = Self.oneCharacterOperators[c] { return symbol(op, length: 1) }
            throw error("unexpected '\(c)' at offset \(start) (did you mean '\(c)\(c)'?)", at: start)
        case "%":
            if peek(1) == "@" { pos += 2; return QueryToken(kind: .positionalArgument, offset: start, text: "%@") }
            if peek(1) == "K" { pos += 2; return QueryToken(kind: .keyPathArgument, offset: start, text: "%K") }
            if let length = numericSpecifierLength(at: start) {
                pos += length
                return QueryToken(kind: .positionalArgument, offset: start, text: text(start, pos))
            }
            let shown = text(start, start + 2)
            throw error("unexpected '\(shown)' at offset \(start) (arguments are $0, $1, ..., %@, %K and the numeric %d, %i, %u, %f, %g, %e with h, l, ll or q)", at: start)
        case "@":
            pos += 1
            let wordStart = pos
            while let d = peek(), Self.isWordChar(d), d != "$" { pos += 1 }
            let name = text(wordStart, pos)
            if name.isEmpty { throw error("unexpected '@' at offset \(start)", at: start) }
            return QueryToken(kind: .atWord(name), offset: start, text: "@" + name)
        default:
            break
        }
        if Self.isDigit(c) { return try number() }
        if c == "$", Self.isDigit(peek(1)) {
            let (d, end) = digits(from: pos + 1)
            pos = end
            guard let n = Int(d), n < 1_000_000 else {
                throw error("argument '$\(d)' at offset \(start) is out of range", at: start)
            }
            return QueryToken(kind: .argument(n), offset: start, text: "$" + d)
        }
        if let special = try specialLiteral() { return special }
        if Self.isWordStart(c) {
            while let d = peek(), Self.isWordChar(d) { pos += 1 }
            let w = text(start, pos)
            return QueryToken(kind: .word(w), offset: start, text: w)
        }
        throw error("unexpected character '\(Character(c))' at offset \(start)", at: start)
    }

    // MARK: - Strings

    private mutating func stringLiteral() throws -> QueryToken {
        let start = pos
        let quote = scalars[pos]
        pos += 1
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw error("unterminated string starting at offset \(start)", at: start)
            }
            pos += 1
            if c == quote { break }
            if c != "\\" { out.append(c); continue }
            let escapeAt = pos - 1
            guard let e = peek() else { throw error("unterminated string starting at offset \(start)", at: start) }
            pos += 1
            switch e {
            case "\"", "'", "/", "\\": out.append(e)
            case "b": out.append("\u{08}")
            case "f": out.append("\u{0C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "0": out.append("\u{00}")
            case "u":
                var value = try hex4(escapeAt)
                if (0xD800...0xDBFF).contains(value) {
                    // A surrogate pair written as two \u escapes.
                    guard peek() == "\\", peek(1) == "u" else {
                        throw error("unpaired surrogate '\\u\(String(value, radix: 16))' at offset \(escapeAt)", at: escapeAt)
                    }
                    pos += 2
                    let low = try hex4(escapeAt)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("unpaired surrogate '\\u\(String(value, radix: 16))' at offset \(escapeAt)", at: escapeAt)
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw error("invalid escape '\\u\(String(value, radix: 16))' at offset \(escapeAt)", at: escapeAt)
                }
                out.append(scalar)
            default:
                throw error("invalid escape '\\\(Character(e))' at offset \(escapeAt)", at: escapeAt)
            }
        }
        return QueryToken(kind: .string(String(out)), offset: start, text: text(start, pos))
    }

    private mutating func hex4(_ escapeAt: Int) throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let h = peek(), Self.isHex(h), let d = UInt32(String(Character(h)), radix: 16) else {
                throw error("invalid escape '\\u' at offset \(escapeAt) (expected 4 hex digits)", at: escapeAt)
            }
            v = v * 16 + d
            pos += 1
        }
        return v
    }

    // MARK: - Numbers and dates

    private mutating func number() throws -> QueryToken {
        let start = pos
        // 0x1F
        if peek() == "0", peek(1) == "x" || peek(1) == "X", Self.isHex(peek(2)) {
            pos += 2
            while Self.isHex(peek()) { pos += 1 }
            try refuseTrailingWordChar(start)
            return QueryToken(kind: .integer(text(start, pos)), offset: start, text: text(start, pos))
        }
        if let date = try dateLiteral() { return date }
        var isFloating = false
        while Self.isDigit(peek()) { pos += 1 }
        if peek() == ".", Self.isDigit(peek(1)) || (pos > start) {
            isFloating = true
            pos += 1
            while Self.isDigit(peek()) { pos += 1 }
        }
        if peek() == "e" || peek() == "E" {
            var j = pos + 1
            if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" { j += 1 }
            if j < scalars.count, Self.isDigit(scalars[j]) {
                isFloating = true
                pos = j
                while Self.isDigit(peek()) { pos += 1 }
            }
        }
        var isFloat = false
        if peek() == "f" || peek() == "F" {
            isFloat = true
            pos += 1
        }
        try refuseTrailingWordChar(start)
        let written = text(start, pos)
        if isFloat || isFloating {
            let digits = isFloat ? String(written.dropLast()) : written
            return QueryToken(kind: .floating(digits, isFloat: isFloat), offset: start, text: written)
        }
        return QueryToken(kind: .integer(written), offset: start, text: written)
    }

    private mutating func refuseTrailingWordChar(_ start: Int) throws {
        if let c = peek(), Self.isWordChar(c) {
            var end = pos
            while end < scalars.count, Self.isWordChar(scalars[end]) { end += 1 }
            throw error("malformed number '\(text(start, end))' at offset \(start)", at: start)
        }
    }

    /// `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (or `T` for `@`), in UTC.
    private mutating func dateLiteral() throws -> QueryToken? {
        let start = pos
        let (y, a) = digits(from: pos)
        guard a < scalars.count, scalars[a] == "-" else { return nil }
        let (mo, b) = digits(from: a + 1)
        guard !mo.isEmpty, b < scalars.count, scalars[b] == "-" else { return nil }
        let (d, c) = digits(from: b + 1)
        guard !d.isEmpty, c < scalars.count, scalars[c] == "@" || scalars[c] == "T" else { return nil }
        let (h, e) = digits(from: c + 1)
        guard !h.isEmpty, e < scalars.count, scalars[e] == ":" else { return nil }
        let (mi, f) = digits(from: e + 1)
        guard !mi.isEmpty, f < scalars.count, scalars[f] == ":" else { return nil }
        let (s, g) = digits(from: f + 1)
        guard !s.isEmpty else { return nil }
        var end = g
        var nanos = "0"
        if g < scalars.count, scalars[g] == ":", Self.isDigit(scalars.count > g + 1 ? scalars[g + 1] : nil) {
            (nanos, end) = digits(from: g + 1)
        }
        pos = end
        try refuseTrailingWordChar(start)
        let written = text(start, end)
        guard let year = Int(y), let month = Int(mo), let day = Int(d), let hour = Int(h), let minute = Int(mi),
              let second = Int(s), let ns = Int64(nanos),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
              ns < 1_000_000_000, year <= 999_999 else {
            throw error("malformed date '\(written)' at offset \(start)", at: start)
        }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let midnight = calendar.date(from: components),
              calendar.component(.day, from: midnight) == day else {
            throw error("malformed date '\(written)' at offset \(start) (no such day)", at: start)
        }
        // Whole days are exact in a Double, so the seconds are exact too.
        let seconds = Int64(midnight.timeIntervalSince1970.rounded()) + Int64(hour * 3600 + minute * 60 + second)
        let nanoseconds = Int32(ns)
        // ORCore's nanoseconds carry the sign of the seconds.
        if seconds < 0, nanoseconds > 0 {
            return QueryToken(kind: .timestamp(seconds: seconds + 1, nanoseconds: nanoseconds - 1_000_000_000),
                              offset: start, text: written)
        }
        return QueryToken(kind: .timestamp(seconds: seconds, nanoseconds: nanoseconds), offset: start, text: written)
    }

    // MARK: - Prefixed literals

    /// `T<s>:<ns>`, `L<table>:<key>`, `B64"..."`, `oid(...)`, `uuid(...)`,
    /// `decimal128(...)`; nil when the word at `pos` is none of them.
    private mutating func specialLiteral() throws -> QueryToken? {
        let start = pos
        let c = scalars[pos]
        if c == "T", let (s, a) = signedDigits(from: pos + 1), a < scalars.count, scalars[a] == ":",
           let (ns, b) = signedDigits(from: a + 1) {
            pos = b
            try refuseTrailingWordChar(start)
            let written = text(start, b)
            guard let seconds = Int64(s), let nanos = Int32(ns), abs(Int64(nanos)) < 1_000_000_000 else {
                throw error("malformed timestamp '\(written)' at offset \(start)", at: start)
            }
            if (seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0) {
                throw error("malformed timestamp '\(written)' at offset \(start) (the nanoseconds must have the sign of the seconds)", at: start)
            }
            return QueryToken(kind: .timestamp(seconds: seconds, nanoseconds: nanos), offset: start, text: written)
        }
        if c == "L", Self.isDigit(peek(1)) {
            let (t, a) = digits(from: pos + 1)
            if a < scalars.count, scalars[a] == ":", Self.isDigit(a + 1 < scalars.count ? scalars[a + 1] : nil) {
                let (k, b) = digits(from: a + 1)
                pos = b
                try refuseTrailingWordChar(start)
                let written = text(start, b)
                guard let table = UInt32(t), let key = UInt64(k) else {
                    throw error("malformed object link '\(written)' at offset \(start)", at: start)
                }
                return QueryToken(kind: .link(table: table, key: key), offset: start, text: written)
            }
        }
        if c == "B", peek(1) == "6", peek(2) == "4", peek(3) == "\"" {
            var j = pos + 4
            while j < scalars.count, scalars[j] != "\"" { j += 1 }
            guard j < scalars.count else { throw error("unterminated base64 literal starting at offset \(start)", at: start) }
            let body = text(pos + 4, j)
            pos = j + 1
            guard let data = Data(base64Encoded: body) else {
                throw error("malformed base64 literal '\(text(start, pos))' at offset \(start)", at: start)
            }
            return QueryToken(kind: .binary(data), offset: start, text: text(start, pos))
        }
        for name in ["oid", "uuid", "decimal128"] {
            guard matchesFunction(name) else { continue }
            let open = pos + name.unicodeScalars.count
            var j = open + 1
            while j < scalars.count, scalars[j] != ")" { j += 1 }
            guard j < scalars.count else {
                throw error("unterminated '\(name)(' literal starting at offset \(start)", at: start)
            }
            let body = text(open + 1, j).trimmingCharacters(in: .whitespaces)
            pos = j + 1
            let written = text(start, pos)
            switch name {
            case "oid":
                guard body.count == 24, body.unicodeScalars.allSatisfy({ Self.isHex($0) }),
                      let oid = try? ObjectId(string: body.lowercased()) else {
                    throw error("malformed ObjectId '\(written)' at offset \(start) (expected 24 hex digits)", at: start)
                }
                return QueryToken(kind: .objectId(oid), offset: start, text: written)
            case "uuid":
                guard let uuid = UUID(uuidString: body), body.count == 36 else {
                    throw error("malformed UUID '\(written)' at offset \(start)", at: start)
                }
                return QueryToken(kind: .uuid(uuid), offset: start, text: written)
            default:
                guard let decimal = try? Decimal128(string: body) else {
                    throw error("malformed decimal128 '\(written)' at offset \(start)", at: start)
                }
                return QueryToken(kind: .decimal(decimal), offset: start, text: written)
            }
        }
        return nil
    }

    /// Whether `name(` (name case-insensitive) starts at `pos`.
    private func matchesFunction(_ name: String) -> Bool {
        let n = name.unicodeScalars.count
        guard pos + n < scalars.count, scalars[pos + n] == "(" else { return false }
        return text(pos, pos + n).lowercased() == name
    }
}
