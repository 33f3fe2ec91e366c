import ORCore
import OpenRealmQuery
import OpenRealmSyncCore
import OpenRealmWire

/// The object operations the store's reads (``ObjectReading``) and its working set
/// (``EmbeddedWorkingSet``) call with the schema's classes and properties
/// (``StoredClass``, ``StoredProperty``) and wire values: each is the table-and-column
/// operation of the same name, the slots read as table id and column. Values are made
/// in ``scratch``, which the caller resets; a link to an object that does not exist is
/// stored as null.
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

    /// The ORCore value to store for `value` (made in ``scratch``); null for a link to a
    /// missing object.
    func storable(_ value: WireValue) throws -> orc_value {
        if let v = try orcValue(value) { return v }
        var null = orc_value()
        null.type = ORC_TYPE_NULL
        return null
    }
}
