import Foundation

// Typed queries over `CustomPersistable` properties compare the persisted values: a
// custom type has the operators its persisted type has (`<` for a number or a date, the
// string operators for a string), and a value given is converted through
// `persistableValue` (`Query.constant`).

extension Query where T: _HasPersistedType {
    /// The property as its persisted type, for operators the type itself lacks
    /// (`$0.url.persistableValue.starts(with: "https:")`).
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(.keyPath(keyPath), collection: collection) }
}

extension Query where T: _QueryCollection, T.Element: _HasPersistedType, T.Element.PersistedType: RealmCollectionValue {
    /// The collection as a collection of its elements' persisted type
    /// (`$0.readings.persistableValue.contains(10.0..<20.0)`).
    public var persistableValue: Query<AnyRealmCollection<T.Element.PersistedType>> {
        Query<AnyRealmCollection<T.Element.PersistedType>>(.keyPath(keyPath), collection: collection)
    }
}

extension Query where T: _QueryMap, T.Value: _HasPersistedType, T.Value.PersistedType: RealmCollectionValue {
    /// The map as a map of its values' persisted type.
    public var persistableValue: Query<Map<String, T.Value.PersistedType>> {
        Query<Map<String, T.Value.PersistedType>>(.keyPath(keyPath), collection: collection)
    }
}

// MARK: Ordering

extension Query where T: _CustomPersistable, T.PersistedType: _QueryComparable {
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessThan, constant(rhs)) }
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessThanOrEqual, constant(rhs)) }
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterThan, constant(rhs)) }
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, constant(rhs)) }
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.lessThan, rhs) }
    public static func <= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.lessThanOrEqual, rhs) }
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.greaterThan, rhs) }
    public static func >= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, rhs) }
}

extension Query where T: _CustomPersistable & Comparable, T.PersistedType: _QueryComparable {
    /// Whether the persisted value lies between the bounds' persisted values (`BETWEEN`).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        condition(QueryComparison(operand, .between, .list(of: [Self.constant(range.lowerBound), Self.constant(range.upperBound)])))
    }

    /// Whether the persisted value lies in the half-open range of the bounds' persisted values.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        compare(.greaterThanOrEqual, Self.constant(range.lowerBound)) && compare(.lessThan, Self.constant(range.upperBound))
    }
}

extension Query {
    // An optional custom property orders as its persisted values do; nil is less than any value.
    public static func < <W: _CustomPersistable>(lhs: Query<T>, rhs: W) -> Query<Bool> where T == W?, W.PersistedType: _QueryComparable {
        lhs.compare(.lessThan, constant(rhs))
    }
    public static func <= <W: _CustomPersistable>(lhs: Query<T>, rhs: W) -> Query<Bool> where T == W?, W.PersistedType: _QueryComparable {
        lhs.compare(.lessThanOrEqual, constant(rhs))
    }
    public static func > <W: _CustomPersistable>(lhs: Query<T>, rhs: W) -> Query<Bool> where T == W?, W.PersistedType: _QueryComparable {
        lhs.compare(.greaterThan, constant(rhs))
    }
    public static func >= <W: _CustomPersistable>(lhs: Query<T>, rhs: W) -> Query<Bool> where T == W?, W.PersistedType: _QueryComparable {
        lhs.compare(.greaterThanOrEqual, constant(rhs))
    }
}

// MARK: Strings

extension Query where T: _CustomPersistable, T.PersistedType: _QueryString {
    /// Whether the persisted string contains `value`'s (`CONTAINS`).
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, Self.constant(value), options.queryOptions)
    }
    /// Whether the persisted string begins with `value`'s (`BEGINSWITH`).
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether the persisted string ends with `value`'s (`ENDSWITH`).
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether the persisted string matches `value`'s pattern (`LIKE`).
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, Self.constant(value), caseInsensitive ? .caseInsensitive : [])
    }
    /// Equality of the persisted strings with string options (`==[c]`).
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.equal, Self.constant(value), options.queryOptions)
    }
    /// Inequality of the persisted strings with string options (`!=[c]`).
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.notEqual, Self.constant(value), options.queryOptions)
    }
}

