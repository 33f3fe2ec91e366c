import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// The embedded store's working set (``ObjectWorkingSet``): each operation is the ORCore
/// call of the same name, at once, in the integrating transaction; what it keeps for
/// the changeset is the top-level objects' keys and their clocks.
///
/// - Objects: a handle is the object's table and key (and, for a top-level object, its
///   place among the working set's roots). Top-level objects are remembered by
///   reference for the changeset, looked up once, so a changeset's instructions on one
///   object look it up once; the root named last is checked before any hashing, as an
///   instruction names one object several times in a row. The transaction's key cache
///   (``StoreUnitCache/objectKeys``, for the view's reads) is neither read nor filled
///   here: each new object's entry cost an upload more than the lookups it saved.
/// - Clocks: an object's clocks live in its own row, in its class's hidden column
///   ``HiddenColumn/clocks``, and go with the row when the object is erased. Each object's
///   are read once, kept with its root, and written back into the row by ``finish()``
///   when they changed; a new object's are written with its row when it is created. A
///   store written before the clocks moved into the rows has them in the `__clocks` table
///   (``LegacyClockTable``): read there when the row has none, moved into the row and
///   the table's row erased by ``finish()``.
package final class EmbeddedWorkingSet: ObjectWorkingSet {
    /// An object of the store: its table and key, valid in the transaction until erased.
    package struct Object: Hashable {
        let table: UInt32
        let key: UInt64
        /// A top-level object's place in ``roots`` (an erase finds its reference there);
        /// -1 for an embedded object.
        let root: Int32
    }

    /// The integrating transaction (the path walk reads links through it too).
    let txn: StoreTransaction

    /// A top-level object the working set found or created.
    private struct Root {
        let ref: WireObjectRef
        /// Nil once the changeset erased it (and did not create it again).
        var object: Object?
        /// Its clocks, once read or set; nil before.
        var clocks: PropertyClocks?
        /// Whether the row holds ``clocks`` as they are: read from it, or written with it
        /// when the object was created, and not changed since. ``finish()`` writes the others.
        var clocksInRow = false
    }

    /// The top-level objects found or created in this working set, in that order, and
    /// where each reference's is. One value, so that each call reaches it with one
    /// access (a class's stored properties are each checked for exclusive access).
    private struct Roots {
        private(set) var entries: [Root] = []
        private var index: [WireObjectRef: Int] = [:]
        /// The root named last (-1: none yet): an instruction names its object several
        /// times in a row, and comparing is cheaper than hashing.
        private var last = -1
        /// The reference looked for last and not found, until it is added: a create
        /// follows such a miss.
        private var missed: WireObjectRef?

        init(expecting count: Int) {
            entries.reserveCapacity(count)
            index.reserveCapacity(count)
        }

        /// The place of `ref`'s root in ``entries``, or nil when there is none.
        mutating func find(_ ref: WireObjectRef) -> Int? {
            if last >= 0, entries[last].ref == ref { return last }
            if let missed, missed == ref { return nil }
            guard let found = index[ref] else {
                missed = ref
                return nil
            }
            last = found
            return found
        }

        /// Adds the root of `ref` (not there yet), the object at (`table`, `key`); returns its place.
        mutating func add(_ ref: WireObjectRef, table: UInt32, key: UInt64) -> Int {
            let at = entries.count
            entries.append(Root(ref: ref, object: Object(table: table, key: key, root: Int32(at)), clocks: nil, clocksInRow: false))
            index[ref] = at
            last = at
            missed = nil
            return at
        }

        subscript(at: Int) -> Root {
            get { entries[at] }
            _modify { yield &entries[at] }
        }
    }
    private var roots: Roots

    /// Per class table, its clock column, once found or added; and the one used last
    /// (a changeset's objects are mostly of one class).
    private var clockColumns: [UInt32: StoredProperty] = [:]
    private var lastClockColumn: (table: UInt32, column: StoredProperty)?
    /// The `__clocks` table of a store written before the clocks moved into the rows,
    /// while it holds rows (looked up on first use; `.some(nil)`: none).
    private var legacyTable: LegacyClockTable??
    /// The rows of that table read during this changeset: their clocks are written into
    /// the objects' rows, and they are erased, by ``finish()``.
    private var legacyRows: [WireObjectRef: UInt64] = [:]

    init(_ txn: StoreTransaction, expecting request: WorkingSetRequest) {
        self.txn = txn
        // Read as it goes: the request only sizes what it keeps.
        roots = Roots(expecting: request.instructions.count)
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
        if let known = roots.find(ref) { return roots[known].object }
        guard let cls = try txn.schema().topLevelClass(named: ref.className) else { return nil }
        return try root(ref, cls)
    }

    /// The object `ref` of class `cls`, remembered once found: how ``object(_:)`` and the
    /// path walk's owner lookup find top-level objects.
    func root(_ ref: WireObjectRef, _ cls: StoredClass) throws -> Object? {
        if let known = roots.find(ref) { return roots[known].object }
        guard let key = try txn.findObject(cls, ref.primaryKey) else { return nil }
        return roots[roots.add(ref, table: cls.slot.table, key: key)].object
    }

    package func collectionSize(_ object: Object, _ property: StoredProperty) throws -> Int {
        try txn.collectionSize(object.table, object.key, property.slot.column)
    }

    /// Creates the object with empty clocks, written with its row.
    package func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)]) throws -> Object {
        try create(ref, cls, values, clocks: PropertyClocks())
    }

    /// Creates the object with its clocks in its row: one row write, where creating it
    /// and writing its clocks by ``finish()`` would be two.
    package func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)],
                        clocks: PropertyClocks) throws -> Object {
        guard let primaryKey = cls.primaryKey else {
            throw StoreError(status: 0, "class '\(cls.name)' has no primary key")
        }
        defer { txn.scratch.reset() }
        var row: [(StoredProperty, WireValue)] = []
        row.reserveCapacity(values.count + 2)
        row.append((primaryKey, ref.primaryKey.value))
        row.append(contentsOf: values)
        row.append((try clockColumn(cls.slot.table, cls.name, adding: true)!, .binary(clocks.encoded())))
        let key = try txn.createObject(cls, row)
        let at: Int
        if let known = roots.find(ref) {
            // Erased earlier in the changeset, and made again.
            at = known
            roots[at].object = Object(table: cls.slot.table, key: key, root: Int32(at))
        } else {
            at = roots.add(ref, table: cls.slot.table, key: key)
        }
        roots[at].clocks = clocks
        roots[at].clocksInRow = true
        return roots[at].object!
    }

    package func set(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        defer { txn.scratch.reset() }
        try txn.set(object.table, object.key, property.slot.column, try txn.storable(value))
    }

    package func addInteger(_ object: Object, _ property: StoredProperty, _ delta: Int64) throws {
        try txn.addInteger(object.table, object.key, property.slot.column, delta)
    }

    package func erase(_ object: Object) throws {
        guard object.root >= 0 else {
            try txn.erase(object.table, object.key)
            return
        }
        let at = Int(object.root)
        // Read first: a store's old `__clocks` row of the object goes too.
        _ = try clocks(of: roots[at].ref)
        try txn.erase(object.table, object.key)
        roots[at].object = nil
        roots[at].clocks = PropertyClocks()
        roots[at].clocksInRow = false
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
        return Object(table: target.slot.table, key: child, root: -1)
    }

    // MARK: Clocks

    package func clocks(of ref: WireObjectRef) throws -> PropertyClocks {
        var at = roots.find(ref)
        if at == nil, let cls = try txn.schema().topLevelClass(named: ref.className), try root(ref, cls) != nil {
            at = roots.find(ref)
        }
        guard let at else {
            throw StoreError(status: 0, "the owner \(ref) of an embedded object is missing")
        }
        if let known = roots[at].clocks { return known }
        // Without clocks, the root is a live object: an erase leaves empty clocks.
        guard let object = roots[at].object else {
            throw StoreError(status: 0, "the owner \(ref) of an embedded object is missing")
        }
        var c = PropertyClocks()
        var inRow = false
        if let column = try clockColumn(object.table, ref.className, adding: false),
           case .binary(let bytes) = try txn.get(object.table, object.key, column.slot.column) {
            c = PropertyClocks(decoding: bytes)
            inRow = true
        } else if let legacy = try legacyClocks(ref) {
            c = legacy
        }
        roots[at].clocks = c
        roots[at].clocksInRow = inRow
        return c
    }

    package func setClocks(_ clocks: PropertyClocks, of ref: WireObjectRef) {
        guard let at = roots.find(ref), roots[at].clocks != nil else { return }
        roots[at].clocks = clocks
        roots[at].clocksInRow = false
    }

    /// Writes back the clocks the changeset changed, or read from anywhere but the
    /// object's row, each into its object's row, and erases the old `__clocks` rows read.
    package func finish() throws {
        if let legacy = legacyTable ?? nil {
            try txn.eraseLegacyClocks(Array(legacyRows.values), in: legacy)
        }
        for root in roots.entries where !root.clocksInRow {
            guard let object = root.object, let stamps = root.clocks else { continue }
            defer { txn.scratch.reset() }
            try txn.set(object.table, object.key, try clockColumn(object.table, root.ref.className, adding: true)!.slot.column,
                        try txn.storable(.binary(stamps.encoded())))
        }
    }

    /// The clock column of the class `className` (stored in `table`); when the class has
    /// none, nil, or (`adding`) a new one.
    private func clockColumn(_ table: UInt32, _ className: String, adding: Bool) throws -> StoredProperty? {
        if let known = lastClockColumn, known.table == table { return known.column }
        if let known = clockColumns[table] {
            lastClockColumn = (table, known)
            return known
        }
        // The class as the schema has it now: the changeset may have added its column.
        guard let current = try txn.schema().storedClass(named: className) else {
            throw StoreError(status: 0, "no class '\(className)' for the clocks of its objects")
        }
        let column = adding ? try txn.addHiddenColumn(.clocks, to: current) : current.hiddenColumn(.clocks)
        if let column {
            clockColumns[table] = column
            lastClockColumn = (table, column)
        }
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
