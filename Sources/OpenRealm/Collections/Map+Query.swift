import Foundation
import ORCore

/// Queries over a map's object values (`Map<String, Task?>`): `Results` whose domain is
/// the map's non-nil values, in key order.
extension Map {
    private func valueResults<T: ObjectBase>(_ type: T.Type) -> Results<T> {
        guard let location else {
            preconditionFailure("Queries run on managed maps only: add the owning object to a realm first.")
        }
        let table = location.table, key = location.key, column = location.column
        let domain: ResultsDomain = { realm in
            let txn = realm.txn
            var size = 0
            guard orc_coll_size(txn, table, key, column, &size) == ORC_OK else { return [] }
            return (0..<size).compactMap { i in
                var value = orc_value()
                guard orc_coll_get(txn, table, key, column, i, &value) == ORC_OK, value.type == ORC_TYPE_LINK else { return nil }
                return value.link.key
            }
        }
        return Results(core: ResultsCore(realm: location.realm, type: T.self, domain: domain,
                                         query: ParsedQuery(predicate: .truePredicate)))
    }

    /// The map's object values that match a Realm Query Language string.
    public func filter<T: ObjectBase>(_ predicateFormat: String, _ args: Any...) -> Results<T> where Value == T? {
        valueResults(T.self).filter(predicateFormat, args)
    }

    /// The map's object values that match a typed query.
    public func `where`<T: ObjectBase>(_ isIncluded: (Query<T>) -> Query<Bool>) -> Results<T> where Value == T? {
        valueResults(T.self).where(isIncluded)
    }

    /// The map's object values, sorted.
    public func sorted<T: ObjectBase>(byKeyPath keyPath: String, ascending: Bool = true) -> Results<T> where Value == T? {
        valueResults(T.self).sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func min<T: ObjectBase, V: MinMaxType>(ofProperty property: String) -> V? where Value == T? {
        valueResults(T.self).min(ofProperty: property)
    }

    public func max<T: ObjectBase, V: MinMaxType>(ofProperty property: String) -> V? where Value == T? {
        valueResults(T.self).max(ofProperty: property)
    }

    public func sum<T: ObjectBase, V: AddableType>(ofProperty property: String) -> V where Value == T? {
        valueResults(T.self).sum(ofProperty: property)
    }

    public func average<T: ObjectBase, V: AddableType>(ofProperty property: String) -> V? where Value == T? {
        valueResults(T.self).average(ofProperty: property)
    }
}

extension Map where Value: MinMaxType & Comparable {
    /// The smallest value, nil when empty.
    public func min() -> Value? { values.min() }
    /// The largest value, nil when empty.
    public func max() -> Value? { values.max() }
}

extension Map where Value: AddableType & AdditiveArithmetic {
    /// The sum of the values.
    public func sum() -> Value { values.reduce(.zero, +) }
}

extension Map where Value: AddableType & BinaryFloatingPoint {
    /// The mean of the values, nil when empty.
    public func average() -> Value? { isEmpty ? nil : sum() / Value(count) }
}

extension Map where Value: Comparable {
    /// The values sorted (a snapshot).
    public func sorted(ascending: Bool = true) -> [Value] { ascending ? values.sorted() : values.sorted(by: >) }
}
