import Foundation
import OpenRealmQuery
import OpenRealmWire

/// What a session syncs: its accepted subscription set (flexible sync) or its partition
/// (partition-based sync), intersected with the user's read rules. The objects matching
/// it form the client's view.
struct SubscriptionView: Sendable {
    /// The query version that was accepted (0: none yet, and always 0 for a partition).
    var queryVersion: UInt64 = 0
    /// Per class, the subscription query (normalized); flexible sync.
    var queries: [String: ParsedQuery] = [:]
    /// The partition field and value; partition-based sync.
    var partition: Partition?
    /// The user's rules.
    var permissions = SessionPermissions()

    /// A partition-based session's filter: objects whose `field` holds `value`.
    ///
    /// A class that does not declare `field` is partitioned too: the server keeps each
    /// object's partition in the hidden column ``hiddenColumnName`` (set when a
    /// partition session creates the object, never sent to clients, never writable by
    /// them) and views the class by it.
    struct Partition: Sendable, Hashable {
        var field: String
        var value: WirePrimaryKey

        /// The hidden column of classes without the partition property.
        static let hiddenColumnName = HiddenColumn.partition.rawValue

        /// The value as the hidden column stores it: a type tag and the value, so that
        /// `"1"` and `1` stay apart.
        var storedValue: String {
            switch value {
            case .null: return "null"
            case .int(let i): return "int:\(i)"
            case .string(let s): return "string:" + s
            case .objectId(let o): return "objectId:\(o)"
            case .uuid(let u): return "uuid:\(u.uuid.uuidString.lowercased())"
            }
        }

        /// The predicate of the partition for `cls`: on the partition property when the
        /// class declares it, else on the hidden column; nil when it has neither (no
        /// object of it was created in a partition).
        func predicate(_ cls: QuerySchemaClass) -> QueryPredicate? {
            if cls.property(named: field) != nil {
                return .comparison(QueryComparison(.keyPath(QueryKeyPath([.property(field)])), .equal,
                                                   .value(SubscriptionView.queryValue(value))))
            }
            if cls.property(named: Self.hiddenColumnName) != nil {
                return .comparison(QueryComparison(.keyPath(QueryKeyPath([.property(Self.hiddenColumnName)])), .equal,
                                                   .value(.string(storedValue))))
            }
            return nil
        }
    }

    /// The predicate an object of `className` must match to be in the view, or nil when
    /// the class is not synced (no subscription on it, or for a partition, no
    /// partition field).
    func predicate(for className: String, schema: any QuerySchema) -> QueryPredicate? {
        let base: QueryPredicate
        if let partition {
            guard let cls = schema.queryClass(named: className), let predicate = partition.predicate(cls) else { return nil }
            base = predicate
        } else {
            guard let query = queries[className] else { return nil }
            base = query.predicate
        }
        guard let read = permissions.readRule(className) else { return base }
        return .and([base, read])
    }

    /// Whether every stored object of `className` is in the view: a flexible-sync
    /// subscription on it of `TRUEPREDICATE`, and no read rule (no query need run to
    /// tell whether an object of it is in).
    func holdsEveryObject(of className: String) -> Bool {
        guard partition == nil, permissions.readRule(className) == nil,
              case .truePredicate = queries[className]?.predicate else { return false }
        return true
    }

    /// The classes the view may hold objects of.
    func classNames(schema: SyncSchema) -> [String] {
        if partition != nil {
            return schema.classes.map(\.name).filter { predicate(for: $0, schema: schema.query) != nil }
        }
        return queries.keys.sorted()
    }

    /// Every object in the view.
    ///
    /// A class the store does not have yet, or a query that does not fit the store's
    /// schema (its class gained the queried property only later, a rule on a property
    /// it lacks), matches nothing.
    func objects(_ objects: some ObjectReading, schema: SyncSchema) throws -> Set<WireObjectRef> {
        var out: Set<WireObjectRef> = []
        for className in classNames(schema: schema) {
            // Embedded objects travel inside their owners.
            guard schema.topLevelClass(named: className) != nil,
                  let predicate = predicate(for: className, schema: schema.query) else { continue }
            out.formUnion(try objects.matching(predicate, in: className, among: nil))
        }
        return out
    }

