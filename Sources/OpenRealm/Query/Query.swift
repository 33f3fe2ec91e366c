import Foundation

/// A typed query, built in a `where` closure from the model's own properties:
///
/// ```swift
/// realm.objects(Task.self).where { $0.progressMinutes >= 60 && $0.assignee == "Ali" }
/// realm.objects(Team.self).where { $0.members.contains("Bob Smith") }
/// ```
///
/// It builds the same query tree the Realm Query Language parser does, so a typed
/// query and its RQL equivalent run the same program and render the same canonical
/// string.
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        /// A property path from the queried object (empty: the object itself).
        case keyPath(QueryKeyPath)
        /// A finished condition (`Query<Bool>` from a comparison).
        case predicate(QueryPredicate)
        /// `SUBQUERY(...).@count`, from `(condition).count`: an int to compare.
        case subqueryCount(QuerySubquery)
    }

    let node: Node
    /// The first collection property on the key path (the path up to and including it),
    /// carried into the conditions built from it: what a typed subquery ranges over.
    let collection: QueryKeyPath?

    init(_ node: Node, collection: QueryKeyPath? = nil) {
        self.node = node
        self.collection = collection
    }

    /// The root of a query on `T`: the object itself.
    public init() {
        node = .keyPath(QueryKeyPath([]))
        collection = nil
    }

    var keyPath: QueryKeyPath {
        guard case .keyPath(let path) = node else {
            preconditionFailure("A condition cannot be used as a property in a query.")
        }
        return path
    }

    func appending(_ names: [String]) -> QueryKeyPath {
        var path = keyPath
        path.components += names.map { .property($0) }
        return path
    }

    /// A step to the property `member`, remembering the first collection on the way.
    func member<V>(_ names: [String]) -> Query<V> {
        let path = appending(names)
        return Query<V>(.keyPath(path), collection: collection ?? (V.self is any _QueryCollection.Type ? path : nil))
    }

    /// The property `member` of the queried object.
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        self.member(_KeyPathRecorder.names(of: member))
    }

    /// The property `member` of a linked object (through an optional link).
    public subscript<V, U: ObjectBase>(dynamicMember member: KeyPath<U, V>) -> Query<V> where T == U? {
        self.member(_KeyPathRecorder.names(of: member))
    }

    /// The condition this query stands for: a comparison, or a bool property being true.
    package var predicate: QueryPredicate {
        switch node {
        case .predicate(let p): return p
        case .keyPath(let path): return .comparison(QueryComparison(.keyPath(path), .equal, .value(.bool(true))))
        case .subqueryCount: preconditionFailure("A subquery count must be compared with a number: (condition).count > 0.")
        }
    }

    /// The left side of a comparison: the key path, or a subquery count.
    var operand: QueryOperand {
        switch node {
        case .keyPath(let path): return .keyPath(path)
        case .subqueryCount(let subquery): return .subqueryCount(subquery)
        case .predicate: preconditionFailure("A condition cannot be used as a property in a query.")
        }
    }

    /// A condition, carrying the collection its key paths run through.
    func condition(_ comparison: QueryComparison) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(comparison)), collection: collection)
    }

    func compare(_ op: QueryOperator, _ value: QueryValue, _ options: QueryStringOptions = []) -> Query<Bool> {
        condition(QueryComparison(operand, op, .value(value), options: options))
    }

    func compare(_ op: QueryOperator, _ other: Query<some Any>, _ options: QueryStringOptions = []) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(QueryComparison(operand, op, other.operand, options: options))),
                    collection: collection ?? other.collection)
    }

    /// The constant a Swift value of a common type stands for, without going through
    /// `Any` (the general conversion tries casts to several protocols first, which
    /// costs more than the rest of building a typed query).
    static func constant<V>(_ value: V) -> QueryValue {
        if V.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if V.self == String?.self { return unsafeBitCast(value, to: String?.self).map { .string($0) } ?? .null }
        if V.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if V.self == Int?.self { return unsafeBitCast(value, to: Int?.self).map { .int(Int64($0)) } ?? .null }
        if V.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if V.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if V.self == ObjectId.self { return .objectId(unsafeBitCast(value, to: ObjectId.self)) }
        return constant(value as Any?)
    }

    /// The constant a Swift value stands for.
    static func constant(_ value: Any?) -> QueryValue {
        guard let value = AnyValueConversion.unwrap(value) else { return .null }
        if let enumValue = value as? any PersistableEnum { return constant(enumValue.rawValue) }
        if let custom = value as? any _CustomPersistable { return constant(custom.persistableValue) }
        do { return try QueryArgumentBinder.value(for: value, index: 0) } catch {
            preconditionFailure("A value of type \(type(of: value)) cannot be used in a query: \((error as? QueryError)?.message ?? "\(error)")")
        }
    }
}

