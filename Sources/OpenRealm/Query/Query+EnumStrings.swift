import Foundation

// An enum stored as a string has the string operators in typed queries, as its stored
// raw value has them: the value given is compared through its raw value, so
// `$0.status.like(.draftPattern)` matches with the raw value `"draft*"` as the pattern.

extension Query where T: PersistableEnum, T.RawValue: _QueryString {
    /// Whether the stored raw value matches `value`'s raw value as a pattern with `*`
    /// and `?` wildcards (`LIKE`).
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, Self.constant(value), caseInsensitive ? .caseInsensitive : [])
    }
    /// Whether the stored raw value contains `value`'s (`CONTAINS`).
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, Self.constant(value), options.queryOptions)
    }
    /// Whether the stored raw value begins with `value`'s (`BEGINSWITH`).
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether the stored raw value ends with `value`'s (`ENDSWITH`).
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, Self.constant(value), options.queryOptions)
    }
    /// Equality of the raw values with string options (`==[c]`).
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.equal, Self.constant(value), options.queryOptions)
    }
    /// Inequality of the raw values with string options (`!=[c]`).
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.notEqual, Self.constant(value), options.queryOptions)
    }
}

extension Query {
    // The same for an optional enum property: nil matches no pattern and contains nothing.

    /// Whether an optional enum's raw value matches `value`'s raw value as a pattern.
    public func like<W: PersistableEnum>(_ value: W, caseInsensitive: Bool = false) -> Query<Bool>
    where T == W?, W.RawValue: _QueryString {
        compare(.like, Self.constant(value), caseInsensitive ? .caseInsensitive : [])
    }
    /// Whether an optional enum's raw value contains `value`'s.
    public func contains<W: PersistableEnum>(_ value: W, options: StringOptions = []) -> Query<Bool>
    where T == W?, W.RawValue: _QueryString {
        compare(.contains, Self.constant(value), options.queryOptions)
    }
    /// Whether an optional enum's raw value begins with `value`'s.
    public func starts<W: PersistableEnum>(with value: W, options: StringOptions = []) -> Query<Bool>
    where T == W?, W.RawValue: _QueryString {
        compare(.beginsWith, Self.constant(value), options.queryOptions)
    }
    /// Whether an optional enum's raw value ends with `value`'s.
    public func ends<W: PersistableEnum>(with value: W, options: StringOptions = []) -> Query<Bool>
    where T == W?, W.RawValue: _QueryString {
        compare(.endsWith, Self.constant(value), options.queryOptions)
    }
}
