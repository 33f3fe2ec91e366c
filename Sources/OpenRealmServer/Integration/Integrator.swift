import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// Applies one uploaded changeset to the store inside the integration's write
/// transaction, resolving conflicts, and returns the instructions as integrated.
///
/// The rules (docs/SERVER.md, "Conflict resolution"):
///
/// - `set` (and the initial values of `createObject`) is last-writer-wins per property:
///   it applies only when its stamp (the changeset's HLC, then the origin file ident) is
///   greater than the stamp of the property's last write, or equal to it (a write earlier
///   in the same changeset, which the later one replaces); a losing write is dropped.
/// - `createObject` of an existing primary key merges: its values act as `set`s.
/// - Erase beats concurrent updates: an erase always applies, and instructions on an
///   object that no longer exists are dropped.
/// - `addInteger` always applies (additions commute).
/// - List positions past the end are clamped for inserts and dropped for the others.
/// - Schema instructions add classes and properties (development mode only).
///
/// Embedded objects are reached by paths from their top-level owner
/// (``EmbeddedPaths``); `createEmbeddedObject` creates one in place (a list position is
/// clamped like `listInsert`). Their properties are last-writer-wins too, their stamps
/// kept in the owner's clocks under the path (`.address.city`), except inside list
/// elements, whose positions shift: those writes always apply.
struct Integrator {
    let txn: StoreTransaction
    let developmentMode: Bool
    /// The stamp of the changeset being integrated.
    let stamp: WriteStamp
    /// A partition-based session's partition: created objects that do not give the
    /// partition field get the session's value.
    var partition: SubscriptionView.Partition?
    /// The objects whose partition field the server stamped (the origin learns the value
    /// by a download).
    private(set) var stamped: [WireObjectRef] = []

    /// The clocks this changeset read or changed, per object, with the row where
    /// ``finish()`` writes them back: an object's clocks live in its own row, in its
    /// class's hidden column ``clockColumnName``, and go with the row when the object is
    /// erased.
    private var clocks: [WireObjectRef: ObjectClocks] = [:]
    /// Per class, its clock column, once found or added.
    private var clockColumns: [String: StoredProperty] = [:]
    /// The `__clocks` table of a store written before the clocks moved into the rows,
    /// while it holds rows (looked up on first use; `.some(nil)`: none).
    private var legacyTable: LegacyClockTable??
    /// The rows of that table read during this changeset: their clocks are written into
    /// the objects' rows, and they are erased, by ``finish()``.
    private var legacyRows: [WireObjectRef: UInt64] = [:]

    private struct ObjectRow {
        let cls: StoredClass, key: UInt64
    }
    private struct ObjectClocks {
        var stamps: PropertyClocks
        /// Nil once the object is erased (and not created again).
        var row: ObjectRow?
    }

    /// The hidden column of every synced class that holds its objects' clocks
    /// (``PropertyClocks/encoded()``), added to a class on the first write of clocks.
    static let clockColumnName = HiddenColumn.clocks.rawValue

    init(txn: StoreTransaction, developmentMode: Bool, stamp: WriteStamp) {
        self.txn = txn
        self.developmentMode = developmentMode
        self.stamp = stamp
    }

