import Foundation
import ORCore

/// Queries over the objects of a list, set or `LinkingObjects`: `Results` whose domain
/// is the collection (re-read on every evaluation, in the collection's order).
public protocol _ObjectCollectionQueries {
    associatedtype Element: ObjectBase & RealmCollectionValue
    var _queryRealm: Realm? { get }
    /// The keys of the collection's objects, in order, as a realm of the same file sees
    /// them (none when the owning object does not exist there).
    var _domain: @Sendable (Realm) -> [UInt64] { get }
}

extension _ObjectCollectionQueries {
    func _results() -> Results<Element> {
        guard let realm = _queryRealm else {
            preconditionFailure("Queries run on managed collections only: add the owning object to a realm first.")
        }
        let core = ResultsCore(realm: realm, type: Element.self, domain: _domain,
                               query: ParsedQuery(predicate: .truePredicate))
        core.domainSource = (self as? ResultsDomainProviding)?.resultsDomainSource
        return Results(core: core)
    }

    /// The keys of the collection's objects, in order.
    func _domainKeys() -> [UInt64] { _queryRealm.map(_domain) ?? [] }
}

extension CollectionLocation {
    /// The keys of the objects a list or set of links holds, in order.
    func linkKeys() -> [UInt64] { CollectionLocation.linkDomain(self)(realm) }

    /// The domain of a list or set of links: its targets' keys, read in any realm of the
    /// file; empty for an unmanaged collection.
    static func linkDomain(_ location: CollectionLocation?) -> @Sendable (Realm) -> [UInt64] {
        guard let location else { return { _ in [] } }
        location.requireNotStale()
        let table = location.table, key = location.key, column = location.column
        return { realm in
            let txn = realm.txn
            var size = 0
            guard orc_coll_size(txn, table, key, column, &size) == ORC_OK else { return [] }
            return (0..<size).compactMap { i in
                var value = orc_value()
                return orc_coll_get(txn, table, key, column, i, &value) == ORC_OK ? value.link.key : nil
            }
        }
    }
}

extension List: _ObjectCollectionQueries where Element: ObjectBase {
    public var _queryRealm: Realm? { realm }
    public var _domain: @Sendable (Realm) -> [UInt64] { CollectionLocation.linkDomain(location) }
}

extension MutableSet: _ObjectCollectionQueries where Element: ObjectBase {
    public var _queryRealm: Realm? { realm }
    public var _domain: @Sendable (Realm) -> [UInt64] { CollectionLocation.linkDomain(location) }
}

extension LinkingObjects: _ObjectCollectionQueries {
    public var _queryRealm: Realm? { realm }
    public var _domain: @Sendable (Realm) -> [UInt64] {
        owner?._requireNotStale()
        guard let owner, let table = owner._bound?.table, let (originTable, originColumn) = origin() else { return { _ in [] } }
        let key = owner._key
        return { realm in
            var keys = orc_keys()
            defer { orc_keys_free(&keys) }
            guard orc_obj_backlinks(realm.txn, table, key, originTable, originColumn, &keys) == ORC_OK else { return [] }
            return Array(UnsafeBufferPointer(start: keys.keys, count: keys.count))
        }
    }
}

/// The query API every object collection shares with `Results`.
extension _ObjectCollectionQueries {
    /// The collection's objects that match a Realm Query Language string.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        _results().filter(predicateFormat, args)
    }

    /// The throwing form of `filter(_:_:)`.
    public func filter(_ predicateFormat: String, arguments: [Any]) throws -> Results<Element> {
        try _results().filter(predicateFormat, arguments: arguments)
    }

    /// The collection's objects that match a typed query.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        _results().where(isIncluded)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        _results().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        _results().sorted(by: sortDescriptors)
    }

    public func sorted<T: _HasPersistedType>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element>
    where T.PersistedType: SortableType {
        _results().sorted(by: keyPath, ascending: ascending)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        _results().distinct(by: keyPaths)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == PartialKeyPath<Element> {
        _results().distinct(by: keyPaths)
    }

    public func min<T: MinMaxType>(ofProperty property: String) -> T? { _results().min(ofProperty: property) }
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { _results().max(ofProperty: property) }
    public func sum<T: AddableType>(ofProperty property: String) -> T { _results().sum(ofProperty: property) }
    public func average<T: AddableType>(ofProperty property: String) -> T? { _results().average(ofProperty: property) }

    /// The position of the first object matching a query string.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        guard let first = _results().filter(predicateFormat, args).first else { return nil }
        return _domainKeys().firstIndex(of: first._key)
    }
}

// MARK: Aggregates of collections of values

extension List where Element: MinMaxType & Comparable {
    /// The smallest element, nil when empty.
    public func min() -> Element? { elements.min() }
    /// The largest element, nil when empty.
    public func max() -> Element? { elements.max() }
}

extension List where Element: AddableType & AdditiveArithmetic {
    /// The sum of the elements.
    public func sum() -> Element { elements.reduce(.zero, +) }
}

extension List where Element: AddableType & BinaryFloatingPoint {
    /// The mean of the elements, nil when empty.
    public func average() -> Element? { isEmpty ? nil : sum() / Element(count) }
}

extension List where Element: AddableType & BinaryInteger {
    /// The mean of the elements, nil when empty.
    public func average<T: BinaryFloatingPoint>() -> T? { isEmpty ? nil : T(elements.reduce(0, +)) / T(count) }
}

extension List where Element: Comparable {
    /// The elements sorted (a snapshot).
    public func sorted(ascending: Bool = true) -> [Element] { ascending ? elements.sorted() : elements.sorted(by: >) }
}

extension MutableSet where Element: Comparable {
    /// The elements sorted (a snapshot).
    public func sorted(ascending: Bool = true) -> [Element] { ascending ? elements.sorted() : elements.sorted(by: >) }
}

extension MutableSet where Element: MinMaxType & Comparable {
    public func min() -> Element? { elements.min() }
    public func max() -> Element? { elements.max() }
}

extension MutableSet where Element: AddableType & AdditiveArithmetic {
    public func sum() -> Element { elements.reduce(.zero, +) }
}
