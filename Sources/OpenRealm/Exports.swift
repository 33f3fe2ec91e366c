/// The query language and the values it holds live in `OpenRealmQuery`, which the sync
/// server shares without linking the local API. Re-exported so that `import OpenRealm`
/// (and `import RealmSwift`) still brings `ObjectId`, `Decimal128` and `Realm.Error`'s
/// `RealmError` with them.
@_exported import OpenRealmQuery
