/// Gives a model class an `Identifiable` conformance whose `id` is stable for as long
/// as the object lives, for lists and diffs that identify rows.
///
/// ```swift
/// class Task: Object, ObjectKeyIdentifiable {
///     @Persisted(primaryKey: true) var _id: ObjectId
/// }
/// let ids = realm.objects(Task.self).map(\.id)
/// ```
///
/// A managed object's `id` is its object key: every accessor of the same object, on any
/// thread and in any frozen copy, has the same one, and no other object of the class
/// ever gets it (ORCore never reuses keys). An unmanaged object's `id` is its identity
/// in memory, and changes when the object is added to a realm. A class that declares
/// its own `id` property uses that instead.
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The object's stable identity.
    var id: UInt64 { get }
}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The object key of a managed object; the instance's address for an unmanaged one.
    public var id: UInt64 {
        guard _realm != nil else { return UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())) }
        return _key
    }
}
