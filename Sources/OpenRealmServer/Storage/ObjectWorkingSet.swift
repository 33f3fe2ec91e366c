import OpenRealmSyncCore
import OpenRealmWire

/// The objects one uploaded changeset integrates, as the integrator (``Integrator``)
/// works on them: fetched when the working set is made (``ObjectWriting/workingSet(_:)``),
/// changed in memory through handles, and written back by one ``finish()`` per
/// changeset. A store across a network loads what the ``WorkingSetRequest`` names — the
/// changeset's objects, the objects its values link to, their clocks and the schema — in
/// one read, and does no I/O until ``finish()``; the embedded store does each operation
/// at once in its transaction.
///
/// Handles (``Object``) are the store's: the engine only hands them back to the working
/// set that gave them, within the changeset. A handle stays valid across the working
/// set's other operations until its object is erased (an erased object's embedded
/// objects go with it, and so do their handles). Last-writer-wins is the engine's: the
/// store keeps each top-level object's ``PropertyClocks`` where it likes (the embedded
/// store in a hidden column of the object's row) and only reads and writes them.
package protocol ObjectWorkingSet: SchemaReading {
    /// A stored object (top-level or embedded), as the store names it.
    associatedtype Object: Hashable

    /// Applies a schema instruction, as ``SchemaWriting/applySchema(_:allowingChanges:)``
    /// does: the schema changes only inside the working set that integrates it.
    func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws

    /// The top-level object `ref` names, or nil when it is not stored (never stored,
    /// erased, or a class the schema lacks or holds as embedded).
    func object(_ ref: WireObjectRef) throws -> Object?

    /// The class and object `path` names, walked from its owner, of class `root`, one
    /// step per single link, list index or dictionary key (``ObjectPathWalk``). The
    /// object is nil when it does not exist: its owner is not stored, a single link on
    /// the way is null, or a list position or dictionary key on the way is gone (the
    /// class is then the last one reached).
    ///
    /// - Throws: ``ObjectPathMisfit`` for a path that does not fit the schema.
    func resolve(_ path: WireObjectPath, from root: StoredClass) throws -> (StoredClass, Object?)

    /// The number of elements of the collection `property` of `object`.
    func collectionSize(_ object: Object, _ property: StoredProperty) throws -> Int

    // MARK: Clocks

    /// The clocks of the top-level object `ref` (found or created in this working set):
    /// the stamp of the last write of each of its properties, and of its embedded
    /// objects' properties under their paths. An object that has none has empty clocks.
    /// Clocks read are written back by ``finish()``.
    ///
    /// - Throws: the store's error when `ref` is not stored.
    func clocks(of ref: WireObjectRef) throws -> PropertyClocks

    /// Replaces the clocks of `ref`, read before with ``clocks(of:)`` or created with
    /// ``create(_:_:_:)``; written back by ``finish()``.
    func setClocks(_ clocks: PropertyClocks, of ref: WireObjectRef)

    // MARK: Objects

    /// Creates the top-level object `ref` of `cls` (its primary key from `ref`) with
    /// `values` (the other properties'), and empty clocks. A link value to an object
    /// that is not stored is stored as null, here and in every write below.
    func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)]) throws -> Object

    /// Creates the object as ``create(_:_:_:)`` does, with `clocks` as its clocks (as
    /// ``setClocks(_:of:)`` right after would): a store that keeps them with the object
    /// writes both at once.
    func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)],
                clocks: PropertyClocks) throws -> Object

    /// Sets the single value `property` of `object`.
    func set(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws

    /// Adds `delta` to the integer `property` of `object`.
    func addInteger(_ object: Object, _ property: StoredProperty, _ delta: Int64) throws

    /// Erases `object` and the embedded objects it holds; a top-level object's clocks
    /// go with it.
    func erase(_ object: Object) throws

    /// Keeps the partition of the top-level `object` of `cls`, a class without the
    /// partition property, out of band (``HiddenColumn/partition``): never sent to a
    /// client, queried by partitions' predicates.
    func setHiddenPartition(_ object: Object, _ cls: StoredClass, _ partition: String) throws

    // MARK: Collections (indexes in range: the engine clamps or drops the others)

    func listInsert(_ object: Object, _ property: StoredProperty, _ index: Int, _ value: WireValue) throws
    func listSet(_ object: Object, _ property: StoredProperty, _ index: Int, _ value: WireValue) throws
    func listErase(_ object: Object, _ property: StoredProperty, _ index: Int) throws
    func listMove(_ object: Object, _ property: StoredProperty, _ from: Int, _ to: Int) throws
    /// Empties a list, set or dictionary.
    func clearCollection(_ object: Object, _ property: StoredProperty) throws
    func setInsert(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws
    func setErase(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws
    func dictionarySet(_ object: Object, _ property: StoredProperty, _ key: String, _ value: WireValue) throws
    func dictionaryErase(_ object: Object, _ property: StoredProperty, _ key: String) throws

    /// Creates an embedded object as the value of `property` of `object`, at
    /// `position`: a single link (the previous object is erased), a list index (the
    /// object is inserted there; in range) or a dictionary key (the previous value is
    /// replaced). Returns the new object.
    func createEmbedded(_ object: Object, _ property: StoredProperty, at position: WireEmbeddedPosition) throws -> Object

    // MARK: Write-back

    /// Writes back what the changeset changed that is not written yet (the embedded
    /// store: the clocks read or changed, each into its object's row). Called once per
    /// changeset, after its last operation; the working set is spent after it.
    func finish() throws
}

/// What integrating a changeset will touch, for a store to load in one read: the
/// top-level objects its instructions name, the objects its values link to (a link to a
/// missing object is stored as null, so the store must know which exist). Computed
/// only when a store asks (the embedded store reads as it goes and never does).
package struct WorkingSetRequest {
    /// The instructions to integrate, as the integrator receives them.
    package let instructions: [WireInstruction]

    package init(_ instructions: [WireInstruction]) {
        self.instructions = instructions
    }

    /// The top-level objects the instructions name (paths by their owner), each once,
    /// in the order they first appear.
    package var objects: [WireObjectRef] {
        var seen: Set<WireObjectRef> = []
        return instructions.compactMap { instruction in
            instruction.topLevelObject.flatMap { seen.insert($0).inserted ? $0 : nil }
        }
    }

    /// The objects the instructions' values link to, each once, in the order they first
    /// appear.
    package var linked: [WireObjectRef] {
        var seen: Set<WireObjectRef> = []
        var out: [WireObjectRef] = []
        func visit(_ value: WireValue) {
            if case .link(let ref) = value, seen.insert(ref).inserted { out.append(ref) }
        }
        for instruction in instructions {
            switch instruction {
            case .createObject(_, _, let values), .createEmbeddedObject(_, _, _, let values):
                for v in values { visit(v.value) }
            case .set(_, _, let value), .listInsert(_, _, _, let value), .listSet(_, _, _, let value),
                 .setInsert(_, _, let value), .setErase(_, _, let value), .dictionarySet(_, _, _, let value):
                visit(value)
            case .eraseObject, .addInteger, .listErase, .listMove, .clearCollection, .dictionaryErase,
                 .addClass, .addProperty:
                break
            }
        }
        return out
    }
}

/// The objects, written by integration: a working set per changeset, inside the unit
/// that holds the app's write lock.
package protocol ObjectWriting: ObjectReading {
    associatedtype WorkingSet: ObjectWorkingSet

    /// The working set for integrating `request`'s instructions.
    func workingSet(_ request: WorkingSetRequest) throws -> WorkingSet

    /// Integrates `instructions` on a working set of this unit, as one changeset of the
    /// origin that `settings` describe, and writes it back (``Integrator``).
    ///
    /// The engine's, not the store's: the one implementation is the default in
    /// `Integration/Integrator+Units.swift`, which no store overrides. It is a requirement
    /// so that each store's conformance holds the integrator compiled for that store's
    /// working set: the engine, holding units as existentials (``AppLockedUnit``), makes
    /// one dynamic call per changeset here rather than one per instruction.
    func integrate(_ instructions: [WireInstruction], _ settings: IntegrationSettings) throws -> IntegratedInstructions
}

extension ObjectWorkingSet {
    package func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)],
                        clocks: PropertyClocks) throws -> Object {
        let object = try create(ref, cls, values)
        setClocks(clocks, of: ref)
        return object
    }
}