    /// Whether the stored object `ref` is in the view.
    func contains(_ objects: some ObjectReading, schema: SyncSchema, _ ref: WireObjectRef) throws -> Bool {
        guard let predicate = predicate(for: ref.className, schema: schema.query),
              schema.topLevelClass(named: ref.className) != nil else { return false }
        return !(try objects.matching(predicate, in: ref.className, among: [ref])).isEmpty
    }

    /// The one reason given for a write to an object the session cannot see: outside
    /// its subscriptions or partition, hidden by the read rule, or not there at all.
    /// One text for all, so that a refusal never tells what the view hides.
    static let outsideView = "the object is not in the session's view"

    /// Why a write to an object of `className` that is not in the view is refused: the
    /// session subscribes to nothing of the class (its own state), or ``outsideView``.
    func exclusion(ofClass className: String) -> String {
        if partition == nil, queries[className] == nil { return "no subscription of the session covers class '\(className)'" }
        return Self.outsideView
    }

    /// Why each of the stored objects `refs` (distinct objects of `className`) is not in
    /// the view (``exclusion(ofClass:)``: whether the subscriptions, the partition or
    /// the read rule leave it out is not told). Objects in the view are absent. Each
    /// query of the view runs once over all of them.
    func exclusions(_ objects: some ObjectReading, schema: SyncSchema, className: String,
                    refs: [WireObjectRef]) throws -> [WireObjectRef: String] {
        let why = exclusion(ofClass: className)
        var visible: Set<WireObjectRef> = []
        if let predicate = predicate(for: className, schema: schema.query) {
            visible = Set(try objects.matching(predicate, in: className, among: refs))
        }
        var out: [WireObjectRef: String] = [:]
        for ref in refs where !visible.contains(ref) { out[ref] = why }
        return out
    }

    /// Which of `refs` are stored objects in the view (``contains(_:schema:_:)`` for many,
    /// each class's query run once over its objects).
    func containing(_ objects: some ObjectReading, schema: SyncSchema, _ refs: [WireObjectRef]) throws -> Set<WireObjectRef> {
        // Per class the view may hold, in the order the classes first appear.
        var groups: [(className: String, predicate: QueryPredicate, refs: [WireObjectRef])] = []
        var groupOf: [String: Int?] = [:]
        for ref in refs {
            let group: Int?
            if let known = groupOf[ref.className] {
                group = known
            } else {
                if let predicate = predicate(for: ref.className, schema: schema.query),
                   schema.topLevelClass(named: ref.className) != nil {
                    groups.append((ref.className, predicate, []))
                    group = groups.count - 1
                } else {
                    group = nil
                }
                groupOf[ref.className] = .some(group)
            }
            if let group { groups[group].refs.append(ref) }
        }
        var out: Set<WireObjectRef> = []
        for (className, predicate, members) in groups {
            if holdsEveryObject(of: className) {
                let existing = try objects.existing(members)
                // One class (the common case): the set as it comes, not copied into another.
                if out.isEmpty { out = existing } else { out.formUnion(existing) }
            } else {
                out.formUnion(try objects.matching(predicate, in: className, among: members))
            }
        }
        return out
    }

    /// A partition value as a query constant.
    static func queryValue(_ value: WirePrimaryKey) -> QueryValue {
        switch value {
        case .null: return .null
        case .int(let i): return .int(i)
        case .string(let s): return .string(s)
        case .objectId(let o): return (try? ObjectId(string: o.description)).map { .objectId($0) } ?? .null
        case .uuid(let u): return .uuid(u.uuid)
        }
    }
}
