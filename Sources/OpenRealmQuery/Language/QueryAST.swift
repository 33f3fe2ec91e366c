/// The query tree: what the RQL parser produces, what the typed `Query<T>` builder
/// builds by hand, what the renderer prints and the compiler turns into an ORCore
/// program. Plain values, `Hashable` and `Sendable`; nothing here knows a schema.
///
/// Built by hand, `age > 18 AND 'comedy' IN genres SORT(name ASC)` is:
///
/// ```swift
/// ParsedQuery(
///     predicate: .and([
///         .comparison(QueryComparison(.keyPath("age"), .greaterThan, .value(.int(18)))),
///         .comparison(QueryComparison(.keyPath("genres"), .equal, .value(.string("comedy")))),
///     ]),
///     descriptors: [.sort([QuerySortKey("name", ascending: true)])])
/// ```

/// A whole query: a predicate and the SORT / DISTINCT / LIMIT descriptors written
/// after it, in the order written (ORCore applies them in that order).
/// `description` is the canonical RQL form (see `QueryRenderer.swift`).
package struct ParsedQuery: Hashable, Sendable {
    /// What an object must satisfy.
    package var predicate: QueryPredicate
    /// Ordering, deduplication and limit, in the order written.
    package var descriptors: [QueryDescriptor]

    package init(predicate: QueryPredicate, descriptors: [QueryDescriptor] = []) {
        self.predicate = predicate
        self.descriptors = descriptors
    }
}

/// A boolean condition on one object.
package indirect enum QueryPredicate: Hashable, Sendable {
    /// `TRUEPREDICATE`: every object.
    case truePredicate
    /// `FALSEPREDICATE`: no object.
    case falsePredicate
    /// `a AND b AND ...` (`&&`). An empty list is true.
    case and([QueryPredicate])
    /// `a OR b OR ...` (`||`). An empty list is false.
    case or([QueryPredicate])
    /// `NOT a` (`!a`).
    case not(QueryPredicate)
    /// `lhs op rhs`, with its options and quantifier.
    case comparison(QueryComparison)
    /// `location GEOWITHIN shape`: the point an embedded, GeoJSON-shaped object holds
    /// lies in a box, polygon or circle.
    case geoWithin(QueryGeoWithin)
}

extension QueryPredicate {
    /// Whether a GEOWITHIN occurs anywhere in the predicate (SUBQUERYs included).
    package var containsGeoWithin: Bool {
        switch self {
        case .truePredicate, .falsePredicate: return false
        case .and(let parts), .or(let parts): return parts.contains { $0.containsGeoWithin }
        case .not(let inner): return inner.containsGeoWithin
        case .geoWithin: return true
        case .comparison(let c):
            for side in [c.lhs, c.rhs] {
                if case .subqueryCount(let s) = side, s.predicate.containsGeoWithin { return true }
            }
            return false
        }
    }
}

/// `keyPath GEOWITHIN shape`. The key path reaches, through one link and no
/// collection, an embedded object with a `type` string ("Point") and a `coordinates`
/// list of doubles (longitude, latitude): the location. Objects whose location is
/// missing or not a valid point do not match.
///
/// Written forms: `location GEOWITHIN geoBox([lng, lat], [lng, lat])` (bottom-left and
/// top-right corners), `geoPolygon({[lng, lat], ...}, {...})` (the outer ring, then the
/// holes, each closed), `geoCircle([lng, lat], radians)`, or `$0` / `%@` bound to a
/// ``GeoBox``, ``GeoPolygon`` or ``GeoCircle``; `location IN %@` with a shape argument
/// means the same.
package struct QueryGeoWithin: Hashable, Sendable {
    /// The path to the location.
    package var keyPath: QueryKeyPath
    /// The shape, or its placeholder before binding.
    package var shape: QueryGeoOperand

    package init(_ keyPath: QueryKeyPath, _ shape: QueryGeoOperand) {
        self.keyPath = keyPath
        self.shape = shape
    }
}

/// The right side of `GEOWITHIN`.
package enum QueryGeoOperand: Hashable, Sendable {
    /// A shape written as a literal, or an argument after binding.
    case shape(_QueryGeoShape)
    /// `$n` or the n-th `%@`, before binding.
    case argument(Int)
}

