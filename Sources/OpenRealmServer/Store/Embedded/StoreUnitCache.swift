import OpenRealmWire

/// What one store transaction remembers between the engine's calls, so that the engine
/// can ask for the same thing again without the store reading it again: the synced
/// schema (``SchemaReading/schema()``), dropped whenever the transaction changes the
/// schema, and the keys of the objects the engine named by reference
/// (``ObjectReading``), dropped whenever it erases an object. It lives and dies with
/// its transaction.
final class StoreUnitCache {
    /// The schema as last built, or nil when it must be built (again).
    var schema: SyncSchema?
    /// The keys of stored top-level objects, by reference (only objects found: a
    /// reference to a missing object is looked up again).
    var objectKeys: [WireObjectRef: UInt64] = [:]

    /// The transaction changed the schema: what was built from it is stale.
    func schemaChanged() {
        schema = nil
    }

    /// The transaction erased an object: its key may be given to another.
    func objectErased() {
        if !objectKeys.isEmpty { objectKeys = [:] }
    }
}
