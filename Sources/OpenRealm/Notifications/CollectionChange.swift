import Foundation

/// What a collection notification reports: the collection as first evaluated, then
/// after each change, the positions that changed.
///
/// ```swift
/// let token = realm.objects(Task.self).observe { change in
///     switch change {
///     case .initial(let tasks):
///         print("\(tasks.count) tasks")
///     case .update(let tasks, let deletions, let insertions, let modifications):
///         // Remove `deletions` (old positions, descending), then insert `insertions`
///         // (new positions, ascending): the old list becomes the new one.
///         print(deletions, insertions, modifications, tasks.count)
///     case .error(let error):
///         print(error)
///     }
/// }
/// ```
///
/// The three arrays are sorted ascending. `deletions` are positions in the previous
/// version of the collection, `insertions` positions in the new one, and
/// `modifications` positions in the previous version of objects still present, at the
/// same relative place, that changed (directly or, without key paths, through the
/// objects they link to). An object that moved (a sorted collection whose sort key
/// changed, a list move) is reported as a deletion plus an insertion.
public enum RealmCollectionChange<CollectionType> {
    /// The first evaluation of the collection, delivered once after `observe`.
    case initial(CollectionType)
    /// A write changed which objects are in the collection, their order, or objects in it.
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The notification could not be computed (the realm's file could not be read).
    case error(Error)

    /// The same change reported on another view of the collection (a type-erased or a
    /// projected one): `transform` makes it from the collection.
    func mapCollection<Other>(_ transform: (CollectionType) -> Other) -> RealmCollectionChange<Other> {
        switch self {
        case .initial(let collection):
            return .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            return .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error):
            return .error(error)
        }
    }
}

/// The keyed collections `RealmMapChange` reports on (`Map`).
public protocol RealmKeyedCollection {
    associatedtype Key
    associatedtype Value
}

extension Map: RealmKeyedCollection {}

/// What a `Map` notification reports: the map, then after each change the keys that
/// were removed, added and whose values changed (or whose object values were modified).
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The first evaluation of the map, delivered once after `observe`.
    case initial(Collection)
    /// A write removed keys (`deletions`), added keys (`insertions`) or changed the
    /// value of keys present before and after (`modifications`).
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// The notification could not be computed.
    case error(Error)
}

/// One changed property in an object notification.
public struct PropertyChange: @unchecked Sendable {
    /// The name of the property.
    public let name: String
    /// The value before the change, when the notification could still read it: nil for
    /// changes committed by the observing realm itself, and for collection properties.
    /// A link's old value is the object it linked to, as it is now.
    public let oldValue: Any?
    /// The value after the change; nil for collection properties.
    public let newValue: Any?

    public init(name: String, oldValue: Any?, newValue: Any?) {
        self.name = name
        self.oldValue = oldValue
        self.newValue = newValue
    }
}

/// What an object notification reports.
///
/// ```swift
/// let token = dog.observe { (change: ObjectChange<Dog>) in
///     switch change {
///     case .change(let dog, let properties):
///         for property in properties { print(property.name, property.oldValue ?? "-", property.newValue ?? "-") }
///     case .deleted:
///         print("deleted")
///     case .error(let error):
///         print(error)
///     }
/// }
/// ```
public enum ObjectChange<T> {
    /// The notification could not be computed.
    case error(_ error: Error)
    /// One or more properties of the object changed.
    case change(_: T, _: [PropertyChange])
    /// The object was deleted; no further notification follows.
    case deleted
}
