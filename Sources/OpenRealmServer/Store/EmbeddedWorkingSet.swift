import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// The embedded store's working set (``ObjectWorkingSet``): each operation is the ORCore
/// call of the same name, at once, in the integrating transaction; what it keeps for
/// the changeset is the objects' keys and their clocks.
///
/// - Objects: a handle is the object's table and key. The keys of top-level objects are
///   remembered by reference for the changeset (found through the transaction's key
///   cache, ``StoreUnitCache/objectKeys``, or looked up once), so a changeset's
///   instructions on one object look it up once.
/// - Clocks: an object's clocks live in its own row, in its class's hidden column
///   ``HiddenColumn/clocks``, and go with the row when the object is erased. Each object's
///   are read once, kept here, and written back into the row by ``finish()``. A store
///   written before the clocks moved into the rows has them in the `__clocks` table
///   (``LegacyClockTable``): read there when the row has none, moved into the row and
///   the table's row erased by ``finish()``.
package final class EmbeddedWorkingSet: ObjectWorkingSet {
    /// An object of the store: its table and key, valid in the transaction until erased.
    package struct Object: Hashable {
        let table: UInt32
        let key: UInt64
    }

    /// The integrating transaction (the path walk reads links through it too).
    let txn: StoreTransaction

    /// The top-level objects found or created in this working set, with their classes.
    private var roots: [WireObjectRef: (cls: StoredClass, object: Object)] = [:]
    /// The references of those objects: an erase of one drops its clocks.
    private var rootRefs: [Object: WireObjectRef] = [:]

    /// The clocks read or changed, per object, with the row where ``finish()`` writes
    /// them back.
    private var clocks: [WireObjectRef: ObjectClocks] = [:]
    /// Per class, its clock column, once found or added.
    private var clockColumns: [String: StoredProperty] = [:]
    /// The `__clocks` table of a store written before the clocks moved into the rows,
    /// while it holds rows (looked up on first use; `.some(nil)`: none).
    private var legacyTable: LegacyClockTable??
    /// The rows of that table read during this changeset: their clocks are written into
    /// the objects' rows, and they are erased, by ``finish()``.
    private var legacyRows: [WireObjectRef: UInt64] = [:]

    private struct ObjectClocks {
        var stamps: PropertyClocks
        /// The object's class and handle; nil once the object is erased (and not created again).
        var row: (cls: StoredClass, object: Object)?
    }

    init(_ txn: StoreTransaction, expecting request: WorkingSetRequest) {
        self.txn = txn
        // Read as it goes: the request only sizes what it keeps.
        clocks.reserveCapacity(request.instructions.count)
    }

    package func schema() throws -> SyncSchema {
        try txn.schema()
    }

    package func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws {
        defer { txn.scratch.reset() }
        try txn.applySchema(instruction, allowingChanges: allowingChanges)
    }

    // MARK: Objects

    package func object(_ ref: WireObjectRef) throws -> Object? {
        if let known = roots[ref] { return known.object }
        guard let cls = try txn.schema().topLevelClass(named: ref.className) else { return nil }
        return try root(ref, cls)
    }

    /// The object `ref` of class `cls`, remembered once found: how ``object(_:)`` and the
    /// path walk's owner lookup find top-level objects.
    func root(_ ref: WireObjectRef, _ cls: StoredClass) throws -> Object? {
        if let known = roots[ref] { return known.object }
        let key: UInt64
        if let cached = txn.unitCache.objectKeys[ref] {
            key = cached
        } else {
            guard let found = try txn.findObject(cls, ref.primaryKey) else { return nil }
            txn.unitCache.objectKeys[ref] = found
            key = found
        }
        let object = Object(table: cls.slot.table, key: key)
        remember(ref, cls, object)
        return object
    }

    private func remember(_ ref: WireObjectRef, _ cls: StoredClass, _ object: Object) {
        roots[ref] = (cls, object)
        rootRefs[object] = ref
    }

    package func collectionSize(_ object: Object, _ property: StoredProperty) throws -> Int {
        try txn.collectionSize(object.table, object.key, property.slot.column)
    }

    package func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)]) throws -> Object {
        guard let primaryKey = cls.primaryKey else {
            throw StoreError(status: 0, "class '\(cls.name)' has no primary key")
        }
        defer { txn.scratch.reset() }
        let key = try txn.createObject(cls, [(primaryKey, ref.primaryKey.value)] + values)
        let object = Object(table: cls.slot.table, key: key)
        txn.unitCache.objectKeys[ref] = key
        remember(ref, cls, object)
        clocks[ref] = ObjectClocks(stamps: PropertyClocks(), row: (cls, object))
        return object
    }

    package func set(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.set(object.table, object.key, property.slot.column, try txn.storable(value))
    }

    package func addInteger(_ object: Object, _ property: StoredProperty, _ delta: Int64) throws {
        try txn.addInteger(object.table, object.key, property.slot.column, delta)
    }

    package func erase(_ object: Object) throws {
        guard let ref = rootRefs[object] else {
            try txn.erase(object.table, object.key)
            return
        }
        // Read first: a store's old `__clocks` row of the object goes too.
        _ = try clocks(of: ref)
        try txn.erase(object.table, object.key)
        clocks[ref] = ObjectClocks(stamps: PropertyClocks(), row: nil)
        roots[ref] = nil
        rootRefs[object] = nil
    }

    package func setHiddenPartition(_ object: Object, _ cls: StoredClass, _ partition: String) throws {
        let column = try txn.addHiddenColumn(.partition, to: cls)
        try set(object, column, .string(partition))
    }

    // MARK: Collections

    package func listInsert(_ object: Object, _ property: StoredProperty, _ index: Int, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.listInsert(object.table, object.key, property.slot.column, index, try txn.storable(value))
    }

    package func listSet(_ object: Object, _ property: StoredProperty, _ index: Int, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.listSet(object.table, object.key, property.slot.column, index, try txn.storable(value))
    }

    package func listErase(_ object: Object, _ property: StoredProperty, _ index: Int) throws {
        try txn.listErase(object.table, object.key, property.slot.column, index)
    }

    package func listMove(_ object: Object, _ property: StoredProperty, _ from: Int, _ to: Int) throws {
        try txn.listMove(object.table, object.key, property.slot.column, from, to)
    }

    package func clearCollection(_ object: Object, _ property: StoredProperty) throws {
        try txn.clearCollection(object.table, object.key, property.slot.column)
    }

    package func setInsert(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.setInsert(object.table, object.key, property.slot.column, try txn.storable(value))
    }

    package func setErase(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.setErase(object.table, object.key, property.slot.column, try txn.storable(value))
    }

    package func dictionarySet(_ object: Object, _ property: StoredProperty, _ key: String, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.dictionarySet(object.table, object.key, property.slot.column, key, try txn.storable(value))
    }

    package func dictionaryErase(_ object: Object, _ property: StoredProperty, _ key: String) throws {
        defer { txn.scratch.reset() }
        try txn.dictionaryErase(object.table, object.key, property.slot.column, key)
    }

    package func createEmbedded(_ object: Object, _ property: StoredProperty, at position: WireEmbeddedPosition) throws -> Object {
        // The new object's class: where the property links.
        guard let target = try txn.schema().embeddedTarget(of: property) else {
            throw StoreError(status: 0, "property '\(property.name)' does not link to an embedded class")
        }
        let child: UInt64
        switch position {
        case .single:
            child = try txn.createEmbedded(object.table, object.key, property.slot.column)
        case .listIndex(let index):
            child = try txn.createEmbedded(object.table, object.key, property.slot.column, index: Int(index))
        case .dictionaryKey(let key):
            child = try txn.createEmbedded(object.table, object.key, property.slot.column, dictionaryKey: key)
        }
        return Object(table: target.slot.table, key: child)
    }

    // MARK: Clocks

    package func clocks(of ref: WireObjectRef) throws -> PropertyClocks {
        if let known = clocks[ref] { return known.stamps }
        let cls: StoredClass, object: Object
        if let found = roots[ref] {
            (cls, object) = found
        } else if let found = try txn.schema().topLevelClass(named: ref.className), let key = try root(ref, found) {
            (cls, object) = (found, key)
        } else {
            throw StoreError(status: 0, "the owner \(ref) of an embedded object is missing")
        }
        var c = PropertyClocks()
        if let column = try clockColumn(cls, adding: false),
           case .binary(let bytes) = try txn.get(object.table, object.key, column.slot.column) {
            c = PropertyClocks(decoding: bytes)
        } else if let legacy = try legacyClocks(ref) {
            c = legacy
        }
        clocks[ref] = ObjectClocks(stamps: c, row: (cls, object))
        return c
    }

    package func setClocks(_ clocks: PropertyClocks, of ref: WireObjectRef) {
        self.clocks[ref]?.stamps = clocks
    }

    /// Writes back the clocks read or changed by the changeset, each into its object's
    /// row, and erases the old `__clocks` rows read.
    package func finish() throws {
        if let legacy = legacyTable ?? nil {
            try txn.eraseLegacyClocks(Array(legacyRows.values), in: legacy)
        }
        for entry in clocks.values {
            guard let (cls, object) = entry.row else { continue }
            defer { txn.scratch.reset() }
            try txn.set(object.table, object.key, try clockColumn(cls, adding: true)!.slot.column,
                        try txn.storable(.binary(entry.stamps.encoded())))
        }
    }

    /// The clock column of `cls`; when the class has none, nil, or (`adding`) a new one.
    private func clockColumn(_ cls: StoredClass, adding: Bool) throws -> StoredProperty? {
        if let known = clockColumns[cls.name] { return known }
        // The class as the schema has it now: the changeset may have added its column.
        let current = try txn.schema().storedClass(named: cls.name) ?? cls
        let column = adding ? try txn.addHiddenColumn(.clocks, to: current) : current.hiddenColumn(.clocks)
        if let column { clockColumns[cls.name] = column }
        return column
    }

    /// The clocks of `ref` in the `__clocks` table (key `Class␟pk`, ``PropertyClocks/key(_:)``)
    /// of a store written before they moved into the rows; nil when it has none.
    private func legacyClocks(_ ref: WireObjectRef) throws -> PropertyClocks? {
        if legacyTable == nil {
            legacyTable = .some(try txn.legacyClockTable())
        }
        guard let legacy = legacyTable ?? nil, let (key, bytes) = try txn.legacyClocks(ref, in: legacy) else { return nil }
        legacyRows[ref] = key
        return bytes.map { PropertyClocks(decoding: $0) } ?? PropertyClocks()
    }
}

extension StoreTransaction: ObjectWriting {
    package func workingSet(_ request: WorkingSetRequest) throws -> EmbeddedWorkingSet {
        EmbeddedWorkingSet(self, expecting: request)
    }
}
