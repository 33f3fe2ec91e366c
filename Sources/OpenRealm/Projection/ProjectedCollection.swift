import Foundation

/// A `List` or `MutableSet` of objects seen as the values of one key path of its
/// elements: the type of a `@Projected` property declared with `projectTo`.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
/// }
/// ```
///
/// It reads the collection it was made from on every access (it is live as the
/// collection is), in the collection's order; a projected set may hold equal values.
/// Setting an element (inside a write transaction) writes the key path of the object
/// at that position, which must then be writable.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible where Element: RealmCollectionValue {
    public typealias Index = Int

    private let source: any ProjectedCollectionSource
    private let keyPath: AnyKeyPath
    /// Writes an element's key path; nil when the key path is not writable.
    private let setter: ((ObjectBase, Element) -> Void)?

    init(_ source: any ProjectedCollectionSource, keyPath: AnyKeyPath, setter: ((ObjectBase, Element) -> Void)?) {
        self.source = source
        self.keyPath = keyPath
        self.setter = setter
    }

    private func with(_ source: any ProjectedCollectionSource) -> ProjectedCollection<Element> {
        ProjectedCollection(source, keyPath: keyPath, setter: setter)
    }

    /// The value of the key path on the object at `position`; setting it (inside a
    /// write transaction) writes that object.
    public subscript(position: Int) -> Element {
        get { source.object(at: position)[keyPath: keyPath] as! Element }
        nonmutating set {
            guard let setter else {
                preconditionFailure("KeyPath is not writable: cannot set \(keyPath) of an element of ProjectedCollection<\(Element.self)>.")
            }
            setter(source.object(at: position), newValue)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { source.count }

    /// The realm of the projected collection (nil when it is unmanaged).
    public var realm: Realm? { source.realm }
    /// Whether the collection can no longer be read (its owner was deleted, or the
    /// realm invalidated).
    public var isInvalidated: Bool { source.isInvalidated }
    /// Whether the collection belongs to a frozen realm.
    public var isFrozen: Bool { source.isFrozen }

    /// The position of the first element equal to `object`, or nil.
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// The same projection of a frozen copy of the collection.
    public func freeze() -> ProjectedCollection<Element> { with(source.freeze()) }

    /// The same projection of the live collection, or nil when its owner was deleted.
    public func thaw() -> ProjectedCollection<Element>? { source.thaw().map(with) }

    public var description: String {
        var description = "ProjectedCollection<\(Element.self)> {\n"
        for (i, value) in enumerated() {
            description += "\t[\(i)] \(value)\n"
        }
        return description + "}"
    }

    /// Registers a block called with the collection first, then after every write that
    /// changes the collection or its objects (see `List.observe(keyPaths:on:_:)`: the
    /// key paths name the elements' properties).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        source.observe(keyPaths: keyPaths, on: queue) { change in
            block(change.mapCollection(with))
        }
    }

    /// `observe(keyPaths:on:_:)` with no key paths.
    public func observe(on queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: nil, on: queue, block)
    }
}

/// Maps a collection of objects to a `ProjectedCollection` of one key path of its
/// elements: what `projectTo` returns, read with the key path's last step
/// (`\Person.dogs.projectTo.name`).
@dynamicMemberLookup
public struct CollectionElementMapper<Element> where Element: ObjectBase & RealmCollectionValue {
    let source: any ProjectedCollectionSource

    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        let setter: ((ObjectBase, V) -> Void)?
        if let writable = member as? ReferenceWritableKeyPath<Element, V> {
            setter = { object, value in (object as! Element)[keyPath: writable] = value }
        } else {
            setter = nil
        }
        return ProjectedCollection(source, keyPath: member, setter: setter)
    }
}

extension List where Element: ObjectBase {
    /// The list's objects seen as the values of one of their key paths, for a
    /// `@Projected` property: `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: CollectionOfObjects(self, freeze: { $0.freeze() }, thaw: { $0.thaw() }))
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects seen as the values of one of their key paths, for a
    /// `@Projected` property. The projected values may repeat: they are not a set.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: CollectionOfObjects(self, freeze: { $0.freeze() }, thaw: { $0.thaw() }))
    }
}

/// The collection of objects a `ProjectedCollection` reads, whatever its type.
protocol ProjectedCollectionSource {
    var count: Int { get }
    func object(at position: Int) -> ObjectBase
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    func freeze() -> any ProjectedCollectionSource
    func thaw() -> (any ProjectedCollectionSource)?
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectedCollectionSource>) -> Void) -> NotificationToken
}

/// A `List` or `MutableSet` of objects as a ``ProjectedCollectionSource``.
struct CollectionOfObjects<C: RealmCollection>: ProjectedCollectionSource
where C.Element: ObjectBase, C._ObservedChange == RealmCollectionChange<C> {
    let collection: C
    let freezer: (C) -> C
    let thawer: (C) -> C?

    init(_ collection: C, freeze: @escaping (C) -> C, thaw: @escaping (C) -> C?) {
        self.collection = collection
        freezer = freeze
        thawer = thaw
    }

    private func with(_ collection: C) -> CollectionOfObjects<C> { CollectionOfObjects(collection, freeze: freezer, thaw: thawer) }

    var count: Int { collection.count }
    func object(at position: Int) -> ObjectBase { collection[collection.startIndex + position] }
    var realm: Realm? { collection.realm }
    var isInvalidated: Bool { collection.isInvalidated }
    var isFrozen: Bool { collection.isFrozen }
    func freeze() -> any ProjectedCollectionSource { with(freezer(collection)) }
    func thaw() -> (any ProjectedCollectionSource)? { thawer(collection).map(with) }

    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectedCollectionSource>) -> Void) -> NotificationToken {
        collection.observe(keyPaths: keyPaths, on: queue) { (change: RealmCollectionChange<C>) in
            block(change.mapCollection(with))
        }
    }
}
