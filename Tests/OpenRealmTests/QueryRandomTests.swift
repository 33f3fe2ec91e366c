import Foundation
import XCTest
import OpenRealm
import OpenRealmTestSupport

// Random predicates, each built twice (a typed `where` query and an RQL string with
// literals and `$n` arguments), run against a realm of a few hundred random objects and
// checked against the same predicate evaluated in plain Swift over plain structs.
//
// The run is seeded; a failure prints the seed and the predicate. Set QT_RANDOM_SEED to
// replay a seed.

// MARK: - Models

final class QRTag: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var rank: Int
}

final class QRItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var i: Int
    @Persisted var optI: Int?
    @Persisted var d: Double
    @Persisted var s: String
    @Persisted var optS: String?
    @Persisted var b: Bool
    @Persisted var date: Date
    @Persisted var nums: List<Int>
    @Persisted var tags: List<String>
    @Persisted var link: QRTag?
}

/// What a `QRItem` holds, as a plain value.
struct QRPlain {
    var id: Int
    var i: Int
    var optI: Int?
    var d: Double
    var s: String
    var optS: String?
    var b: Bool
    var date: Date
    var nums: [Int]
    var tags: [String]
    var link: (name: String, rank: Int)?
}

// MARK: - Seeded randomness


// MARK: - Plain Swift semantics

enum QROp: CaseIterable {
    case eq, ne, lt, le, gt, ge

    var rql: String {
        switch self {
        case .eq: return "=="
        case .ne: return "!="
        case .lt: return "<"
        case .le: return "<="
        case .gt: return ">"
        case .ge: return ">="
        }
    }

    /// The operator that is true exactly when this one is false.
    var negated: QROp {
        switch self {
        case .eq: return .ne
        case .ne: return .eq
        case .lt: return .ge
        case .le: return .gt
        case .gt: return .le
        case .ge: return .lt
        }
    }

    func holds<V: Comparable>(_ a: V, _ b: V) -> Bool {
        switch self {
        case .eq: return a == b
        case .ne: return a != b
        case .lt: return a < b
        case .le: return a <= b
        case .gt: return a > b
        case .ge: return a >= b
        }
    }

    /// Realm's rule for a value that may be null: null equals only null, differs from
    /// everything else, and is never ordered.
    func holds<V: Comparable>(_ a: V?, _ b: V) -> Bool {
        guard let a else { return self == .ne }
        return holds(a, b)
    }

    func typed<V: _Persistable & _QueryComparable>(_ q: Query<V>, _ v: V) -> Query<Bool> {
        switch self {
        case .eq: return q == v
        case .ne: return q != v
        case .lt: return q < v
        case .le: return q <= v
        case .gt: return q > v
        case .ge: return q >= v
        }
    }

    func typedAny<C: _QueryCollection>(_ q: Query<C>, _ v: C.Element) -> Query<Bool> where C.Element: _QueryComparable & _Persistable {
        switch self {
        case .eq: return q == v
        case .ne: return q != v
        case .lt: return q < v
        case .le: return q <= v
        case .gt: return q > v
        case .ge: return q >= v
        }
    }
}

/// String comparison with Realm's `[c]` (case folding) and `[d]` (diacritics removed).
enum QRText {
    static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var out = s
        if diacriticInsensitive {
            out = String(out.map { ch -> Character in
                switch ch {
                case "é", "è": return "e"
                case "É", "È": return "E"
                case "ü": return "u"
                default: return ch
                }
            })
        }
        if caseInsensitive { out = out.lowercased() }
        return out
    }

    /// The code points of a string, which order strings as their UTF-8 bytes do.
    static func codePoints(_ s: String) -> QRCodePoints { QRCodePoints(values: s.unicodeScalars.map(\.value)) }

    /// `LIKE`: `*` matches any run of characters, `?` exactly one.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text), p = Array(pattern)
        var memo = [[Bool?]](repeating: [Bool?](repeating: nil, count: p.count + 1), count: t.count + 1)
        func match(_ i: Int, _ j: Int) -> Bool {
            if let known = memo[i][j] { return known }
            let result: Bool
            if j == p.count {
                result = i == t.count
            } else if p[j] == "*" {
                result = match(i, j + 1) || (i < t.count && match(i + 1, j))
            } else if i < t.count && (p[j] == "?" || p[j] == t[i]) {
                result = match(i + 1, j + 1)
            } else {
                result = false
            }
            memo[i][j] = result
            return result
        }
        return match(0, 0)
    }
}