/// `lhs op[options] rhs`, quantified. The quantifier applies to the LEFT operand when it
/// yields many values (a list, a to-many link path): `ALL scores > 5`. Without one, a
/// many-valued left side matches when ANY of its values does.
///
/// Written forms and their tree: `'comedy' IN genres` is `.value("comedy") IN
/// .keyPath(genres)`; `priority IN {1, 2}` is `.keyPath(priority) IN .list([...])`;
/// `x BETWEEN {1, 5}` has a two-element `.list` on the right.
package struct QueryComparison: Hashable, Sendable {
    /// The left operand.
    package var lhs: QueryOperand
    /// The operator.
    package var op: QueryOperator
    /// The right operand.
    package var rhs: QueryOperand
    /// `[c]`, `[d]`, `[cd]`.
    package var options: QueryStringOptions
    /// `ANY` / `SOME`, `ALL`, `NONE`, or none written.
    package var quantifier: QueryQuantifier

    package init(_ lhs: QueryOperand, _ op: QueryOperator, _ rhs: QueryOperand,
         options: QueryStringOptions = [], quantifier: QueryQuantifier = .implicit) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.options = options
        self.quantifier = quantifier
    }
}

/// Comparison operators. Raw values are ORCore's `ORC_CMP_*` codes.
package enum QueryOperator: UInt8, Hashable, Sendable, CaseIterable {
    /// `==` (also `=`).
    case equal = 1
    /// `!=` (also `<>`).
    case notEqual = 2
    /// `<`.
    case lessThan = 3
    /// `<=` (also `=<`).
    case lessThanOrEqual = 4
    /// `>`.
    case greaterThan = 5
    /// `>=` (also `=>`).
    case greaterThanOrEqual = 6
    /// `BEGINSWITH`: the left string starts with the right one.
    case beginsWith = 7
    /// `ENDSWITH`.
    case endsWith = 8
    /// `CONTAINS`: the right string occurs in the left one.
    case contains = 9
    /// `LIKE`: `*` matches any run, `?` one character.
    case like = 10
    /// `IN`: equal to one of a list's values, or (right side a key path) to one of the
    /// values the path reaches.
    case `in` = 11
    /// `BETWEEN {lo, hi}`: lo <= x <= hi.
    case between = 12

    /// The canonical spelling.
    package var token: String {
        switch self {
        case .equal: return "=="
        case .notEqual: return "!="
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .contains: return "CONTAINS"
        case .like: return "LIKE"
        case .in: return "IN"
        case .between: return "BETWEEN"
        }
    }

    /// Whether the operator orders values (`<`, `<=`, `>`, `>=`, `BETWEEN`).
    package var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between: return true
        default: return false
        }
    }

    /// Whether the operator works on text (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`).
    package var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like: return true
        default: return false
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`), or nil when it has
    /// no mirror (string operators, IN, BETWEEN).
    package var mirrored: QueryOperator? {
        switch self {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        default: return nil
        }
    }
}

/// String comparison options. Raw values are ORCore's `ORC_CMP_*_INSENSITIVE` flags.
package struct QueryStringOptions: OptionSet, Hashable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: compare after Unicode case folding.
    package static let caseInsensitive = QueryStringOptions(rawValue: 0x1)
    /// `[d]`: compare after removing diacritics.
    package static let diacriticInsensitive = QueryStringOptions(rawValue: 0x2)
}

/// How a comparison treats a left operand of many values. Raw values are ORCore's
/// `ORC_Q_*` codes.
package enum QueryQuantifier: UInt8, Hashable, Sendable {
    /// None written: a single value compares as is, many values as `ANY`.
    case implicit = 0
    /// `ANY` / `SOME`: at least one value matches. The same as `.implicit` in ORCore.
    case any = 1
    /// `ALL`: every value matches (true when there are none).
    case all = 2
    /// `NONE`: no value matches.
    case none = 3
}

/// One side of a comparison.
package enum QueryOperand: Hashable, Sendable {
    /// A property path: `age`, `dog.name`, `items.@count`, `@links.Person.dogs.name`.
    case keyPath(QueryKeyPath)
    /// A constant.
    case value(QueryValue)
    /// `{a, b, ...}`: the right side of `IN` and `BETWEEN` (and `== {...}`, read as IN).
    /// Elements are `.value`, or `.argument` before binding.
    case list([QueryOperand])
    /// `$n` or the n-th `%@` (0-based), before binding. Binding replaces it with a
    /// `.value`, or a `.list` for an array argument.
    case argument(Int)
    /// `%K` (the n-th positional argument, 0-based): a key path given as a string
    /// argument. Binding parses it into a `.keyPath`.
    case keyPathArgument(Int)
    /// `SUBQUERY(collection, $x, predicate).@count`: how many objects of a to-many
    /// link path match the predicate.
    case subqueryCount(QuerySubquery)

    /// A key path operand from a dotted string of plain property names
    /// (`.keyPath("dog.name")`); use ``QueryKeyPath`` for subscripts, backlinks and aggregates.
    package static func keyPath(_ dotted: String, aggregate: QueryAggregate? = nil) -> QueryOperand {
        .keyPath(QueryKeyPath(dotted, aggregate: aggregate))
    }

    /// A list of constants (`{1, 2, 3}`).
    package static func list(of values: [QueryValue]) -> QueryOperand {
        .list(values.map { .value($0) })
    }
}

/// A property path from the queried object, optionally reduced by an aggregate.
///
/// Inside a SUBQUERY predicate paths start at the collection's element: the
/// subquery variable is not part of the path (`$x.price` has the one component
/// `price`; `$x` alone has none and stands for the element itself).
package struct QueryKeyPath: Hashable, Sendable {
    /// The steps, from the queried object outward.
    package var components: [QueryKeyPathComponent]
    /// A trailing `@count`, `@sum`, ... (`items.price.@sum`), or nil.
    package var aggregate: QueryAggregate?

    package init(_ components: [QueryKeyPathComponent], aggregate: QueryAggregate? = nil) {
        self.components = components
        self.aggregate = aggregate
    }

    /// A path of plain property names: `QueryKeyPath("dog.owner.name")`.
    package init(_ dotted: String, aggregate: QueryAggregate? = nil) {
        self.components = dotted.split(separator: ".", omittingEmptySubsequences: false)
            .map { .property(String($0)) }
        self.aggregate = aggregate
    }
}

/// One step of a key path.
package enum QueryKeyPathComponent: Hashable, Sendable {
    /// A property of the current object: a value, a link (followed), a collection,
    /// or a LinkingObjects property.
    case property(String)
    /// `['key']` after a dictionary property: the value at that key.
    case dictionaryKey(String)
    /// `@links.ClassName.property`: the objects of `ClassName` whose `property` links
    /// to the current object.
    case backlink(className: String, property: String)
}

/// An aggregate at the end of a key path. Raw values are ORCore's `ORC_AGG_*` codes.
package enum QueryAggregate: UInt8, Hashable, Sendable, CaseIterable {
    /// `@count`: the number of values (of a string or binary: its length in bytes).
    case count = 1
    /// `@size`: the same as `@count`.
    case size = 2
    /// `@min`: the smallest number or date.
    case min = 3
    /// `@max`: the largest number or date.
    case max = 4
    /// `@sum`: the sum of the numbers.
    case sum = 5
    /// `@avg`: the average of the numbers.
    case avg = 6
    /// `@keys`: a dictionary's keys.
    case keys = 7
    /// `@values`: a dictionary's values.
    case values = 8

    /// The spelling after the `@`.
    package var name: String {
        switch self {
        case .count: return "count"
        case .size: return "size"
        case .min: return "min"
        case .max: return "max"
        case .sum: return "sum"
        case .avg: return "avg"
        case .keys: return "keys"
        case .values: return "values"
        }
    }

    /// Whether the aggregate reduces many values to one (all but `@keys` / `@values`).
    package var reduces: Bool { self != .keys && self != .values }
}

/// `SUBQUERY(collection, $var, predicate)`: counted with `.@count` as an operand.
package struct QuerySubquery: Hashable, Sendable {
    /// A path to linked objects (a list or set of links, a to-many path, backlinks).
    package var collection: QueryKeyPath
    /// The condition on each element. Its key paths start at the element (the
    /// variable is dropped); the renderer names the variable `$x` (`$x2`, ... nested).
    package var predicate: QueryPredicate

    package init(collection: QueryKeyPath, predicate: QueryPredicate) {
        self.collection = collection
        self.predicate = predicate
    }
}

/// A result descriptor written after the predicate.
package enum QueryDescriptor: Hashable, Sendable {
    /// `SORT(a ASC, b DESC)`: the first key decides, later keys break ties.
    case sort([QuerySortKey])
    /// `DISTINCT(a, b)`: keeps the first object of each distinct combination.
    case distinct([QueryKeyPath])
    /// `LIMIT(n)`: keeps the first n objects.
    case limit(UInt64)
}

/// One key of a SORT.
package struct QuerySortKey: Hashable, Sendable {
    /// The property path to order by (one value per object).
    package var keyPath: QueryKeyPath
    /// `ASC` (true) or `DESC`.
    package var ascending: Bool

    package init(_ keyPath: QueryKeyPath, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    package init(_ dotted: String, ascending: Bool = true) {
        self.init(QueryKeyPath(dotted), ascending: ascending)
    }
}
