import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// Applies one uploaded changeset to the store's working set for it
/// (``ObjectWorkingSet``), resolving conflicts, and returns the instructions as
/// integrated. It names objects by the working set's handles only; the store keeps the
/// objects' clocks and writes everything back once, when the changeset is done.
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
struct Integrator<Objects: ObjectWorkingSet> {
    let objects: Objects
    let developmentMode: Bool
    /// The stamp of the changeset being integrated.
    let stamp: WriteStamp
    /// A partition-based session's partition: created objects that do not give the
    /// partition field get the session's value.
    var partition: SubscriptionView.Partition?
    /// The objects whose partition field the server stamped (the origin learns the value
    /// by a download).
    private(set) var stamped: [WireObjectRef] = []
    /// The top-level class looked up last: a changeset's instructions come in runs of one
    /// class, and comparing its name is cheaper than hashing it. Forgotten when the
    /// schema changes.
    private var lastClass: StoredClass?

    init(objects: Objects, developmentMode: Bool, stamp: WriteStamp) {
        self.objects = objects
        self.developmentMode = developmentMode
        self.stamp = stamp
    }

    /// Applies `instructions`, then writes the working set back (``ObjectWorkingSet/finish()``);
    /// returns the ones that took effect (as they took effect: merged creates carry only
    /// their winning values, clamped list indexes).
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` naming the instruction for an unknown
    ///   class or property, a value of the wrong type, an embedded path; `invalidSchemaChange`.
    mutating func apply(_ instructions: [WireInstruction]) throws -> [WireInstruction] {
        var applied: [WireInstruction] = []
        applied.reserveCapacity(instructions.count)
        for (index, instruction) in instructions.enumerated() {
            do {
                if let done = try apply(instruction) { applied.append(done) }
            } catch let failure as SyncFailure {
                throw SyncFailure(failure.code, "instruction \(index): \(failure.message)")
            } catch let failure as any StoreFailure where failure.isTransient {
                // The store's failure, not the instruction's: the upload is retried, not refused.
                throw failure
            } catch {
                throw SyncFailure(.badChangeset, "instruction \(index) (\(Self.name(instruction))): \(error)")
            }
        }
        try objects.finish()
        return applied
    }

    private mutating func apply(_ instruction: WireInstruction) throws -> WireInstruction? {
        switch instruction {
        case .addClass, .addProperty:
            lastClass = nil
            try objects.applySchema(instruction, allowingChanges: developmentMode)
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
            if let object = try EmbeddedPaths.resolve(WireObjectPath(ref), from: cls, in: objects).1 {
                var clock = try objects.clocks(of: ref)
                var kept: [WirePropertyValue] = []
                for (prop, value) in props where !prop.isPrimaryKey {
                    // `>=`: an equal stamp is this changeset's own earlier write, which a later one replaces.
                    guard clock[prop.name].map({ stamp >= $0 }) ?? true else { continue }
                    try objects.set(object, prop, value)
                    clock[prop.name] = stamp
                    kept.append(WirePropertyValue(prop.name, value))
                }
                objects.setClocks(clock, of: ref)
                return .createObject(className: className, primaryKey: pk, values: kept)
            }
            guard cls.primaryKey != nil else { throw SyncFailure(.badChangeset, "class '\(className)' has no primary key") }
            var initial: [(StoredProperty, WireValue)] = []
            var clock = PropertyClocks()
            for (prop, value) in props where !prop.isPrimaryKey {
                initial.append((prop, value))
                clock[prop.name] = stamp
            }
            let object = try objects.create(ref, cls, initial, clocks: clock)
            if let partition, cls.column(named: partition.field) == nil {
                // A class without the partition property: the object's partition is kept
                // out of band, and never sent to clients.
                try objects.setHiddenPartition(object, cls, partition.storedValue)
                lastClass = nil
            }
            return .createObject(className: className, primaryKey: pk, values: values)
        case .eraseObject(let path):
            guard let object = try target(path).1 else { return nil }
            // A top-level object's clocks go with it.
            try objects.erase(object)
            if path.isEmbedded {
                var clock = try objects.clocks(of: path.root)
                clock.removeStamps(under: EmbeddedPaths.clockPrefix(path))
                objects.setClocks(clock, of: path.root)
            }
            return instruction
        case .set(let path, let property, let value):
            let (cls, object) = try target(path)
            guard let object else { return nil }
            let prop = try singleProperty(cls, property)
            if prop.isPrimaryKey { return nil }
            if try objects.schema().embeddedTarget(of: prop) != nil, value != .null {
                throw SyncFailure(.badChangeset, "set of \(path).\(property): a link to an embedded object is created with createEmbeddedObject, not set")
            }
            var clock = try objects.clocks(of: path.root)
            let name = Self.clockName(path, prop.name)
            if let name {
                // `>=`: an equal stamp is this changeset's own earlier write (a set after the
                // object's create in the same commit), which the later one replaces.
                guard clock[name].map({ stamp >= $0 }) ?? true else { return nil }
                clock[name] = stamp
            }
            try objects.set(object, prop, value)
            objects.setClocks(clock, of: path.root)
            return instruction
        case .addInteger(let path, let property, let delta):
            let (cls, object) = try target(path)
            guard let object else { return nil }
            try objects.addInteger(object, try singleProperty(cls, property), delta)
            return instruction
        case .listInsert(let path, let property, let index, let value):
            guard let (object, prop) = try collection(path, property) else { return nil }
            let size = try objects.collectionSize(object, prop)
            let at = Int(min(index, UInt64(size)))
            try objects.listInsert(object, prop, at, value)
            return .listInsert(object: path, property: property, index: UInt64(at), value: value)
        case .listSet(let path, let property, let index, let value):
            guard let (object, prop) = try collection(path, property),
                  index < UInt64(try objects.collectionSize(object, prop)) else { return nil }
            try objects.listSet(object, prop, Int(index), value)
            return instruction
        case .listErase(let path, let property, let index):
            guard let (object, prop) = try collection(path, property),
                  index < UInt64(try objects.collectionSize(object, prop)) else { return nil }
            try objects.listErase(object, prop, Int(index))
            return instruction
        case .listMove(let path, let property, let from, let to):
            guard let (object, prop) = try collection(path, property) else { return nil }
            let size = UInt64(try objects.collectionSize(object, prop))
            guard from < size, to < size else { return nil }
            try objects.listMove(object, prop, Int(from), Int(to))
            return instruction
        case .clearCollection(let path, let property):
            guard let (object, prop) = try collection(path, property) else { return nil }
            try objects.clearCollection(object, prop)
            return instruction
        case .setInsert(let path, let property, let value):
            guard let (object, prop) = try collection(path, property) else { return nil }
            try objects.setInsert(object, prop, value)
            return instruction
        case .setErase(let path, let property, let value):
            guard let (object, prop) = try collection(path, property) else { return nil }
            try objects.setErase(object, prop, value)
            return instruction
        case .dictionarySet(let path, let property, let dkey, let value):
            guard let (object, prop) = try collection(path, property) else { return nil }
            try objects.dictionarySet(object, prop, dkey, value)
            return instruction
        case .dictionaryErase(let path, let property, let dkey):
            guard let (object, prop) = try collection(path, property) else { return nil }
            try objects.dictionaryErase(object, prop, dkey)
            return instruction
        case .createEmbeddedObject(let path, let property, let position, let values):
            let (cls, object) = try target(path)
            guard let object else { return nil }
            guard let prop = cls.column(named: property) else {
                throw SyncFailure(.badChangeset, "class '\(cls.name)' has no property '\(property)'")
            }
            let schema = try objects.schema()
            guard let childClass = schema.embeddedTarget(of: prop) else {
                throw SyncFailure(.badChangeset, "property '\(cls.name).\(property)' does not link to an embedded class")
            }
            var props: [(StoredProperty, WireValue)] = []
            for v in values { props.append((try singleProperty(childClass, v.name), v.value)) }
            let integrated: WireEmbeddedPosition
            var step: WirePathElement?
            switch (position, prop.collection) {
            case (.single, .none):
                integrated = .single
            case (.listIndex(let index), .list):
                let at = min(index, UInt64(try objects.collectionSize(object, prop)))
                integrated = .listIndex(at)
                step = .index(at)
            case (.dictionaryKey(let dkey), .dictionary):
                integrated = .dictionaryKey(dkey)
                step = .key(dkey)
            default:
                throw SyncFailure(.badChangeset, "createEmbeddedObject on \(path).\(property): position \(position) does not fit the property's kind")
            }
            let child = try objects.createEmbedded(object, prop, at: integrated)
            let childPath = WireObjectPath(path.root, path: path.path + [.property(property)] + (step.map { [$0] } ?? []))
            var clock = try objects.clocks(of: path.root)
            clock.removeStamps(under: EmbeddedPaths.clockPrefix(childPath))
            for (p, value) in props where !p.isPrimaryKey {
                if schema.embeddedTarget(of: p) != nil, value != .null {
                    throw SyncFailure(.badChangeset, "createEmbeddedObject on \(path).\(property): '\(p.name)' links to an embedded object; create it with its own createEmbeddedObject")
                }
                try objects.set(child, p, value)
                if let name = Self.clockName(childPath, p.name) { clock[name] = stamp }
            }
            objects.setClocks(clock, of: path.root)
            return .createEmbeddedObject(object: path, property: property, position: integrated, values: values)
        }
    }

    private mutating func syncedClass(_ name: String) throws -> StoredClass {
        if let last = lastClass, last.name == name { return last }
        let cls = try EmbeddedPaths.topLevelClass(try objects.schema(), name)
        lastClass = cls
        return cls
    }

    /// The class and object a path names; the object is nil when it does not exist
    /// (erased, or a list position or key that is gone: the instruction loses).
    private mutating func target(_ path: WireObjectPath) throws -> (StoredClass, Objects.Object?) {
        try EmbeddedPaths.resolve(path, from: try syncedClass(path.root.className), in: objects)
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

    private mutating func collection(_ path: WireObjectPath, _ name: String) throws -> (Objects.Object, StoredProperty)? {
        let (cls, object) = try target(path)
        guard let object else { return nil }
        guard let prop = cls.column(named: name) else {
            throw SyncFailure(.badChangeset, "class '\(cls.name)' has no property '\(name)'")
        }
        guard prop.collection != .none else {
            throw SyncFailure(.badChangeset, "property '\(cls.name).\(name)' is not a collection")
        }
        return (object, prop)
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