struct QRCodePoints: Comparable {
    var values: [UInt32]
    static func < (a: QRCodePoints, b: QRCodePoints) -> Bool { a.values.lexicographicallyPrecedes(b.values) }
}

// MARK: - Random predicates

/// One predicate in its three forms.
struct QRCase {
    /// The RQL string.
    var rql: String
    /// The typed query.
    var typed: (Query<QRItem>) -> Query<Bool>
    /// The plain Swift meaning.
    var eval: (QRPlain) -> Bool
    /// Whether the typed query and the RQL string are written alike (so they must render
    /// the same canonical string); false where the typed form is an equivalent rewrite.
    var sameSpelling: Bool
}

struct QRGenerator {
    var rng: SplitMix64
    /// The `$n` arguments of the RQL string being built.
    var args: [Any] = []
    static let base = Date(timeIntervalSince1970: 1_600_000_000)
    static let letters: [Character] = ["a", "b", "e", "é", "A", "B", "E", "É"]
    static let tagNames = ["red", "green", "blue", "Red"]

    mutating func word(_ lengths: ClosedRange<Int>) -> String {
        String((0..<rng.int(lengths)).map { _ in rng.pick(Self.letters) })
    }

    /// A constant: a literal in the string, or the next `$n` argument.
    mutating func constant(_ literal: String, _ value: Any) -> String {
        if rng.chance(0.5) { return literal }
        args.append(value)
        return "$\(args.count - 1)"
    }

    mutating func predicate(depth: Int) -> QRCase {
        guard depth > 0, rng.chance(0.6) else { return leaf() }
        switch rng.int(0...4) {
        case 0, 1:
            let a = predicate(depth: depth - 1), b = predicate(depth: depth - 1)
            return QRCase(rql: "(\(a.rql)) AND (\(b.rql))", typed: { a.typed($0) && b.typed($0) },
                          eval: { a.eval($0) && b.eval($0) }, sameSpelling: a.sameSpelling && b.sameSpelling)
        case 2, 3:
            let a = predicate(depth: depth - 1), b = predicate(depth: depth - 1)
            return QRCase(rql: "(\(a.rql)) OR (\(b.rql))", typed: { a.typed($0) || b.typed($0) },
                          eval: { a.eval($0) || b.eval($0) }, sameSpelling: a.sameSpelling && b.sameSpelling)
        default:
            let a = predicate(depth: depth - 1)
            return QRCase(rql: "NOT (\(a.rql))", typed: { !a.typed($0) }, eval: { !a.eval($0) }, sameSpelling: a.sameSpelling)
        }
    }

