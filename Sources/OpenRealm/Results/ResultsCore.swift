import Foundation
import ORCore

/// The objects of a list, set or backlinks, in the collection's order, as a given realm
/// of the file sees them: a function of the realm rather than of one collection
/// accessor, so frozen, thawed and handed-over results read the same collection at
/// their own version. It captures only the collection's location (plain values).
typealias ResultsDomain = @Sendable (Realm) -> [UInt64]

/// The engine room of `Results`: a class, a domain (the whole table, or the objects
/// of a list, set or backlinks, recomputed on every evaluation), a query tree, and
/// the compiled ORCore query with the keys of its last run. The keys are re-read only
/// when the realm's snapshot or the write transaction's generation changed, so a
/// `Results` is lazy and live and costs nothing while nothing changes. No Swift object
/// is made for a row until it is read.
package final class ResultsCore {
    package let realm: Realm
    package let type: ObjectBase.Type
    package let className: String
    /// The objects the query ranges over, in their order; nil for the whole table.
    let domain: ResultsDomain?
    package let query: ParsedQuery

    private var compiled: OpaquePointer?
    private var cachedKeys: [UInt64] = []
    private var stamp: (txn: OpaquePointer?, version: UInt64, generation: UInt64) = (nil, .max, .max)
    /// For a frozen `Results`: the keys are fixed.
    private let frozenKeys: [UInt64]?
    /// Which collection `domain` reads, so the results can be rebuilt in another realm
    /// (notifications delivered on a queue or actor); nil for whole-table results.
    var domainSource: ResultsDomainSource?
    /// The realm state's `invalidations` when the results were made: `invalidate()`
    /// invalidates them for good, as it does accessors.
    let epoch: UInt32

    /// The class's name when the results are of `DynamicObject`s (`realm.dynamicObjects(_:)`):
    /// the class is named rather than a Swift type, and objects are read by property name.
    let dynamicClassName: String?

    init(realm: Realm, type: ObjectBase.Type, dynamicClassName: String? = nil, domain: ResultsDomain?, query: ParsedQuery,
         frozenKeys: [UInt64]? = nil) {
        epoch = realm.state.invalidations
        self.realm = realm
        self.type = type
        self.dynamicClassName = dynamicClassName
        className = dynamicClassName ?? ObjectTypeInfo.className(of: type)
        self.domain = domain
        self.query = query
        self.frozenKeys = frozenKeys
    }

    deinit { orc_query_free(compiled) }

    /// The binding of the model class; nil for dynamic results.
    var bound: BoundClass? { dynamicClassName == nil ? realm._bindOrNil(type) : nil }

    /// The stored class of dynamic results, as the realm's schema has it now.
    var dynamicEntry: StoredSchema.ClassEntry? {
        dynamicClassName.flatMap { realm._coordinator.storedSchema(realm.txn)[$0] }
    }

    /// The table of the class, nil when it is not in the realm.
    var table: UInt32? { dynamicClassName == nil ? bound?.table : dynamicEntry?.table }

    /// The accessor of the object `key` of the class: a model object, or a
    /// `DynamicObject` for dynamic results.
    func object(forKey key: UInt64) -> ObjectBase {
        if dynamicClassName != nil {
            guard let entry = dynamicEntry else { preconditionFailure("Class '\(className)' is not in the realm.") }
            return DynamicObject(realm: realm, entry: entry, key: key, readOnly: false, modelNames: true)
        }
        guard let bound else { preconditionFailure("Class '\(className)' is not in the realm.") }
        return realm._accessor(bound, key)
    }

    /// Whether the realm was invalidated since the results were made.
    var isStale: Bool { realm.state.invalidations != epoch }

    /// Stops when the realm was invalidated since the results were made: what every
    /// public read of `Results` checks first (notification delivery, which reads the
    /// keys itself, does not).
    @inline(__always)
    func requireNotStale() {
        if isStale {
            preconditionFailure("Access to invalidated Results objects: the realm of these Results<\(className)> was invalidated since they were made; read them anew from the realm.")
        }
    }

    /// Compiles the query against the stored schema, throwing `.invalidQuery`.
    func programBytes() throws -> [UInt8] {
        let schema = RealmQuerySchema(stored: realm._coordinator.storedSchema(realm.txn), coordinator: realm._coordinator)
        do {
            return try QueryCompiler.compile(query, className: className, schema: schema)
        } catch let error as QueryError {
            throw error.realmError
        }
    }

    /// Checks that the query compiles (for the non-throwing builders, which stop on failure).
    func validate() throws {
        guard realm._coordinator.storedSchema(realm.txn)[className] != nil else { return }
        let bytes = try programBytes()
        // ORCore alone checks a GEOWITHIN region (edges that cross, a hole outside the
        // outer ring): compiling the program now makes `where` stop and
        // `filter(_:arguments:)` throw when the query is made, as the SDK does.
        if query.predicate.containsGeoWithin, let bound {
            var compiled: OpaquePointer?
            let status = bytes.withUnsafeBytes { orc_query_compile(realm.txn, bound.table, $0.baseAddress, $0.count, &compiled) }
            orc_query_free(compiled)
            guard status == ORC_OK else {
                throw RealmError(.invalidQuery, "Invalid query for '\(className)': \(ORC.lastMessage)")
            }
        }
    }

    private func compiledQuery(_ txn: OpaquePointer, _ table: UInt32) -> OpaquePointer {
        if let compiled { return compiled }
        let bytes: [UInt8]
        do { bytes = try programBytes() } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
        var query: OpaquePointer?
        let status = bytes.withUnsafeBytes { orc_query_compile(txn, table, $0.baseAddress, $0.count, &query) }
        guard status == ORC_OK, let query else {
            preconditionFailure("Invalid query for '\(className)': \(ORC.lastMessage)")
        }
        compiled = query
        return query
    }

    /// Runs `body` with the compiled query, its domain set; recompiles once when the
    /// schema changed since it was compiled.
    private func withQuery<R>(_ body: (OpaquePointer, OpaquePointer) -> (Int32, R)) -> R? {
        let txn = realm.txn
        guard let table else { return nil }
        for attempt in 0..<2 {
            let query = compiledQuery(txn, table)
            if let domain {
                let keys = domain(realm)
                let status = keys.withUnsafeBufferPointer { orc_query_set_domain(query, $0.baseAddress ?? UnsafePointer(bitPattern: 8), keys.count) }
                if status != ORC_OK { preconditionFailure("Evaluating results of '\(className)': \(ORC.lastMessage)") }
            }
            let (status, result) = body(txn, query)
            if status == ORC_OK { return result }
            if status == ORC_ERR_SCHEMA && attempt == 0 {
                orc_query_free(compiled)
                compiled = nil
                continue
            }
            preconditionFailure("Evaluating results of '\(className)': \(ORC.lastMessage)")
        }
        return nil
    }

    private var isFresh: Bool {
        let txn = realm.txn
        return stamp.txn == txn && stamp.version == orc_txn_version(txn) && stamp.generation == orc_txn_generation(txn)
    }

    /// The table an iterator can walk itself, row by row, instead of a list of keys:
    /// for the results of a whole class (no collection, query or ordering; not frozen
    /// keys) read outside a write transaction, whose snapshot cannot change under the
    /// loop unless its body moves the realm on. Inside a write transaction the loop
    /// keeps the keys of when it began, so objects it adds or erases do not move it.
    var walkableTable: UInt32? {
        guard domain == nil, frozenKeys == nil, query.descriptors.isEmpty, !realm.isInWriteTransaction,
              case .truePredicate = query.predicate else { return nil }
        return table
    }

    /// The keys of the matching objects, in order.
    var keys: [UInt64] {
        if let frozenKeys { return frozenKeys }
        if isFresh { return cachedKeys }
        let txn = realm.txn
        let keys: [UInt64] = withQuery { txn, query in
            var out = orc_keys()
            defer { orc_keys_free(&out) }
            let status = orc_query_run(txn, query, &out)
            return (status, status == ORC_OK ? Array(UnsafeBufferPointer(start: out.keys, count: out.count)) : [])
        } ?? []
        cachedKeys = keys
        stamp = (txn, orc_txn_version(txn), orc_txn_generation(txn))
        return keys
    }

    var count: Int {
        if let frozenKeys { return frozenKeys.count }
        if isFresh { return cachedKeys.count }
        return withQuery { txn, query in
            var count: UInt64 = 0
            let status = orc_query_count(txn, query, &count)
            return (status, Int(count))
        } ?? 0
    }

    /// An aggregate of a property over the matching objects, as ORCore returns it.
    func aggregate(_ property: String, _ kind: QueryAggregate) -> orc_value? {
        requireNotStale()
        let schema = RealmQuerySchema(stored: realm._coordinator.storedSchema(realm.txn), coordinator: realm._coordinator)
        let target: QueryCompiler.AggregateTarget
        do {
            target = try QueryCompiler(schema: schema).aggregateTarget(property, className: className, aggregate: kind)
        } catch let error as QueryError {
            preconditionFailure(error.message)
        } catch {
            preconditionFailure("\(error)")
        }
        let agg = orc_agg(rawValue: UInt32(kind.rawValue))
        return withQuery { txn, query in
            var value = orc_value()
            let status = orc_query_aggregate(txn, query, target.column, agg, &value)
            return (status, value)
        }
    }

    func with(query newQuery: ParsedQuery) -> ResultsCore {
        let core = ResultsCore(realm: realm, type: type, dynamicClassName: dynamicClassName, domain: domain, query: newQuery)
        core.domainSource = domainSource
        return core
    }

    /// Takes keys a notification computed from the changes as the current evaluation,
    /// so that reading the results does not run the query again.
    func installKeys(_ keys: [UInt64]) {
        guard frozenKeys == nil else { return }
        let txn = realm.txn
        cachedKeys = keys
        stamp = (txn, orc_txn_version(txn), orc_txn_generation(txn))
    }
}
