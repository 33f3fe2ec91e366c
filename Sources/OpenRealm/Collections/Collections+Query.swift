import Foundation
import ORCore

/// Queries over the objects of a list, set or `LinkingObjects`: `Results` whose domain
/// is the collection (re-read on every evaluation, in the collection's order).
public protocol _ObjectCollectionQueries {
    associatedtype Element: ObjectBase & RealmCollectionValue
    var _queryRealm: Realm? { get }
    /// The keys of the collection's objects, in order.
    func _domainKeys() -> [UInt64]
}

extension _ObjectCollectionQueries {
    func _results() -> Results<Element> {
        guard let realm = _queryRealm else {
            preconditionFailure("Queries run on managed collections only: add the owning object to a realm first.")
        }
        let core = ResultsCore(realm: realm, type: Element.self, domain: { [self] in _domainKeys() },
                               query: ParsedQuery(predicate: .truePredicate))
        core.domainSource = (self as? ResultsDomainProviding)?.resultsDomainSource
        return Results(core: core)
    }
}

extension CollectionLocation {
    func linkKeys() -> [UInt64] {
        (0..<size()).map { get($0).link.key }
    }
}

extension List: _ObjectCollectionQueries where Element: ObjectBase {
    public var _queryRealm: Realm? { realm }
    public func _domainKeys() -> [UInt64] { location?.linkKeys() ?? [] }
}

extension MutableSet: _ObjectCollectionQueries where Element: ObjectBase {
    public var _queryRealm: Realm? { realm }
    public func _domainKeys() -> [UInt64] { location?.linkKeys() ?? [] }
}

extension LinkingObjects: _ObjectCollectionQueries {
    public var _queryRealm: Realm? { realm }
    public func _domainKeys() -> [UInt64] { keys }
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

    public func sorted<V: Comparable>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        _results().sorted(by: keyPath, ascending: ascending)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
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

extension MutableSet where Element: MinMaxType & Comparable {
    public func min() -> Element? { elements.min() }
    public func max() -> Element? { elements.max() }
}

extension MutableSet where Element: AddableType & AdditiveArithmetic {
    public func sum() -> Element { elements.reduce(.zero, +) }
}