    mutating func leaf() -> QRCase {
        let op = rng.pick(QROp.allCases)
        switch rng.int(0...15) {
        case 0:
            let v = rng.int(-22...22)
            return QRCase(rql: "i \(op.rql) \(constant(String(v), v))", typed: { op.typed($0.i, v) },
                          eval: { op.holds($0.i, v) }, sameSpelling: true)
        case 1:
            if rng.chance(0.25) {
                let isNil = rng.chance(0.5)
                return QRCase(rql: "optI \(isNil ? "==" : "!=") nil", typed: { isNil ? $0.optI == nil : $0.optI != nil },
                              eval: { ($0.optI == nil) == isNil }, sameSpelling: true)
            }
            let v = rng.int(-5...5)
            return QRCase(rql: "optI \(op.rql) \(constant(String(v), v))", typed: { op.typed($0.optI, v) },
                          eval: { op.holds($0.optI, v) }, sameSpelling: true)
        case 2:
            let v = Double(rng.int(-12...12)) / 2
            return QRCase(rql: "d \(op.rql) \(constant(v.description, v))", typed: { op.typed($0.d, v) },
                          eval: { op.holds($0.d, v) }, sameSpelling: true)
        case 3, 4:
            return stringLeaf()
        case 5:
            let needle = word(1...2)
            if rng.chance(0.3) {
                let isNil = rng.chance(0.5)
                return QRCase(rql: "optS \(isNil ? "==" : "!=") nil", typed: { isNil ? $0.optS == nil : $0.optS != nil },
                              eval: { ($0.optS == nil) == isNil }, sameSpelling: true)
            }
            if rng.chance(0.5) {
                return QRCase(rql: "optS == \(constant("'\(needle)'", needle))", typed: { $0.optS == needle },
                              eval: { $0.optS == needle }, sameSpelling: true)
            }
            return QRCase(rql: "optS CONTAINS[c] \(constant("'\(needle)'", needle))",
                          typed: { $0.optS.contains(needle, options: .caseInsensitive) },
                          eval: { p in p.optS.map { QRText.fold($0, caseInsensitive: true, diacriticInsensitive: false)
                                                     .contains(QRText.fold(needle, caseInsensitive: true, diacriticInsensitive: false)) } ?? false },
                          sameSpelling: true)
        case 6:
            let v = rng.chance(0.5)
            return QRCase(rql: "b == \(constant(String(v), v))", typed: { $0.b == v }, eval: { $0.b == v }, sameSpelling: true)
        case 7:
            let v = Self.base.addingTimeInterval(TimeInterval(rng.int(-1...21) * 60))
            args.append(v)
            return QRCase(rql: "date \(op.rql) $\(args.count - 1)", typed: { op.typed($0.date, v) },
                          eval: { op.holds($0.date, v) }, sameSpelling: true)
        case 8:
            let values = (0..<rng.int(0...4)).map { _ in rng.int(-20...20) }
            let list = "{" + values.map(String.init).joined(separator: ", ") + "}"
            return QRCase(rql: "i IN \(constant(list, values))", typed: { $0.i.in(values) },
                          eval: { values.contains($0.i) }, sameSpelling: true)
        case 9:
            let lo = rng.int(-20...20), hi = lo + rng.int(0...15)
            let rql = rng.chance(0.5) ? "i BETWEEN {\(lo), \(hi)}" : "i BETWEEN {\(constant(String(lo), lo)), \(constant(String(hi), hi))}"
            return QRCase(rql: rql, typed: { $0.i.contains(lo...hi) }, eval: { (lo...hi).contains($0.i) }, sameSpelling: true)
        case 10, 11:
            return numsLeaf(op)
        case 12:
            let tag = rng.pick(Self.tagNames)
            if rng.chance(0.5) {
                return QRCase(rql: "\(constant("'\(tag)'", tag)) IN tags", typed: { $0.tags.contains(tag) },
                              eval: { $0.tags.contains(tag) }, sameSpelling: true)
            }
            let some = [tag, rng.pick(Self.tagNames)]
            return QRCase(rql: "ANY tags IN {'\(some[0])', '\(some[1])'}", typed: { $0.tags.containsAny(in: some) },
                          eval: { $0.tags.contains(where: some.contains) }, sameSpelling: true)
        case 13:
            let v = rng.int(0...3)
            return QRCase(rql: "tags.@count \(op.rql) \(v)", typed: { op.typed($0.tags.count, v) },
                          eval: { op.holds($0.tags.count, v) }, sameSpelling: true)
        case 14:
            if rng.chance(0.25) {
                let isNil = rng.chance(0.5)
                return QRCase(rql: "link \(isNil ? "==" : "!=") nil", typed: { isNil ? $0.link == nil : $0.link != nil },
                              eval: { ($0.link == nil) == isNil }, sameSpelling: true)
            }
            let v = rng.int(0...5)
            return QRCase(rql: "link.rank \(op.rql) \(constant(String(v), v))", typed: { op.typed($0.link.rank, v) },
                          eval: { op.holds($0.link?.rank, v) }, sameSpelling: true)
        default:
            let name = rng.pick(Self.tagNames)
            return QRCase(rql: "link.name ==[c] '\(name)'", typed: { $0.link.name.equals(name, options: .caseInsensitive) },
                          eval: { $0.link.map { $0.name.lowercased() == name.lowercased() } ?? false }, sameSpelling: true)
        }
    }