    /// Applies `instructions`; returns the ones that took effect (as they took effect:
    /// merged creates carry only their winning values, clamped list indexes).
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` naming the instruction for an unknown
    ///   class or property, a value of the wrong type, an embedded path; `invalidSchemaChange`.
    mutating func apply(_ instructions: [WireInstruction]) throws -> [WireInstruction] {
        var applied: [WireInstruction] = []
        applied.reserveCapacity(instructions.count)
        clocks.reserveCapacity(instructions.count)
        for (index, instruction) in instructions.enumerated() {
            defer { txn.scratch.reset() }
            do {
                if let done = try apply(instruction) { applied.append(done) }
            } catch let failure as SyncFailure {
                throw SyncFailure(failure.code, "instruction \(index): \(failure.message)")
            } catch {
                throw SyncFailure(.badChangeset, "instruction \(index) (\(Self.name(instruction))): \(error)")
            }
        }
        try finish()
        return applied
    }

    private mutating func apply(_ instruction: WireInstruction) throws -> WireInstruction? {
        switch instruction {
        case .addClass, .addProperty:
            try txn.applySchema(instruction, allowingChanges: developmentMode)
            return instruction
        case .createObject(let className, let pk, var values):
            let cls = try syncedClass(className)
            let ref = WireObjectRef(className: className, primaryKey: pk)
            if let partition, !values.contains(where: { $0.name == partition.field }),
               let field = cls.column(named: partition.field), field.collection == .none, !field.isPrimaryKey {
                values.append(WirePropertyValue(partition.field, partition.value.value))
                stamped.append(ref)
            }
            var props: [(StoredProperty, WireValue)] = []
            for v in values { props.append((try singleProperty(cls, v.name), v.value)) }
            if let key = try txn.findObject(cls, pk) {
                var clock = try loadClocks(ref, row: ObjectRow(cls: cls, key: key))
                var kept: [WirePropertyValue] = []
                for (prop, value) in props where !prop.isPrimaryKey {
                    // `>=`: an equal stamp is this changeset's own earlier write, which a later one replaces.
                    guard clock[prop.name].map({ stamp >= $0 }) ?? true else { continue }
                    try txn.set(cls, key, prop, value)
                    clock[prop.name] = stamp
                    kept.append(WirePropertyValue(prop.name, value))
                }
                clocks[ref]?.stamps = clock
                return .createObject(className: className, primaryKey: pk, values: kept)
            }
            guard let primaryKey = cls.primaryKey else { throw SyncFailure(.badChangeset, "class '\(className)' has no primary key") }
            var pairs: [(StoredProperty, WireValue)] = [(primaryKey, pk.value)]
            var clock = PropertyClocks()
            for (prop, value) in props where !prop.isPrimaryKey {
                pairs.append((prop, value))
                clock[prop.name] = stamp
            }
            let key = try txn.createObject(cls, pairs)
            if let partition, cls.column(named: partition.field) == nil {
                // A class without the partition property: the object's partition is kept
                // out of band, in the hidden column, and never sent to clients.
                let column = try txn.addHiddenColumn(.partition, to: cls)
                try txn.set(cls, key, column, .string(partition.storedValue))
            }
            clocks[ref] = ObjectClocks(stamps: clock, row: ObjectRow(cls: cls, key: key))
            return .createObject(className: className, primaryKey: pk, values: values)
        case .eraseObject(let path):
            let (cls, key) = try target(path)
            guard let key else { return nil }
            if path.isEmbedded {
                try txn.erase(cls, key)
                var clock = try loadClocks(path.root)
                clock.removeStamps(under: EmbeddedPaths.clockPrefix(path))
                clocks[path.root]?.stamps = clock
            } else {
                // Read first: a store's old `__clocks` row of the object goes too.
                _ = try loadClocks(path.root, row: ObjectRow(cls: cls, key: key))
                try txn.erase(cls, key)
                clocks[path.root] = ObjectClocks(stamps: PropertyClocks(), row: nil)
            }
            return instruction
        case .set(let path, let property, let value):
            let (cls, key) = try target(path)
            guard let key else { return nil }
            let prop = try singleProperty(cls, property)
            if prop.isPrimaryKey { return nil }
            if try txn.schema().embeddedTarget(of: prop) != nil, value != .null {
                throw SyncFailure(.badChangeset, "set of \(path).\(property): a link to an embedded object is created with createEmbeddedObject, not set")
            }
            var clock = try loadClocks(path.root, row: path.isEmbedded ? nil : ObjectRow(cls: cls, key: key))
            let name = Self.clockName(path, prop.name)
            if let name {
                // `>=`: an equal stamp is this changeset's own earlier write (a set after the
                // object's create in the same commit), which the later one replaces.
                guard clock[name].map({ stamp >= $0 }) ?? true else { return nil }
                clock[name] = stamp
            }
            try txn.set(cls, key, prop, value)
            clocks[path.root]?.stamps = clock
            return instruction
        case .addInteger(let path, let property, let delta):
            let (cls, key) = try target(path)
            guard let key else { return nil }
            try txn.addInteger(cls, key, try singleProperty(cls, property), delta)
            return instruction
        case .listInsert(let path, let property, let index, let value):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            let size = try txn.collectionSize(cls, key, prop)
            let at = Int(min(index, UInt64(size)))
            try txn.listInsert(cls, key, prop, at, value)
            return .listInsert(object: path, property: property, index: UInt64(at), value: value)
        case .listSet(let path, let property, let index, let value):
            guard let (cls, key, prop) = try collection(path, property),
                  index < UInt64(try txn.collectionSize(cls, key, prop)) else { return nil }
            try txn.listSet(cls, key, prop, Int(index), value)
            return instruction
        case .listErase(let path, let property, let index):
            guard let (cls, key, prop) = try collection(path, property),
                  index < UInt64(try txn.collectionSize(cls, key, prop)) else { return nil }
            try txn.listErase(cls, key, prop, Int(index))
            return instruction
        case .listMove(let path, let property, let from, let to):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            let size = UInt64(try txn.collectionSize(cls, key, prop))
            guard from < size, to < size else { return nil }
            try txn.listMove(cls, key, prop, Int(from), Int(to))
            return instruction
        case .clearCollection(let path, let property):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            try txn.clearCollection(cls, key, prop)
            return instruction
        case .setInsert(let path, let property, let value):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            try txn.setInsert(cls, key, prop, value)
            return instruction
        case .setErase(let path, let property, let value):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            try txn.setErase(cls, key, prop, value)
            return instruction
        case .dictionarySet(let path, let property, let dkey, let value):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            try txn.dictionarySet(cls, key, prop, dkey, value)
            return instruction
        case .dictionaryErase(let path, let property, let dkey):
            guard let (cls, key, prop) = try collection(path, property) else { return nil }
            try txn.dictionaryErase(cls, key, prop, dkey)
            return instruction
        case .createEmbeddedObject(let path, let property, let position, let values):
            let (cls, key) = try target(path)
            guard let key else { return nil }
            guard let prop = cls.column(named: property) else {
                throw SyncFailure(.badChangeset, "class '\(cls.name)' has no property '\(property)'")
            }
            let schema = try txn.schema()
            guard let childClass = schema.embeddedTarget(of: prop) else {
                throw SyncFailure(.badChangeset, "property '\(cls.name).\(property)' does not link to an embedded class")
            }
            var props: [(StoredProperty, WireValue)] = []
            for v in values { props.append((try singleProperty(childClass, v.name), v.value)) }
            let child: UInt64
            let integrated: WireEmbeddedPosition
            var step: WirePathElement?
            switch (position, prop.collection) {
            case (.single, .none):
                child = try txn.createEmbedded(cls, key, prop)
                integrated = .single
            case (.listIndex(let index), .list):
                let at = Int(min(index, UInt64(try txn.collectionSize(cls, key, prop))))
                child = try txn.createEmbedded(cls, key, prop, index: at)
                integrated = .listIndex(UInt64(at))
                step = .index(UInt64(at))
            case (.dictionaryKey(let dkey), .dictionary):
                child = try txn.createEmbedded(cls, key, prop, dictionaryKey: dkey)
                integrated = .dictionaryKey(dkey)
                step = .key(dkey)
            default:
                throw SyncFailure(.badChangeset, "createEmbeddedObject on \(path).\(property): position \(position) does not fit the property's kind")
            }
            let childPath = WireObjectPath(path.root, path: path.path + [.property(property)] + (step.map { [$0] } ?? []))
            var clock = try loadClocks(path.root, row: path.isEmbedded ? nil : ObjectRow(cls: cls, key: key))
            clock.removeStamps(under: EmbeddedPaths.clockPrefix(childPath))
            for (p, value) in props where !p.isPrimaryKey {
                if schema.embeddedTarget(of: p) != nil, value != .null {
                    throw SyncFailure(.badChangeset, "createEmbeddedObject on \(path).\(property): '\(p.name)' links to an embedded object; create it with its own createEmbeddedObject")
                }
                try txn.set(childClass, child, p, value)
                if let name = Self.clockName(childPath, p.name) { clock[name] = stamp }
            }
            clocks[path.root]?.stamps = clock
            return .createEmbeddedObject(object: path, property: property, position: integrated, values: values)
        }
    }

    /// Writes back the clocks changed by the changeset, each into its object's row, and
    /// erases the old `__clocks` rows read.
    private mutating func finish() throws {
        if let legacy = legacyTable ?? nil {
            try txn.eraseLegacyClocks(Array(legacyRows.values), in: legacy)
        }
        for entry in clocks.values {
            guard let row = entry.row else { continue }
            defer { txn.scratch.reset() }
            try txn.set(row.cls, row.key, try clockColumn(row.cls, adding: true)!, .binary(entry.stamps.encoded()))
        }
    }

    /// The clocks of the top-level object `ref`, whose row is `row` (looked up when not
    /// given). An object created or written since the clocks moved into the rows has
    /// them in its row; an older one has them in the `__clocks` table, when it has any.
    private mutating func loadClocks(_ ref: WireObjectRef, row given: ObjectRow? = nil) throws -> PropertyClocks {
        if let known = clocks[ref] { return known.stamps }
        let row: ObjectRow
        if let given {
            row = given
        } else {
            let cls = try syncedClass(ref.className)
            guard let key = try txn.findObject(cls, ref.primaryKey) else {
                throw StoreError(status: 0, "the owner \(ref) of an embedded object is missing")
            }
            row = ObjectRow(cls: cls, key: key)
        }
        var c = PropertyClocks()
        if let column = try clockColumn(row.cls, adding: false),
           case .binary(let bytes) = try txn.value(row.cls, row.key, column) {
            c = PropertyClocks(decoding: bytes)
        } else if let legacy = try legacyClocks(ref) {
            c = legacy
        }
        clocks[ref] = ObjectClocks(stamps: c, row: row)
        return c
    }

    /// The clock column of `cls`; when the class has none, nil, or (`adding`) a new one.
    private mutating func clockColumn(_ cls: StoredClass, adding: Bool) throws -> StoredProperty? {
        if let known = clockColumns[cls.name] { return known }
        // The class as the schema has it now: the changeset may have added its column.
        let current = try txn.schema().storedClass(named: cls.name) ?? cls
        let column = adding ? try txn.addHiddenColumn(.clocks, to: current) : current.hiddenColumn(.clocks)
        if let column { clockColumns[cls.name] = column }
        return column
    }

    /// The clocks of `ref` in the `__clocks` table (key `Class␟pk`, ``PropertyClocks/key(_:)``)
    /// of a store written before they moved into the rows; nil when it has none.
    private mutating func legacyClocks(_ ref: WireObjectRef) throws -> PropertyClocks? {
        if legacyTable == nil {
            legacyTable = .some(try txn.legacyClockTable())
        }
        guard let legacy = legacyTable ?? nil, let (key, bytes) = try txn.legacyClocks(ref, in: legacy) else { return nil }
        legacyRows[ref] = key
        return bytes.map { PropertyClocks(decoding: $0) } ?? PropertyClocks()
    }

    private func syncedClass(_ name: String) throws -> StoredClass {
        try EmbeddedPaths.topLevelClass(try txn.schema(), name)
    }

    /// The class and key of the object a path names; the key is nil when the object
    /// does not exist (erased, or a list position or key that is gone: the instruction
    /// loses).
    private func target(_ path: WireObjectPath) throws -> (StoredClass, UInt64?) {
        try EmbeddedPaths.resolve(txn, path)
    }

    /// The name under which the owner's clocks keep the stamp of `property` of the
    /// object at `path`; nil inside a list element (positions shift, so such writes
    /// always apply).
    static func clockName(_ path: WireObjectPath, _ property: String) -> String? {
        guard path.isEmbedded else { return property }
        guard !path.path.contains(where: { if case .index = $0 { return true } else { return false } }) else { return nil }
        return EmbeddedPaths.clockPrefix(path) + "." + property
    }

    private func singleProperty(_ cls: StoredClass, _ name: String) throws -> StoredProperty {
        // The server's hidden columns are not the client's to write.
        guard let prop = cls.property(named: name) else {
            throw SyncFailure(.badChangeset, "class '\(cls.name)' has no property '\(name)'")
        }
        guard prop.collection == .none else {
            throw SyncFailure(.badChangeset, "property '\(cls.name).\(name)' is a collection, not a single value")
        }
        return prop
    }

    private func collection(_ path: WireObjectPath, _ name: String) throws -> (StoredClass, UInt64, StoredProperty)? {
        let (cls, key) = try target(path)
        guard let key else { return nil }
        guard let prop = cls.column(named: name) else {
            throw SyncFailure(.badChangeset, "class '\(cls.name)' has no property '\(name)'")
        }
        guard prop.collection != .none else {
            throw SyncFailure(.badChangeset, "property '\(cls.name).\(name)' is not a collection")
        }
        return (cls, key, prop)
    }

    private static func name(_ i: WireInstruction) -> String {
        switch i {
        case .createObject: return "createObject"
        case .eraseObject: return "eraseObject"
        case .set: return "set"
        case .addInteger: return "addInteger"
        case .listInsert: return "listInsert"
        case .listSet: return "listSet"
        case .listErase: return "listErase"
        case .listMove: return "listMove"
        case .clearCollection: return "clearCollection"
        case .setInsert: return "setInsert"
        case .setErase: return "setErase"
        case .dictionarySet: return "dictionarySet"
        case .dictionaryErase: return "dictionaryErase"
        case .createEmbeddedObject: return "createEmbeddedObject"
        case .addClass: return "addClass"
        case .addProperty: return "addProperty"
        }
    }
}
