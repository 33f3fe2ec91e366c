import Foundation

/// What `Results`, `List`, `MutableSet` and `LinkingObjects` have in common, for code
/// generic over them (`func show<C: RealmCollection>(_ items: C) where C.Element == Task`).
/// Equatable as the SDK's (`Collections+Equatable.swift`: identity of the stored collection).
///
/// Every realm collection can be observed (`observe(keyPaths:on:_:)`, from
/// `_ObservableCollection`), its block called with `RealmCollectionChange<Self>`.
public protocol RealmCollection<Element>: RandomAccessCollection, Equatable, _ObservableCollection
    where Index == Int, _ObservedElement == Element, _ObservedChange == RealmCollectionChange<Self> {
    /// The realm managing the collection, nil when unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read (its owner was deleted).
    var isInvalidated: Bool { get }
    /// Whether the collection belongs to a frozen realm.
    var isFrozen: Bool { get }
    /// The position of an element, or nil.
    func index(of object: Element) -> Int?
    /// The value of `key` for every element (`"self"`: the elements); see
    /// `Collections+KeyValue.swift`.
    func value(forKey key: String) -> Any?
    /// The value at a dotted key path for every element, or a collection operator's
    /// result (`@count`, `@sum.age`, ...).
    func value(forKeyPath keyPath: String) -> Any?
    /// Sets the property `key` of every object (inside a write transaction).
    func setValue(_ value: Any?, forKey key: String)
}

extension Results: RealmCollection {}
extension List: RealmCollection {}
extension MutableSet: RealmCollection {
    public func index(of object: Element) -> Int? { firstIndex { $0 == object } }
}
extension LinkingObjects: RealmCollection {}

/// A type-erased `RealmCollection`: a `Results`, `List`, `MutableSet` or
/// `LinkingObjects` behind one type.
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection, CustomStringConvertible {
    /// The wrapped collection (its key-value coding answers for the wrapper's).
    let base: any RealmCollection<Element>
    private let makeResults: (() -> Results<Element>)?

    /// Wraps any realm collection.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        if let erased = base as? AnyRealmCollection<Element> {
            self = erased
            return
        }
        self.base = base
        makeResults = Self.resultsMaker(base)
    }

    private static func resultsMaker(_ base: some RealmCollection<Element>) -> (() -> Results<Element>)? {
        if let results = base as? Results<Element> { return { results } }
        if let source = base as? any _ObjectCollectionQueries {
            return { Self.openResults(source) }
        }
        return nil
    }

    private static func openResults<S: _ObjectCollectionQueries>(_ source: S) -> Results<Element> {
        source._results() as! Results<Element>
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { base.count }
    public var count: Int { base.count }
    public subscript(position: Int) -> Element { base[base.startIndex + position] }
    public var realm: Realm? { base.realm }
    public var isInvalidated: Bool { base.isInvalidated }
    public var isFrozen: Bool { base.isFrozen }
    public func index(of object: Element) -> Int? { base.index(of: object) }
    /// The elements, described as the Realm Swift SDK does (`DescriptionWithMaxDepth`).
    public var description: String {
        DescriptionWithMaxDepth.collection("AnyRealmCollection", elementType: DescriptionWithMaxDepth.typeName(Element.self),
                                           address: UnsafeRawPointer(Unmanaged.passUnretained(base as AnyObject).toOpaque()),
                                           count: count, elements: self, depth: DescriptionWithMaxDepth.maxDepth)
    }

    /// Iterates as the wrapped collection does (over what it held when the loop began).
    public func makeIterator() -> RLMIterator<Element> { Self.iterator(of: base) }

    private static func iterator<C: RealmCollection>(of base: C) -> RLMIterator<Element> where C.Element == Element {
        RLMIterator(base.makeIterator())
    }

    public var _observedRealm: Realm? { base.realm }
    public var _observedName: String { "AnyRealmCollection(\(Self.name(base)))" }

    /// Observing the wrapper observes the wrapped collection; the block gets the
    /// wrapped collection's changes with the collection wrapped again.
    public func _registration(in realm: Realm, keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> AnyObject? {
        Self.registration(base, realm, keyPaths, block)
    }

    private static func name<C: RealmCollection>(_ base: C) -> String { base._observedName }

    private static func registration<C: RealmCollection>(_ base: C, _ realm: Realm, _ keyPaths: [String]?,
                                                         _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> AnyObject? where C.Element == Element {
        base._registration(in: realm, keyPaths: keyPaths) { change in
            block(change.mapCollection { AnyRealmCollection($0) })
        }
    }

    /// The query API, for collections of objects.
    func results() -> Results<Element> {
        guard let makeResults else {
            preconditionFailure("Queries run on collections of objects only.")
        }
        return makeResults()
    }
}

extension AnyRealmCollection where Element: ObjectBase {
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> { results().filter(predicateFormat, args) }
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> { results().where(isIncluded) }
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        results().sorted(byKeyPath: keyPath, ascending: ascending)
    }
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        results().sorted(by: sortDescriptors)
    }
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        results().distinct(by: keyPaths)
    }
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { results().min(ofProperty: property) }
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { results().max(ofProperty: property) }
    public func sum<T: AddableType>(ofProperty property: String) -> T { results().sum(ofProperty: property) }
    public func average<T: AddableType>(ofProperty property: String) -> T? { results().average(ofProperty: property) }
}