    mutating func stringLeaf() -> QRCase {
        let c = rng.chance(0.4), d = rng.chance(0.3)
        let options: StringOptions = [c ? .caseInsensitive : [], d ? .diacriticInsensitive : []]
        let flag = c || d ? "[" + (c ? "c" : "") + (d ? "d" : "") + "]" : ""
        func fold(_ s: String) -> String { QRText.fold(s, caseInsensitive: c, diacriticInsensitive: d) }
        switch rng.int(0...6) {
        case 0:
            let v = word(0...3)
            return QRCase(rql: "s ==\(flag) \(constant("'\(v)'", v))", typed: { $0.s.equals(v, options: options) },
                          eval: { fold($0.s) == fold(v) }, sameSpelling: true)
        case 1:
            let v = word(0...3)
            return QRCase(rql: "s !=\(flag) \(constant("'\(v)'", v))", typed: { $0.s.notEquals(v, options: options) },
                          eval: { fold($0.s) != fold(v) }, sameSpelling: true)
        case 2:
            let v = word(1...2)
            return QRCase(rql: "s BEGINSWITH\(flag) \(constant("'\(v)'", v))", typed: { $0.s.starts(with: v, options: options) },
                          eval: { fold($0.s).hasPrefix(fold(v)) }, sameSpelling: true)
        case 3:
            let v = word(1...2)
            return QRCase(rql: "s ENDSWITH\(flag) \(constant("'\(v)'", v))", typed: { $0.s.ends(with: v, options: options) },
                          eval: { fold($0.s).hasSuffix(fold(v)) }, sameSpelling: true)
        case 4:
            let v = word(1...2)
            return QRCase(rql: "s CONTAINS\(flag) \(constant("'\(v)'", v))", typed: { $0.s.contains(v, options: options) },
                          eval: { fold($0.s).contains(fold(v)) }, sameSpelling: true)
        case 5:
            // LIKE: [c] only in the typed API.
            var pattern = ""
            for _ in 0..<rng.int(1...4) { pattern += rng.chance(0.3) ? "*" : rng.chance(0.2) ? "?" : String(rng.pick(Self.letters)) }
            return QRCase(rql: "s LIKE\(c ? "[c]" : "") \(constant("'\(pattern)'", pattern))",
                          typed: { $0.s.like(pattern, caseInsensitive: c) },
                          eval: { QRText.like(QRText.fold($0.s, caseInsensitive: c, diacriticInsensitive: false),
                                              QRText.fold(pattern, caseInsensitive: c, diacriticInsensitive: false)) },
                          sameSpelling: true)
        default:
            // Ordering compares strings by code point (as UTF-8 bytes do).
            let v = word(0...2)
            let op = rng.pick([QROp.lt, .le, .gt, .ge])
            return QRCase(rql: "s \(op.rql) \(constant("'\(v)'", v))", typed: { op.typed($0.s, v) },
                          eval: { op.holds(QRText.codePoints($0.s), QRText.codePoints(v)) },
                          sameSpelling: true)
        }
    }

