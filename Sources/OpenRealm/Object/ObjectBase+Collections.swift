import Foundation

/// `List`, `MutableSet` and `Map`, as property values of an object.
///
/// As in the Realm Swift SDK, an object hands out one instance of each of its
/// collections (`object.tags === object.tags`), and the unmanaged collections an object
/// held become managed when it is added: `let tags = task.tags; realm.add(task)` leaves
/// `tags` reading and writing the realm.
protocol _ManagedCollection: AnyObject {
    var location: CollectionLocation? { get }
    /// Makes this unmanaged collection the managed one of property `index` of `object`,
    /// whose elements were written there already: the elements held are let go.
    func _adopt(_ object: ObjectBase, _ index: Int)
}

extension ObjectBase {
    /// The managed collection of property `index`, kept in the property's own storage
    /// (unused while the object is managed) so that every read hands out that instance.
    ///
    /// The kept collection is handed out only while it reads this object's row as of
    /// this accessor (an accessor re-pointed at another row by iteration, or invalidated,
    /// makes a new one). The collection does not hold the object, so the two do not keep
    /// each other alive. Frozen objects, which any thread may read, keep nothing.
    func _managedCollection<C: _ManagedCollection & _Persistable>(_ index: Int, _ make: () -> C) -> C {
        guard let bound = _bound, let realm = _realm, !realm.isFrozen else { return make() }
        let field = (Unmanaged.passUnretained(self).toOpaque() + bound.info.properties[index].offset)
            .assumingMemoryBound(to: Persisted<C>.self)
        if case .unmanaged(let kept) = field.pointee.storage, let location = kept.location, location.key == _key,
           location.realm === realm, location.epoch == _epoch, location.column == bound.columns[index] {
            return kept
        }
        let fresh = make()
        field.pointee.storage = .unmanaged(fresh)
        return fresh
    }
}