extension Query {
    /// Whether an optional custom property's persisted string contains `value`'s.
    public func contains<W: _CustomPersistable>(_ value: W, options: StringOptions = []) -> Query<Bool>
    where T == W?, W.PersistedType: _QueryString {
        compare(.contains, Self.constant(value), options.queryOptions)
    }
    /// Whether an optional custom property's persisted string begins with `value`'s.
    public func starts<W: _CustomPersistable>(with value: W, options: StringOptions = []) -> Query<Bool>
    where T == W?, W.PersistedType: _QueryString {
        compare(.beginsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether an optional custom property's persisted string ends with `value`'s.
    public func ends<W: _CustomPersistable>(with value: W, options: StringOptions = []) -> Query<Bool>
    where T == W?, W.PersistedType: _QueryString {
        compare(.endsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether an optional custom property's persisted string matches `value`'s pattern.
    public func like<W: _CustomPersistable>(_ value: W, caseInsensitive: Bool = false) -> Query<Bool>
    where T == W?, W.PersistedType: _QueryString {
        compare(.like, Self.constant(value), caseInsensitive ? .caseInsensitive : [])
    }
}

// MARK: Collections

extension Query where T: _QueryCollection, T.Element: _CustomPersistable, T.Element.PersistedType: _QueryComparable {
    // Whether any element's persisted value compares so with `value`'s (`ANY list > value`).
    public static func < (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.lessThan, constant(rhs)) }
    public static func <= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.lessThanOrEqual, constant(rhs)) }
    public static func > (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.greaterThan, constant(rhs)) }
    public static func >= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.compare(.greaterThanOrEqual, constant(rhs)) }
}

// MARK: Types stored as embedded objects

/// `Optional` of a custom type, for the generic code that must tell one apart.
protocol OptionalOfCustomPersistable {}
extension Optional: OptionalOfCustomPersistable where Wrapped: _CustomPersistable {}

extension Query where T: _Persistable {
    /// `==` or `!=` with a value. A custom type stored as an embedded object compares
    /// member by member, as in the Realm Swift SDK: `$0.point == CGPoint(x: 1, y: 2)` is
    /// `point.x == 1 AND point.y == 2`, and `!=` is `point.x != 1 OR point.y != 2` (through
    /// a collection each comparison matches when any element's does).
    func equality(_ op: QueryOperator, _ rhs: T) -> Query<Bool> {
        if T.self is any _CustomPersistable.Type || T.self is any OptionalOfCustomPersistable.Type,
           let object = AnyValueConversion.embeddedObject(rhs) {
            return Query<Bool>(.predicate(memberwise(op, keyPath, object)), collection: collection)
        }
        return compare(op, Self.constant(rhs))
    }

    /// Every single-valued property of `object` compared with `op` to the property of the
    /// same name under `path`, joined by AND for `==` and OR for `!=` (nested embedded
    /// objects member by member too).
    private func memberwise(_ op: QueryOperator, _ path: QueryKeyPath, _ object: ObjectBase) -> QueryPredicate {
        var parts: [QueryPredicate] = []
        let info = object._typeInfo
        for (i, property) in info.properties.enumerated() where property.isSingleValue {
            var memberPath = path
            memberPath.components.append(.property(property.name))
            let value = object._value(at: i)
            if property.isEmbeddedLink, let child = AnyValueConversion.embeddedObject(value) {
                parts.append(memberwise(op, memberPath, child))
            } else {
                parts.append(.comparison(QueryComparison(.keyPath(memberPath), op, .value(Self.constant(value)))))
            }
        }
        if parts.isEmpty { return op == .equal ? .truePredicate : .falsePredicate }
        return parts.count == 1 ? parts[0] : op == .equal ? .and(parts) : .or(parts)
    }
}
