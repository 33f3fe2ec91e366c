/// What one store transaction remembers between the engine's calls, so that the engine
/// can ask for the same thing again without the store reading it again: the synced
/// schema (``SchemaReading/schema()``), dropped whenever the transaction changes the
/// schema. It lives and dies with its transaction.
final class StoreUnitCache {
    /// The schema as last built, or nil when it must be built (again).
    var schema: SyncSchema?

    /// The transaction changed the schema: what was built from it is stale.
    func schemaChanged() {
        schema = nil
    }
}