    mutating func numsLeaf(_ op: QROp) -> QRCase {
        let v = rng.int(-5...10)
        switch rng.int(0...8) {
        case 0:
            return QRCase(rql: "ANY nums \(op.rql) \(v)", typed: { op.typedAny($0.nums, v) },
                          eval: { $0.nums.contains { op.holds($0, v) } }, sameSpelling: true)
        case 1:
            // ALL x op v is NOT ANY x (not op) v.
            return QRCase(rql: "ALL nums \(op.rql) \(v)", typed: { !op.negated.typedAny($0.nums, v) },
                          eval: { $0.nums.allSatisfy { op.holds($0, v) } }, sameSpelling: false)
        case 2:
            return QRCase(rql: "NONE nums \(op.rql) \(v)", typed: { !op.typedAny($0.nums, v) },
                          eval: { !$0.nums.contains { op.holds($0, v) } }, sameSpelling: false)
        case 3:
            return QRCase(rql: "\(constant(String(v), v)) IN nums", typed: { $0.nums.contains(v) },
                          eval: { $0.nums.contains(v) }, sameSpelling: true)
        case 4:
            let n = rng.int(0...4)
            return QRCase(rql: "nums.@count \(op.rql) \(n)", typed: { op.typed($0.nums.count, n) },
                          eval: { op.holds($0.nums.count, n) }, sameSpelling: true)
        case 5:
            let n = rng.int(-5...25)
            return QRCase(rql: "nums.@sum \(op.rql) \(n)", typed: { op.typed($0.nums.sum, n) },
                          eval: { op.holds($0.nums.reduce(0, +), n) }, sameSpelling: true)
        case 6:
            return QRCase(rql: "nums.@min \(op.rql) \(v)", typed: { op.typed($0.nums.min, v) },
                          eval: { op.holds($0.nums.min(), v) }, sameSpelling: true)
        case 7:
            return QRCase(rql: "nums.@max \(op.rql) \(v)", typed: { op.typed($0.nums.max, v) },
                          eval: { op.holds($0.nums.max(), v) }, sameSpelling: true)
        default:
            return QRCase(rql: "nums.@avg \(op.rql) \(v)", typed: { op.typed($0.nums.avg, v) },
                          eval: { p in op.holds(p.nums.isEmpty ? nil : Double(p.nums.reduce(0, +)) / Double(p.nums.count), Double(v)) },
                          sameSpelling: true)
        }
    }

    // MARK: Random data

    mutating func plain(id: Int) -> QRPlain {
        let tags: [(String, Int)] = [("red", 0), ("green", 2), ("blue", 4), ("Red", 5)]
        let link = rng.chance(0.2) ? nil : rng.pick(tags)
        return QRPlain(
            id: id,
            i: rng.int(-20...20),
            optI: rng.chance(0.3) ? nil : rng.int(-5...5),
            d: Double(rng.int(-12...12)) / 2,
            s: word(0...4),
            optS: rng.chance(0.3) ? nil : word(0...3),
            b: rng.chance(0.5),
            date: Self.base.addingTimeInterval(TimeInterval(rng.int(0...20) * 60)),
            nums: (0..<rng.int(0...4)).map { _ in rng.int(-5...10) },
            tags: (0..<rng.int(0...3)).map { _ in rng.pick(Self.tagNames) },
            link: link.map { (name: $0.0, rank: $0.1) })
    }
}

// MARK: - The test

