/// What `realm.objects(_:)` can fetch: top-level `Object` classes and `Projection`s of them, as in the Realm
/// Swift SDK. Embedded objects exist only inside their parents and asymmetric objects
/// cannot be read back, so neither conforms, and fetching them does not compile:
/// reach embedded objects through their parents (`realm.objects(Parent.self)` and a
/// key path such as `where { $0.address.city == "Oslo" }`).
public protocol RealmFetchable: RealmCollectionValue {
    /// The class name stored in the realm.
    static func className() -> String
}

extension Object: RealmFetchable {}