/// Options of string comparisons in typed queries.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// Compare after case folding (`[c]`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Compare ignoring diacritics (`[d]`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var queryOptions: QueryStringOptions {
        var o: QueryStringOptions = []
        if contains(.caseInsensitive) { o.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { o.insert(.diacriticInsensitive) }
        return o
    }
}

// MARK: Logic

extension Query where T == Bool {
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query<Bool>(.predicate(.and([lhs.predicate, rhs.predicate])), collection: lhs.collection ?? rhs.collection)
    }

    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query<Bool>(.predicate(.or([lhs.predicate, rhs.predicate])), collection: lhs.collection ?? rhs.collection)
    }

    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        Query<Bool>(.predicate(.not(query.predicate)), collection: query.collection)
    }
}

// MARK: Subqueries

extension Query where T == Bool {
    /// How many objects of a collection satisfy the condition (`SUBQUERY(...).@count`).
    /// Every property in the condition is read through the same collection:
    ///
    /// ```swift
    /// realm.objects(Team.self).where { ($0.tasks.completed == false && $0.tasks.progressMinutes > 30).count > 0 }
    /// // SUBQUERY(tasks, $x, $x.completed == false AND $x.progressMinutes > 30).@count > 0
    /// ```
    public var count: Query<Int> {
        guard let collection else {
            preconditionFailure("A subquery's condition must read properties of a collection's objects, as in ($0.tasks.progressMinutes > 30).count.")
        }
        return Query<Int>(.subqueryCount(QuerySubquery(collection: collection, predicate: Self.relative(predicate, to: collection))))
    }

    /// The predicate with the collection's path cut from the front of its key paths, so
    /// that they start at the collection's element.
    static func relative(_ predicate: QueryPredicate, to collection: QueryKeyPath) -> QueryPredicate {
        func cut(_ operand: QueryOperand) -> QueryOperand {
            guard case .keyPath(var path) = operand, path.components.starts(with: collection.components) else { return operand }
            precondition(path.components.count > collection.components.count || path.aggregate == nil,
                         "A subquery over '\(collection)' cannot use the collection itself in its condition.")
            path.components.removeFirst(collection.components.count)
            return .keyPath(path)
        }
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .and(let parts): return .and(parts.map { relative($0, to: collection) })
        case .or(let parts): return .or(parts.map { relative($0, to: collection) })
        case .not(let inner): return .not(relative(inner, to: collection))
        case .comparison(var c):
            c.lhs = cut(c.lhs)
            c.rhs = cut(c.rhs)
            return .comparison(c)
        case .geoWithin(var g):
            if case .keyPath(let path) = cut(.keyPath(g.keyPath)) { g.keyPath = path }
            return .geoWithin(g)
        }
    }
}

// MARK: Equality and ordering

extension Query where T: _Persistable {
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.equality(.equal, rhs) }
    public static func == (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.equal, rhs) }
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.equality(.notEqual, rhs) }
    public static func != (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.notEqual, rhs) }

    /// Whether the property's value is one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        condition(QueryComparison(operand, .in, .list(of: values.map { Self.constant($0) })))
    }
}

/// Types `<`, `<=`, `>`, `>=` and ranges apply to in typed queries.
public protocol _QueryComparable {}
extension Int: _QueryComparable {}
extension Int8: _QueryComparable {}
extension Int16: _QueryComparable {}
extension Int32: _QueryComparable {}
extension Int64: _QueryComparable {}
extension Float: _QueryComparable {}
extension Double: _QueryComparable {}
extension Date: _QueryComparable {}
extension Decimal128: _QueryComparable {}
extension String: _QueryComparable {}
extension ObjectId: _QueryComparable {}
extension UUID: _QueryComparable {}
extension AnyRealmValue: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {}

/// The numeric types (and `Date`, `AnyRealmValue`): the SDK's tag for what its numeric
/// operators and aggregates take, which generic code over Realm types names. Every such
/// type orders (``_QueryComparable``), so a function generic over `T: _QueryNumeric &
/// _Persistable` can compare `Query<T>`s.
public protocol _QueryNumeric: _QueryComparable, _RealmSchemaDiscoverable {}
extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension AnyRealmValue: _QueryNumeric {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric & _OptionalPersistable {}

extension Query where T: _QueryComparable & _Persistable {
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessThan, constant(rhs)) }
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessThanOrEqual, constant(rhs)) }
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterThan, constant(rhs)) }
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, constant(rhs)) }
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.lessThan, rhs) }
    public static func <= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.lessThanOrEqual, rhs) }
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.greaterThan, rhs) }
    public static func >= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, rhs) }
}

