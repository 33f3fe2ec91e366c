/// The Flexible Sync limits an app enforces on subscription queries (API.md §8).
public struct SubscriptionRules: Sendable, Hashable {
    /// The largest query, in UTF-8 bytes; larger ones are refused with `limitsExceeded`.
    public var maxQueryBytes: Int
    /// Per class, the fields queries may use; a class absent from the map (or a nil
    /// map, development mode) allows every field.
    public var queryableFields: [String: Set<String>]?
    /// A field every subscription on a class that has it must compare with `==` or `IN`
    /// against constants at the top level of an `AND`; nil for none.
    public var indexedQueryableField: String?

    /// Rules with the given limits (by default: 256 kB queries, every field queryable).
    public init(maxQueryBytes: Int = 256 * 1024, queryableFields: [String: Set<String>]? = nil,
                indexedQueryableField: String? = nil) {
        self.maxQueryBytes = maxQueryBytes
        self.queryableFields = queryableFields
        self.indexedQueryableField = indexedQueryableField
    }
}
