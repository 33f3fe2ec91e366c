import ORCore
import OpenRealmQuery
import OpenRealmSyncCore
import OpenRealmWire

/// The object operations the engine calls with the schema's classes and properties
/// (``StoredClass``, ``StoredProperty``) and wire values: each is the table-and-column
/// operation of the same name, the slots read as table id and column. Values are made
/// in ``scratch``, which the caller resets (once per instruction); a link to an object
/// that does not exist is stored as null.
extension StoreTransaction {
    /// The key of the object of `cls` with primary key `pk`, or nil when there is none.
    func findObject(_ cls: StoredClass, _ pk: WirePrimaryKey) throws -> UInt64? {
        try findObject(cls.slot.table, pk)
    }

    /// Creates an object of `cls` from property values, the primary key among them.
    func createObject(_ cls: StoredClass, _ values: [(StoredProperty, WireValue)]) throws -> UInt64 {
        var pairs: [(UInt16, orc_value)] = []
        pairs.reserveCapacity(values.count)
        for (prop, value) in values { pairs.append((prop.slot.column, try storable(value))) }
        return try createObject(cls.slot.table, pairs)
    }

    /// One property's value.
    func value(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty) throws -> WireValue {
        try get(cls.slot.table, key, prop.slot.column)
    }

    func set(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ value: WireValue) throws {
        try set(cls.slot.table, key, prop.slot.column, try storable(value))
    }

    func addInteger(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ delta: Int64) throws {
        try addInteger(cls.slot.table, key, prop.slot.column, delta)
    }

    func erase(_ cls: StoredClass, _ key: UInt64) throws {
        try erase(cls.slot.table, key)
    }

    /// The wire name (class, primary key) of an object of `cls`.
    func objectRef(_ cls: StoredClass, _ key: UInt64) throws -> WireObjectRef {
        try objectRef(table: cls.slot.table, key: key)
    }

    // MARK: Collections

    func collectionSize(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty) throws -> Int {
        try collectionSize(cls.slot.table, key, prop.slot.column)
    }

    /// The element at `index` (for a dictionary, the value at the index-th key).
    func collectionElement(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ index: Int) throws -> WireValue {
        try collectionElement(cls.slot.table, key, prop.slot.column, index)
    }

    /// The dictionary key at `index`, in key order.
    func dictionaryKey(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ index: Int) throws -> String {
        try dictionaryKey(cls.slot.table, key, prop.slot.column, index)
    }

    func listInsert(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ index: Int, _ value: WireValue) throws {
        try listInsert(cls.slot.table, key, prop.slot.column, index, try storable(value))
    }

    func listSet(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ index: Int, _ value: WireValue) throws {
        try listSet(cls.slot.table, key, prop.slot.column, index, try storable(value))
    }

    func listErase(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ index: Int) throws {
        try listErase(cls.slot.table, key, prop.slot.column, index)
    }

    func listMove(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ from: Int, _ to: Int) throws {
        try listMove(cls.slot.table, key, prop.slot.column, from, to)
    }

    func clearCollection(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty) throws {
        try clearCollection(cls.slot.table, key, prop.slot.column)
    }

    func setInsert(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ value: WireValue) throws {
        try setInsert(cls.slot.table, key, prop.slot.column, try storable(value))
    }

    func setErase(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ value: WireValue) throws {
        try setErase(cls.slot.table, key, prop.slot.column, try storable(value))
    }

    func dictionarySet(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ dkey: String, _ value: WireValue) throws {
        try dictionarySet(cls.slot.table, key, prop.slot.column, dkey, try storable(value))
    }

    func dictionaryErase(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, _ dkey: String) throws {
        try dictionaryErase(cls.slot.table, key, prop.slot.column, dkey)
    }

    // MARK: Embedded objects

    /// The embedded object a single link property holds, or nil when it is null.
    func embeddedObject(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty) throws -> UInt64? {
        try linkTarget(cls.slot.table, key, prop.slot.column)?.key
    }

    /// The embedded object at position `index` of a list or dictionary of links
    /// (dictionaries in key order), or nil when the element is null.
    func embeddedObject(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, at index: Int) throws -> UInt64? {
        try collectionLink(cls.slot.table, key, prop.slot.column, index)?.key
    }

    /// Creates an embedded object as the value of `prop` (``createEmbedded(_:_:_:index:dictionaryKey:)``).
    func createEmbedded(_ cls: StoredClass, _ key: UInt64, _ prop: StoredProperty, index: Int = 0,
                        dictionaryKey: String? = nil) throws -> UInt64 {
        try createEmbedded(cls.slot.table, key, prop.slot.column, index: index, dictionaryKey: dictionaryKey)
    }

    // MARK: Queries

    /// The keys of the objects of `className` matching `predicate` (the query AST,
    /// compiled against the unit's schema), optionally only among `domain`. A class the
    /// store does not have, or a predicate that does not compile against its schema
    /// (its class gained the queried property only later, a rule on a property it
    /// lacks), matches nothing.
    func keys(matching predicate: QueryPredicate, in className: String, among domain: [UInt64]? = nil) throws -> [UInt64] {
        let schema = try schema().query
        guard let cls = schema.queryClass(named: className),
              let program = try? QueryCompiler(schema: schema).compile(ParsedQuery(predicate: predicate), className: className)
        else { return [] }
        return try run(program: program, table: cls.table, domain: domain)
    }

    /// The ORCore value to store for `value`; null for a link to a missing object.
    private func storable(_ value: WireValue) throws -> orc_value {
        if let v = try orcValue(value) { return v }
        var null = orc_value()
        null.type = ORC_TYPE_NULL
        return null
    }
}