extension Query where T: PersistableEnum, T.RawValue: _QueryComparable {
    /// The enum's stored raw value, for operators the enum itself lacks
    /// (`$0.priority.rawValue.contains(1...2)`).
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(.keyPath(keyPath), collection: collection) }

    // Enums order by their raw values, as they are stored.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessThan, constant(rhs)) }
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessThanOrEqual, constant(rhs)) }
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterThan, constant(rhs)) }
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, constant(rhs)) }
}

extension Query where T: _QueryComparable & _Persistable & Comparable {
    /// Whether the value lies in the closed range (`BETWEEN`).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        condition(QueryComparison(operand, .between, .list(of: [Self.constant(range.lowerBound), Self.constant(range.upperBound)])))
    }

    /// Whether the value lies in the half-open range.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        compare(.greaterThanOrEqual, Self.constant(range.lowerBound)) && compare(.lessThan, Self.constant(range.upperBound))
    }
}

extension Query {
    /// Whether an optional value lies in the closed range (`BETWEEN`); nil never does.
    public func contains<W: _QueryComparable & _OptionalPersistable & Comparable>(_ range: ClosedRange<W>) -> Query<Bool> where T == W? {
        condition(QueryComparison(operand, .between, .list(of: [Self.constant(range.lowerBound), Self.constant(range.upperBound)])))
    }

    /// Whether an optional value lies in the half-open range; nil never does.
    public func contains<W: _QueryComparable & _OptionalPersistable & Comparable>(_ range: Range<W>) -> Query<Bool> where T == W? {
        compare(.greaterThanOrEqual, Self.constant(range.lowerBound)) && compare(.lessThan, Self.constant(range.upperBound))
    }
}

// MARK: Strings

/// The types compatible with binary data (the SDK's tag; every string type is one).
public protocol _QueryBinary {}

/// Types the string operators apply to in typed queries.
public protocol _QueryString: _QueryBinary {}
extension String: _QueryString {}
extension Data: _QueryString {}
extension Optional: _QueryString where Wrapped: _QueryString {}
extension Optional: _QueryBinary where Wrapped: _QueryBinary {}
extension AnyRealmValue: _QueryString {}

extension Query where T: _QueryString & _Persistable {
    /// Whether the string contains `value` (`CONTAINS`).
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, Self.constant(value), options.queryOptions)
    }
    /// Whether the string begins with `value` (`BEGINSWITH`).
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether the string ends with `value` (`ENDSWITH`).
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether the string matches a pattern with `*` and `?` wildcards (`LIKE`).
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, Self.constant(value), caseInsensitive ? .caseInsensitive : [])
    }
    /// Equality with string options (`==[c]`).
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.equal, Self.constant(value), options.queryOptions)
    }
    /// Inequality with string options (`!=[c]`).
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.notEqual, Self.constant(value), options.queryOptions)
    }

    // The same operators against another property of the object.

    /// Whether the string contains the other property's value.
    public func contains<U: _QueryString>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, column, options.queryOptions)
    }
    /// Whether the string begins with the other property's value.
    public func starts<U: _QueryString>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, column, options.queryOptions)
    }
    /// Whether the string ends with the other property's value.
    public func ends<U: _QueryString>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, column, options.queryOptions)
    }
    /// Whether the string matches the pattern the other property holds.
    public func like<U: _QueryString>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, column, caseInsensitive ? .caseInsensitive : [])
    }
    /// Equality with the other property's value, with string options.
    public func equals<U: _QueryString>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.equal, column, options.queryOptions)
    }
    /// Inequality with the other property's value, with string options.
    public func notEquals<U: _QueryString>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.notEqual, column, options.queryOptions)
    }
}

// MARK: Collections

/// Collections typed queries can look into: `List`, `MutableSet`, `LinkingObjects`.
public protocol _QueryCollection {
    associatedtype Element
}
extension List: _QueryCollection {}
extension MutableSet: _QueryCollection {}
extension LinkingObjects: _QueryCollection {}
extension AnyRealmCollection: _QueryCollection {}

extension Query where T: _QueryCollection {
    /// Whether the collection holds `value` (`value IN collection`).
    public func contains(_ value: T.Element) -> Query<Bool> {
        condition(QueryComparison(.value(Self.constant(value)), .in, .keyPath(keyPath)))
    }

    /// Whether the collection holds any of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.Element {
        condition(QueryComparison(.keyPath(keyPath), .in, .list(of: values.map { Self.constant($0) }), quantifier: .any))
    }

    /// The number of elements (`@count`).
    public var count: Query<Int> { aggregate(.count) }
    /// The smallest element (`@min`).
    public var min: Query<T.Element> { aggregate(.min) }
    /// The largest element (`@max`).
    public var max: Query<T.Element> { aggregate(.max) }
    /// The sum of the elements (`@sum`).
    public var sum: Query<T.Element> { aggregate(.sum) }
    /// The mean of the elements (`@avg`).
    public var avg: Query<T.Element> { aggregate(.avg) }

    /// A property of the collection's objects: compared, it matches when any element's does.
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: ObjectBase {
        self.member(_KeyPathRecorder.names(of: member))
    }
}

