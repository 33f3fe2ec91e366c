import Foundation

/// Equality of collections as the Realm Swift SDK defines it: two managed collections
/// are equal when they are the same stored collection (the same property of the same
/// object, read through the same realm); two unmanaged ones when they hold equal
/// elements; a managed one never equals an unmanaged one. It is identity, not a
/// comparison of contents across realms (`Array(a) == Array(b)` compares contents).
extension CollectionLocation {
    func isSameCollection(as other: CollectionLocation) -> Bool {
        realm == other.realm && table == other.table && key == other.key && column == other.column
    }

    /// Two collections at `lhs` and `rhs` (nil: unmanaged): the same stored collection
    /// when both are managed, `unmanagedEqual()` when neither is, never equal otherwise.
    static func equal(_ lhs: CollectionLocation?, _ rhs: CollectionLocation?, unmanagedEqual: () -> Bool) -> Bool {
        switch (lhs, rhs) {
        case (let l?, let r?): return l.isSameCollection(as: r)
        case (nil, nil): return unmanagedEqual()
        default: return false
        }
    }
}

extension List: Equatable {
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        lhs === rhs || CollectionLocation.equal(lhs.location, rhs.location) { lhs.unmanaged == rhs.unmanaged }
    }
}

extension MutableSet: Equatable {
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool {
        lhs === rhs || CollectionLocation.equal(lhs.location, rhs.location) { Set(lhs) == Set(rhs) }
    }
}

extension Map: Equatable {
    public static func == (lhs: Map<Key, Value>, rhs: Map<Key, Value>) -> Bool {
        lhs === rhs || CollectionLocation.equal(lhs.location, rhs.location) { lhs.unmanaged == rhs.unmanaged }
    }
}

extension LinkingObjects: Equatable {
    /// The same instance, or the same inverse relationship of the same object accessor.
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool {
        if lhs === rhs { return true }
        guard let owner = lhs.owner else { return false }
        return owner === rhs.owner && lhs.propertyName == rhs.propertyName
    }
}

extension AnyRealmCollection: Equatable {
    /// Wrappers of equal collections of the same kind are equal.
    public static func == (lhs: AnyRealmCollection<Element>, rhs: AnyRealmCollection<Element>) -> Bool {
        equal(lhs.base, rhs.base)
    }

    private static func equal<C: RealmCollection>(_ lhs: C, _ rhs: any RealmCollection<Element>) -> Bool where C.Element == Element {
        guard let rhs = rhs as? C else { return false }
        return lhs == rhs
    }
}
