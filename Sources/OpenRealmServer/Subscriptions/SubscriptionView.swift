import OpenRealm
import OpenRealmWire

/// A session's accepted subscription set: per class, the parsed query. The objects
/// matching it form the client's view.
struct SubscriptionView: Sendable {
    /// The query version that was accepted (0: none yet).
    var queryVersion: UInt64 = 0
    /// Per class, the query (normalized).
    var queries: [String: ParsedQuery] = [:]

    /// The keys of the objects of `className` in the view, optionally only among `domain`.
    ///
    /// A class the store does not have yet, or a query that does not compile against
    /// the store's schema (its class gained the queried property only later), matches
    /// nothing.
    func matchingKeys(_ txn: StoreTransaction, schema: any QuerySchema, className: String,
                      domain: [UInt64]? = nil) throws -> [UInt64] {
        guard let query = queries[className], let cls = schema.queryClass(named: className) else { return [] }
        guard let program = try? QueryCompiler(schema: schema).compile(query, className: className) else { return [] }
        return try txn.run(program: program, table: cls.table, domain: domain)
    }

    /// Every object in the view, as wire references, with its class and key.
    func objects(_ txn: StoreTransaction, schema: any QuerySchema) throws -> [WireObjectRef: (StoreTransaction.ClassInfo, UInt64)] {
        var out: [WireObjectRef: (StoreTransaction.ClassInfo, UInt64)] = [:]
        for className in queries.keys.sorted() {
            guard let cls = try txn.findClass(className) else { continue }
            for key in try matchingKeys(txn, schema: schema, className: className) {
                out[try txn.objectRef(table: cls.table, key: key)] = (cls, key)
            }
        }
        return out
    }

    /// Whether the stored object `ref` is in the view.
    func contains(_ txn: StoreTransaction, schema: any QuerySchema, _ ref: WireObjectRef) throws -> (StoreTransaction.ClassInfo, UInt64)? {
        guard queries[ref.className] != nil, let cls = try txn.findClass(ref.className),
              let key = try txn.findObject(cls.table, ref.primaryKey) else { return nil }
        return try matchingKeys(txn, schema: schema, className: ref.className, domain: [key]).isEmpty ? nil : (cls, key)
    }
}