final class QueryRandomTests: XCTestCase {
    func testRandomPredicatesAgainstPlainSwift() throws {
        let seed = ProcessInfo.processInfo.environment["QT_RANDOM_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var gen = QRGenerator(rng: SplitMix64(seed: seed))
        let realm = try qtInMemoryRealm([QRTag.self, QRItem.self], "qt-random")
        var model: [Int: QRPlain] = [:]
        var failures = 0

        func write(_ p: QRPlain) {
            let item = realm.object(ofType: QRItem.self, forPrimaryKey: p.id) ?? realm.create(QRItem.self, value: ["id": p.id])
            item.i = p.i
            item.optI = p.optI
            item.d = p.d
            item.s = p.s
            item.optS = p.optS
            item.b = p.b
            item.date = p.date
            item.nums.removeAll()
            item.nums.append(objectsIn: p.nums)
            item.tags.removeAll()
            item.tags.append(objectsIn: p.tags)
            item.link = p.link.map { realm.object(ofType: QRTag.self, forPrimaryKey: $0.name)! }
            model[p.id] = p
        }

        try realm.write {
            for (name, rank) in [("red", 0), ("green", 2), ("blue", 4), ("Red", 5)] {
                realm.create(QRTag.self, value: ["name": name, "rank": rank])
            }
            for id in 0..<300 { write(gen.plain(id: id)) }
        }
        let items = realm.objects(QRItem.self)
        var nextId = 300

        for round in 0..<4 {
            for _ in 0..<60 {
                gen.args = []
                let c = gen.predicate(depth: 3)
                let expected = model.values.filter(c.eval).map(\.id).sorted()
                let context = "seed \(seed) (replay with QT_RANDOM_SEED=\(seed)), round \(round): \(c.rql) args \(gen.args)"
                let typed = items.where(c.typed)
                let parsed: Results<QRItem>
                do {
                    parsed = try items.filter(c.rql, arguments: gen.args)
                } catch {
                    XCTFail("refused: \(error) — \(context)")
                    failures += 1
                    continue
                }
                let typedIds = typed.map(\.id).sorted(), parsedIds = parsed.map(\.id).sorted()
                if typedIds != expected || parsedIds != expected || typed.count != expected.count || parsed.count != expected.count {
                    failures += 1
                    XCTFail("""
                        \(context)
                          typed \(typed.queryDescription): \(typedIds.count) objects, missing \(Set(expected).subtracting(typedIds).sorted().prefix(8)), extra \(Set(typedIds).subtracting(expected).sorted().prefix(8))
                          RQL \(parsed.queryDescription): \(parsedIds.count) objects, missing \(Set(expected).subtracting(parsedIds).sorted().prefix(8)), extra \(Set(parsedIds).subtracting(expected).sorted().prefix(8))
                        """)
                }
                if c.sameSpelling && typed.queryDescription != parsed.queryDescription {
                    failures += 1
                    XCTFail("canonical strings differ: typed \(typed.queryDescription) vs RQL \(parsed.queryDescription) — \(context)")
                }
                // The canonical string reads back to the same objects.
                if let reparsed = try? items.filter(parsed.queryDescription, arguments: []), reparsed.map(\.id).sorted() != expected {
                    failures += 1
                    XCTFail("the canonical string \(parsed.queryDescription) selects other objects — \(context)")
                }
                // Sorting and aggregates over the matches.
                let matches = model.values.filter(c.eval)
                let ascending = gen.rng.chance(0.5)
                if parsed.sorted(byKeyPath: "d", ascending: ascending).map(\.d) != matches.map(\.d).sorted(by: ascending ? (<) : (>)) {
                    failures += 1
                    XCTFail("sorted by d differs — \(context)")
                }
                let sum = matches.reduce(0) { $0 + $1.i }
                if (parsed.sum(ofProperty: "i") as Int) != sum
                    || (typed.max(ofProperty: "d") as Double?) != matches.map(\.d).max()
                    || (parsed.min(ofProperty: "optI") as Int?) != matches.compactMap(\.optI).min() {
                    failures += 1
                    XCTFail("aggregates differ — \(context)")
                }
                if failures > 10 { return }
            }
            // Change the data between rounds, in the model and the realm alike.
            try realm.write {
                for _ in 0..<40 {
                    let id = gen.rng.pick(Array(model.keys))
                    if gen.rng.chance(0.25) {
                        realm.delete(realm.object(ofType: QRItem.self, forPrimaryKey: id)!)
                        model[id] = nil
                    } else {
                        write(gen.plain(id: id))
                    }
                }
                for _ in 0..<15 {
                    write(gen.plain(id: nextId))
                    nextId += 1
                }
            }
        }
        XCTAssertEqual(items.count, model.count, "seed \(seed)")
    }
}

extension SplitMix64 {
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
}