extension Query {
    /// The key path reduced by an aggregate (`@count`, `@min`, ...).
    func aggregate<V>(_ aggregate: QueryAggregate) -> Query<V> {
        var path = keyPath
        path.aggregate = aggregate
        return Query<V>(.keyPath(path))
    }
}

extension Query where T: _QueryCollection, T.Element: _Persistable {
    /// Whether any element equals `value` (`ANY list == value`).
    public static func == (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.equal, constant(rhs)) }
    /// Whether any element differs from `value` (`ANY list != value`).
    public static func != (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.notEqual, constant(rhs)) }
}

extension Query where T: _QueryCollection, T.Element: _QueryComparable & _Persistable {
    // Whether any element compares so with `value` (`ANY list > value`).
    public static func < (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.lessThan, constant(rhs)) }
    public static func <= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.lessThanOrEqual, constant(rhs)) }
    public static func > (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.greaterThan, constant(rhs)) }
    public static func >= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, constant(rhs)) }
}

extension Query where T: _QueryCollection, T.Element: _QueryComparable & _Persistable & Comparable {
    /// Whether every element lies in the closed range (`@min >= low AND @max <= high`).
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        (min as Query<T.Element>).compare(.greaterThanOrEqual, Self.constant(range.lowerBound))
            && (max as Query<T.Element>).compare(.lessThanOrEqual, Self.constant(range.upperBound))
    }

    /// Whether every element lies in the half-open range (`@min >= low AND @max < high`).
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        (min as Query<T.Element>).compare(.greaterThanOrEqual, Self.constant(range.lowerBound))
            && (max as Query<T.Element>).compare(.lessThan, Self.constant(range.upperBound))
    }
}

// MARK: Aggregates over a property of a collection's objects

extension Query where T: MinMaxType {
    /// The smallest value of the property among a collection's objects
    /// (`$0.tasks.progressMinutes.min`, `tasks.@min.progressMinutes`).
    public var min: Query<T> { aggregate(.min) }
    /// The largest value of the property among a collection's objects.
    public var max: Query<T> { aggregate(.max) }
}

extension Query where T: AddableType {
    /// The sum of the property over a collection's objects (`tasks.@sum.progressMinutes`).
    public var sum: Query<T> { aggregate(.sum) }
    /// The mean of the property over a collection's objects.
    public var avg: Query<T> { aggregate(.avg) }
}

extension Query where T: _QueryMap {
    /// The value at `key` (`dict['key']`).
    public subscript(key: String) -> Query<T.Value> {
        var path = keyPath
        path.components.append(.dictionaryKey(key))
        return Query<T.Value>(.keyPath(path))
    }

    /// The keys (`@keys`).
    public var keys: Query<String> {
        var path = keyPath
        path.aggregate = .keys
        return Query<String>(.keyPath(path))
    }

    /// The values (`@values`).
    public var values: Query<T.Value> {
        var path = keyPath
        path.aggregate = .values
        return Query<T.Value>(.keyPath(path))
    }

    /// The number of entries (`@count`).
    public var count: Query<Int> {
        var path = keyPath
        path.aggregate = .count
        return Query<Int>(.keyPath(path))
    }

    /// Whether any value equals `value`.
    public func contains(_ value: T.Value) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(QueryComparison(.value(Self.constant(value)), .in, .keyPath(values.keyPath)))))
    }

    /// Whether any of the map's values is one of `values` (its keys are not looked at).
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.Value {
        Query<Bool>(.predicate(.comparison(QueryComparison(.keyPath(self.values.keyPath), .in,
                                                           .list(of: values.map { Self.constant($0) }), quantifier: .any))))
    }
}

extension Query where T: _QueryMap, T.Value: _Persistable & Comparable {
    /// Whether every value lies in the closed range (`@min >= low AND @max <= high`).
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        (aggregate(.min) as Query<T.Value>).compare(.greaterThanOrEqual, Self.constant(range.lowerBound))
            && (aggregate(.max) as Query<T.Value>).compare(.lessThanOrEqual, Self.constant(range.upperBound))
    }

    /// Whether every value lies in the half-open range (`@min >= low AND @max < high`).
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        (aggregate(.min) as Query<T.Value>).compare(.greaterThanOrEqual, Self.constant(range.lowerBound))
            && (aggregate(.max) as Query<T.Value>).compare(.lessThan, Self.constant(range.upperBound))
    }
}

/// Maps typed queries can look into.
public protocol _QueryMap {
    associatedtype Value
}
extension Map: _QueryMap {}
