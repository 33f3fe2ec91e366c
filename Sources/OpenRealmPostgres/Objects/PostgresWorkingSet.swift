import OpenRealmServer
import OpenRealmSyncCore
import OpenRealmWire

/// The PostgreSQL store's working set (``ObjectWorkingSet``): the changeset's objects and
/// the objects its values link to are loaded in one query when it is made, every
/// operation works on them in memory, and ``finish()`` writes back the rows that changed
/// (``PostgresObjectRows``). It answers as the embedded store's working set does — the
/// same values, defaults, refusals, set order and clocks — keeping ORCore's rules
/// itself (``PostgresObjectValues``).
///
/// - Objects are nodes (``PostgresObjectNode``); a handle is a node, valid until the
///   object is erased (an embedded object also by its replacement).
/// - An object the request did not name is loaded when first asked for (a round trip;
///   ``loads`` counts them): the request makes that the exception.
/// - Erasing a top-level object nulls the links to it, as ORCore does: at once in the
///   objects in memory, and in ``finish()`` in the rows that link to it (found through
///   `links`), before its row goes.
/// - Schema changes go to the database at once (``PostgresSchemaUnit``): they are
///   rare, and the schema unit keeps the schema in memory between them.
package final class PostgresWorkingSet: ObjectWorkingSet {
    /// An object of the working set, top-level or embedded.
    package struct Object: Hashable {
        let node: PostgresObjectNode

        package static func == (a: Object, b: Object) -> Bool { a.node === b.node }
        package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(node)) }
    }

    /// A top-level object the working set knows, stored or not.
    private final class Root {
        let ref: WireObjectRef
        /// The object; nil when it is not stored (never was, or erased).
        var node: PostgresObjectNode?
        var key: Int64
        var clocks: PropertyClocks
        var partition: String?
        /// Whether the database holds a row for it (as loaded).
        let hadRow: Bool
        /// Whether ``finish()`` writes it back.
        var changed = false

        init(ref: WireObjectRef, node: PostgresObjectNode?, key: Int64, clocks: PropertyClocks, partition: String?, hadRow: Bool) {
            self.ref = ref
            self.node = node
            self.key = key
            self.clocks = clocks
            self.partition = partition
            self.hadRow = hadRow
        }
    }

    private let schemaUnit: PostgresSchemaUnit
    private let rows: PostgresObjectRows
    private var roots: [WireObjectRef: Root] = [:]
    /// The object keys of the top-level objects known to exist: loaded, linked from a
    /// loaded row, or created here.
    private var keys: [WireObjectRef: Int64] = [:]
    private var largestKey: Int64
    /// Objects whose rows existed and which were erased here: rows linking to them
    /// are fixed by ``finish()``.
    private var erasedRows: [WireObjectRef] = []
    private var finished = false

    /// The queries made to load objects: one when the working set is made, and one more
    /// for each object asked for that the request did not name.
    package private(set) var loads = 0

    init(_ schemaUnit: PostgresSchemaUnit, rows: PostgresObjectRows, request: WorkingSetRequest) throws {
        self.schemaUnit = schemaUnit
        self.rows = rows
        var wanted = request.objects
        var seen = Set(wanted)
        for ref in request.linked where seen.insert(ref).inserted { wanted.append(ref) }
        // The schema first: decoding the rows needs it (one query, kept for the unit).
        _ = try schemaUnit.schema()
        let (found, largest) = try rows.load(wanted)
        largestKey = largest
        loads = 1
        try adopt(found, among: wanted)
    }

    /// Takes in loaded rows; the other `wanted` objects are known not to be stored.
    private func adopt(_ found: [PostgresObjectRow], among wanted: [WireObjectRef]) throws {
        let schema = try schemaUnit.schema()
        for row in found where roots[row.ref] == nil {
            let properties: [ObjectImage.Property]
            do {
                properties = try PostImages.properties(decoding: row.properties)
            } catch {
                throw PostgresStoreError(.statementFailed, "the object \(row.ref) of app '\(rows.appId)' is damaged: \(error)")
            }
            let node = PostgresObjectNode.decoding(properties, className: row.ref.className, owner: row.ref, schema: schema)
            roots[row.ref] = Root(ref: row.ref, node: node, key: row.key, clocks: PropertyClocks(decoding: row.clocks),
                                  partition: row.partition, hadRow: true)
            keys[row.ref] = row.key
            for (link, key) in zip(row.links, row.linkKeys) where keys[link] == nil { keys[link] = key }
        }
        for ref in wanted where roots[ref] == nil {
            roots[ref] = Root(ref: ref, node: nil, key: 0, clocks: PropertyClocks(), partition: nil, hadRow: false)
        }
    }

    /// The top-level object `ref`, loaded when the request did not name it.
    private func root(_ ref: WireObjectRef) throws -> Root {
        if let known = roots[ref] { return known }
        try adopt(try rows.rows([ref]), among: [ref])
        loads += 1
        return roots[ref]!
    }

    package func schema() throws -> SyncSchema {
        try schemaUnit.schema()
    }

    package func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws {
        try schemaUnit.applySchema(instruction, allowingChanges: allowingChanges)
    }

    // MARK: Objects

    package func object(_ ref: WireObjectRef) throws -> Object? {
        guard try schema().topLevelClass(named: ref.className) != nil else { return nil }
        return try root(ref).node.map(Object.init)
    }

    package func collectionSize(_ object: Object, _ property: StoredProperty) throws -> Int {
        let node = try alive(object)
        switch try value(node, property) {
        case .list(let elements): return elements.count
        case .set(let values): return values.count
        case .dictionary(let entries): return entries.count
        case .single, .embedded: throw PostgresObjectError("'\(node.className).\(property.name)' is not a collection")
        }
    }

    package func create(_ ref: WireObjectRef, _ cls: StoredClass, _ values: [(StoredProperty, WireValue)]) throws -> Object {
        guard let primaryKey = cls.primaryKey else { throw PostgresObjectError("class '\(cls.name)' has no primary key") }
        guard !cls.isEmbedded else { throw PostgresObjectError("class '\(cls.name)' is embedded: its objects have an owner") }
        let root = try self.root(ref)
        guard root.node == nil else { throw PostgresObjectError("class '\(cls.name)' already has the object \(ref)") }
        try PostgresObjectValues.check(ref.primaryKey.value, for: primaryKey, of: cls.name, inCollection: false)
        let node = PostgresObjectNode(className: cls.name, owner: ref)
        var given: Set<String> = []
        for (property, value) in values {
            guard given.insert(property.name).inserted else {
                throw PostgresObjectError("'\(cls.name).\(property.name)' is given twice")
            }
            guard property.collection == .none else {
                throw PostgresObjectError("'\(cls.name).\(property.name)' is a collection: it cannot be given when the object is created")
            }
            if try schema().embeddedTarget(of: property) != nil {
                guard value == .null else {
                    throw PostgresObjectError("'\(cls.name).\(property.name)' links to an embedded class: create the object in place")
                }
                continue
            }
            node.values[property.name] = .single(try storable(value, for: property, of: cls.name, inCollection: false))
        }
        largestKey += 1
        root.node = node
        root.key = largestKey
        root.clocks = PropertyClocks()
        root.partition = nil
        root.changed = true
        keys[ref] = largestKey
        return Object(node: node)
    }

    package func set(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        let node = try alive(object)
        guard property.collection == .none else {
            throw PostgresObjectError("'\(node.className).\(property.name)' is a collection; use the collection operations")
        }
        if property.isPrimaryKey {
            guard value == (try primaryKeyValue(of: node)) else {
                throw PostgresObjectError("the primary key '\(node.className).\(property.name)' cannot change")
            }
            return
        }
        if try schema().embeddedTarget(of: property) != nil {
            guard value == .null else {
                throw PostgresObjectError("'\(node.className).\(property.name)' links to an embedded class: create the object in place")
            }
            if case .embedded(let old?) = try self.value(node, property) { old.kill() }
            node.values[property.name] = .embedded(nil)
        } else {
            node.values[property.name] = .single(try storable(value, for: property, of: node.className, inCollection: false))
        }
        try touch(node)
    }

    package func addInteger(_ object: Object, _ property: StoredProperty, _ delta: Int64) throws {
        let node = try alive(object)
        guard property.collection == .none, case .single(.int(let current)) = try value(node, property) else {
            throw PostgresObjectError("'\(node.className).\(property.name)' does not hold an int")
        }
        if property.isPrimaryKey { throw PostgresObjectError("the primary key '\(node.className).\(property.name)' cannot change") }
        // Wraps, as ORCore's (and Realm's) integer additions do.
        node.values[property.name] = .single(.int(current &+ delta))
        try touch(node)
    }

    package func erase(_ object: Object) throws {
        let node = try alive(object)
        guard let parent = node.parent else {
            let root = try self.root(node.owner)
            node.kill()
            root.node = nil
            root.clocks = PropertyClocks()
            root.partition = nil
            root.changed = true
            keys[root.ref] = nil
            if root.hadRow, !erasedRows.contains(root.ref) { erasedRows.append(root.ref) }
            // Links to it become null, as ORCore makes them (the rows not in memory: finish()).
            for other in roots.values {
                if let held = other.node, held.removeLinks(to: root.ref) { other.changed = true }
            }
            return
        }
        // An embedded object: its parent's link to it goes (a list element is removed,
        // a dictionary value becomes null).
        switch parent.values[node.parentProperty] {
        case .embedded(let held?) where held === node:
            parent.values[node.parentProperty] = .embedded(nil)
        case .list(var elements):
            elements.removeAll { $0.node === node }
            parent.values[node.parentProperty] = .list(elements)
        case .dictionary(var entries):
            for i in entries.indices where entries[i].element.node === node { entries[i].element = .value(.null) }
            parent.values[node.parentProperty] = .dictionary(entries)
        default:
            break
        }
        node.kill()
        try touch(parent)
    }

    package func setHiddenPartition(_ object: Object, _ cls: StoredClass, _ partition: String) throws {
        let node = try alive(object)
        guard node.parent == nil else { throw PostgresObjectError("an embedded object of '\(cls.name)' has no partition") }
        // The class gains the column as on the embedded store: partitions' predicates query it.
        _ = try schemaUnit.addHiddenColumn(.partition, to: cls)
        let root = try self.root(node.owner)
        root.partition = partition
        root.changed = true
    }

    // MARK: Collections

    package func listInsert(_ object: Object, _ property: StoredProperty, _ index: Int, _ value: WireValue) throws {
        let node = try alive(object)
        var elements = try list(node, property)
        guard index >= 0, index <= elements.count else { throw outOfRange(node, property, index, elements.count) }
        try refuseEmbedded(node, property)
        elements.insert(.value(try storable(value, for: property, of: node.className, inCollection: true)), at: index)
        node.values[property.name] = .list(elements)
        try touch(node)
    }

    package func listSet(_ object: Object, _ property: StoredProperty, _ index: Int, _ value: WireValue) throws {
        let node = try alive(object)
        var elements = try list(node, property)
        guard index >= 0, index < elements.count else { throw outOfRange(node, property, index, elements.count) }
        let stored = try storable(value, for: property, of: node.className, inCollection: true)
        if stored != .null { try refuseEmbedded(node, property) }
        elements[index].node?.kill()
        elements[index] = .value(stored)
        node.values[property.name] = .list(elements)
        try touch(node)
    }

    package func listErase(_ object: Object, _ property: StoredProperty, _ index: Int) throws {
        let node = try alive(object)
        var elements = try list(node, property)
        guard index >= 0, index < elements.count else { throw outOfRange(node, property, index, elements.count) }
        elements.remove(at: index).node?.kill()
        node.values[property.name] = .list(elements)
        try touch(node)
    }

    package func listMove(_ object: Object, _ property: StoredProperty, _ from: Int, _ to: Int) throws {
        let node = try alive(object)
        var elements = try list(node, property)
        guard from >= 0, from < elements.count else { throw outOfRange(node, property, from, elements.count) }
        guard to >= 0, to < elements.count else { throw outOfRange(node, property, to, elements.count) }
        guard from != to else { return }
        elements.insert(elements.remove(at: from), at: to)
        node.values[property.name] = .list(elements)
        try touch(node)
    }

    package func clearCollection(_ object: Object, _ property: StoredProperty) throws {
        let node = try alive(object)
        switch try value(node, property) {
        case .list(let elements):
            for element in elements { element.node?.kill() }
            node.values[property.name] = .list([])
        case .set:
            node.values[property.name] = .set([])
        case .dictionary(let entries):
            for entry in entries { entry.element.node?.kill() }
            node.values[property.name] = .dictionary([])
        case .single, .embedded:
            throw PostgresObjectError("'\(node.className).\(property.name)' is not a collection")
        }
        try touch(node)
    }

    package func setInsert(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        let node = try alive(object)
        var values = try set(node, property)
        let stored = try storable(value, for: property, of: node.className, inCollection: true)
        let (index, found) = try position(of: stored, in: values)
        guard !found else { return }
        values.insert(stored, at: index)
        node.values[property.name] = .set(values)
        try touch(node)
    }

    package func setErase(_ object: Object, _ property: StoredProperty, _ value: WireValue) throws {
        let node = try alive(object)
        var values = try set(node, property)
        let stored = try storable(value, for: property, of: node.className, inCollection: true, writing: false)
        let (index, found) = try position(of: stored, in: values)
        guard found else { return }
        values.remove(at: index)
        node.values[property.name] = .set(values)
        try touch(node)
    }

    package func dictionarySet(_ object: Object, _ property: StoredProperty, _ key: String, _ value: WireValue) throws {
        let node = try alive(object)
        var entries = try dictionary(node, property)
        try PostgresObjectValues.checkKey(key, for: property, of: node.className)
        let stored = try storable(value, for: property, of: node.className, inCollection: true)
        if stored != .null { try refuseEmbedded(node, property) }
        put(.value(stored), at: key, in: &entries)
        node.values[property.name] = .dictionary(entries)
        try touch(node)
    }

    package func dictionaryErase(_ object: Object, _ property: StoredProperty, _ key: String) throws {
        let node = try alive(object)
        var entries = try dictionary(node, property)
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return }
        entries.remove(at: i).element.node?.kill()
        node.values[property.name] = .dictionary(entries)
        try touch(node)
    }

    package func createEmbedded(_ object: Object, _ property: StoredProperty, at position: WireEmbeddedPosition) throws -> Object {
        let node = try alive(object)
        guard let target = try schema().embeddedTarget(of: property) else {
            throw PostgresObjectError("'\(node.className).\(property.name)' does not link to an embedded class")
        }
        let child = PostgresObjectNode(className: target.name, owner: node.owner)
        node.adopt(child, as: property.name)
        // As ORCore reads the position: by the property's kind (a list takes index 0
        // for a position that gives none; a dictionary needs its key).
        switch property.collection {
        case .none:
            if case .embedded(let old?) = try value(node, property) { old.kill() }
            node.values[property.name] = .embedded(child)
        case .list:
            var elements = try list(node, property)
            let index: Int
            if case .listIndex(let at) = position { index = Int(clamping: at) } else { index = 0 }
            guard index <= elements.count else { throw outOfRange(node, property, index, elements.count) }
            elements.insert(.embedded(child), at: index)
            node.values[property.name] = .list(elements)
        case .dictionary:
            guard case .dictionaryKey(let key) = position else {
                throw PostgresObjectError("'\(node.className).\(property.name)' is a dictionary: give a string key")
            }
            var entries = try dictionary(node, property)
            try PostgresObjectValues.checkKey(key, for: property, of: node.className)
            put(.embedded(child), at: key, in: &entries)
            node.values[property.name] = .dictionary(entries)
        case .set:
            throw PostgresObjectError("'\(node.className).\(property.name)' is a set; sets cannot hold embedded objects")
        }
        try touch(node)
        return Object(node: child)
    }

    // MARK: Clocks

    package func clocks(of ref: WireObjectRef) throws -> PropertyClocks {
        let root = try self.root(ref)
        guard root.node != nil || root.changed else { throw PostgresObjectError("the owner \(ref) of an embedded object is missing") }
        return root.clocks
    }

    package func setClocks(_ clocks: PropertyClocks, of ref: WireObjectRef) {
        guard let root = roots[ref], root.node != nil || root.changed, root.clocks != clocks else { return }
        root.clocks = clocks
        root.changed = true
    }

    // MARK: Paths

    package func resolve(_ path: WireObjectPath, from root: StoredClass) throws -> (StoredClass, Object?) {
        try PostgresObjectPaths.resolve(path, from: root, schema: schema(), owner: { ref in try self.root(ref).node })
    }

    // MARK: Write-back

    /// Writes back the objects the changeset changed: the rows that link to erased
    /// objects have those links nulled, erased objects' rows are deleted, changed and
    /// created ones written (each a statement for many rows).
    package func finish() throws {
        guard !finished else { throw PostgresObjectError("the working set was finished already") }
        finished = true
        let schema = try self.schema()
        if !erasedRows.isEmpty {
            for row in try rows.rows(linkingTo: erasedRows) where roots[row.ref] == nil {
                try adopt([row], among: [])
                let root = roots[row.ref]!
                for erased in erasedRows { root.node?.removeLinks(to: erased) }
                root.changed = true
            }
        }
        var writes: [PostgresObjectRow] = []
        var deletes: [WireObjectRef] = []
        for root in roots.values where root.changed {
            guard let node = root.node else {
                if root.hadRow { deletes.append(root.ref) }
                continue
            }
            let links = node.linkedObjects()
            writes.append(PostgresObjectRow(
                ref: root.ref, key: root.key, properties: try PostImages.encoded(properties: node.imageProperties(schema)),
                clocks: root.clocks.encoded(), partition: root.partition, links: links,
                linkKeys: links.map { keys[$0] ?? 0 }))
        }
        try rows.delete(deletes)
        try rows.write(writes)
    }

    /// The image of the top-level object `ref` as the working set holds it now; nil
    /// when it is not stored (for a store's post-images and tests).
    package func image(_ ref: WireObjectRef) throws -> ObjectImage? {
        guard let node = try root(ref).node else { return nil }
        return ObjectImage(ref: ref, properties: node.imageProperties(try schema()))
    }

    /// The hidden partition of the top-level object `ref`, or nil.
    package func partition(_ ref: WireObjectRef) throws -> String? {
        try root(ref).partition
    }

    /// `refs` as the finished working set left them, for the version's post-images
    /// without reading back what ``finish()`` wrote; nil unless finished and every one
    /// of `refs` was in the working set.
    func postImageObjects(_ refs: [WireObjectRef]) throws -> [PostImages.Object]? {
        guard finished, refs.allSatisfy({ roots[$0] != nil }) else { return nil }
        let schema = try self.schema()
        return refs.map { ref in
            let root = roots[ref]!
            guard let node = root.node else { return PostImages.Object(ref: ref, image: nil, partition: nil) }
            return PostImages.Object(ref: ref, image: ObjectImage(ref: ref, properties: node.imageProperties(schema)),
                                     partition: root.partition)
        }
    }

    // MARK: Helpers

    private func alive(_ object: Object) throws -> PostgresObjectNode {
        guard object.node.isAlive else { throw PostgresObjectError("an object of class '\(object.node.className)' was erased") }
        return object.node
    }

    /// Marks the row of `node`'s owner to be written back.
    private func touch(_ node: PostgresObjectNode) throws {
        try root(node.owner).changed = true
    }

    private func value(_ node: PostgresObjectNode, _ property: StoredProperty) throws -> PostgresObjectNode.Value {
        try node.values[property.name] ?? PostgresObjectValues.defaultValue(property, schema())
    }

    private func list(_ node: PostgresObjectNode, _ property: StoredProperty) throws -> [PostgresObjectNode.Element] {
        guard property.collection == .list, case .list(let elements) = try value(node, property) else {
            throw PostgresObjectError("'\(node.className).\(property.name)' is not a list")
        }
        return elements
    }

    private func set(_ node: PostgresObjectNode, _ property: StoredProperty) throws -> [WireValue] {
        guard property.collection == .set, case .set(let values) = try value(node, property) else {
            throw PostgresObjectError("'\(node.className).\(property.name)' is not a set")
        }
        return values
    }

    private func dictionary(_ node: PostgresObjectNode, _ property: StoredProperty) throws -> [PostgresObjectNode.Entry] {
        guard property.collection == .dictionary, case .dictionary(let entries) = try value(node, property) else {
            throw PostgresObjectError("'\(node.className).\(property.name)' is not a dictionary")
        }
        return entries
    }

    /// Puts `element` at `key` (in key order), erasing an embedded object it replaces.
    private func put(_ element: PostgresObjectNode.Element, at key: String, in entries: inout [PostgresObjectNode.Entry]) {
        if let i = entries.firstIndex(where: { $0.key == key }) {
            entries[i].element.node?.kill()
            entries[i].element = element
        } else {
            let at = entries.firstIndex { PostgresObjectValues.keyPrecedes(key, $0.key) } ?? entries.count
            entries.insert(PostgresObjectNode.Entry(key: key, element: element), at: at)
        }
    }

    /// Refuses a value for a collection of embedded objects (they are created in place).
    private func refuseEmbedded(_ node: PostgresObjectNode, _ property: StoredProperty) throws {
        if try schema().embeddedTarget(of: property) != nil {
            throw PostgresObjectError("'\(node.className).\(property.name)' cannot take a link to an embedded object: create it in place")
        }
    }

    /// The value to store for `value`: a link to an object that is not stored is null;
    /// checked for the property as ORCore checks it.
    private func storable(_ value: WireValue, for property: StoredProperty, of className: String, inCollection: Bool,
                          writing: Bool = true) throws -> WireValue {
        var stored = value
        if case .link(let ref) = value, property.type == .mixed, ref.className.hasPrefix(StorageConventions.reservedPrefix) {
            // The server's own classes (accounts: on the embedded store, tables of the
            // app's file) hold no objects here: a mixed link into one is a link to a
            // missing object, null, which the write authorizer then refuses as any link
            // outside the view — the same answer on both stores, whatever the target.
            stored = .null
        } else if case .link(let ref) = value {
            guard let target = try schema().storedClass(named: ref.className) else {
                throw PostgresObjectError("link to \(ref): no class '\(ref.className)'")
            }
            guard !target.isEmbedded else {
                throw PostgresObjectError("link to \(ref): class '\(ref.className)' is embedded and has no primary key")
            }
            if try root(ref).node == nil { stored = .null }
        }
        try PostgresObjectValues.check(stored, for: property, of: className, inCollection: inCollection, writing: writing)
        return stored
    }

    /// Where `value` is or would go in a set's `values` (ORCore's value order).
    private func position(of value: WireValue, in values: [WireValue]) throws -> (Int, Bool) {
        let schema = try self.schema()
        let order = { (ref: WireObjectRef) -> (UInt32, UInt64) in
            (UInt32(truncatingIfNeeded: schema.storedClass(named: ref.className)?.slot.rawValue ?? 0),
             UInt64(bitPattern: self.keys[ref] ?? 0))
        }
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            let c = PostgresObjectValues.compare(values[mid], value, schema: schema, linkOrder: order)
            if c == 0 { return (mid, true) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    private func primaryKeyValue(of node: PostgresObjectNode) throws -> WireValue {
        node.owner.primaryKey.value
    }

    private func outOfRange(_ node: PostgresObjectNode, _ property: StoredProperty, _ index: Int, _ count: Int) -> PostgresObjectError {
        PostgresObjectError("index \(index) is past the end of '\(node.className).\(property.name)' (\(count) elements)")
    }
}
