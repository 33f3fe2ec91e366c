import Foundation
import ORCore

/// What the commits between two versions did, read from the changeset log: per table,
/// the objects created, erased and modified (with the columns modified), the
/// operations on each collection property in commit order, and whether the schema
/// changed. Notifications are computed from it without reading the objects that did
/// not change.
///
/// Derived instructions (a link nulled because its target was erased, an embedded
/// object erased with its parent) are counted: they are changes the observer sees. A
/// change to an embedded object also counts as a change of its parent's property, up
/// to the top-level object that owns it.
struct ChangeSummary {
    /// A collection property of one object.
    struct CollectionID: Hashable {
        let table: UInt32
        let key: UInt64
        let column: UInt16
    }

    /// One operation on a collection, in commit order.
    enum CollectionOp: Equatable {
        case insert(Int)
        case erase(Int)
        case set(Int)
        case move(from: Int, to: Int)
        case clear
        /// A set gained or lost a value (positions come from the value order).
        case setChanged
        /// A dictionary key was set or removed.
        case dictSet(String)
        case dictErase(String)
    }

    /// What happened to the objects of one table.
    struct TableChanges {
        var created: Set<UInt64> = []
        var erased: Set<UInt64> = []
        /// The columns changed per object (collection operations included).
        var modified: [UInt64: Set<UInt16>] = [:]

        /// Objects created, erased or modified.
        var isEmpty: Bool { created.isEmpty && erased.isEmpty && modified.isEmpty }
    }

    private(set) var tables: [UInt32: TableChanges] = [:]
    private(set) var collections: [CollectionID: [CollectionOp]] = [:]
    /// Whether a class or property was added, removed or changed.
    private(set) var schemaChanged = false
    /// The number of instructions read (0: the commits changed nothing).
    private(set) var instructionCount = 0
    /// The versions the summary covers: after `from`, up to and including `to`.
    let from: UInt64
    let to: UInt64

    /// Why a summary could not be read.
    enum Failure: Error {
        /// A changeset in the range was trimmed from the log.
        case trimmed
        /// A changeset could not be read or decoded.
        case unreadable(RealmError)
    }

    /// Reads the changesets after `from` up to `to` through `txn`, which must see `to`.
    init(txn: OpaquePointer, from: UInt64, to: UInt64, schema: StoredSchema) throws(Failure) {
        self.from = from
        self.to = to
        guard to > from else { return }
        var embeddedTouched: [(table: UInt32, key: UInt64)] = []
        for version in (from + 1)...to {
            var data: UnsafeRawPointer?
            var size = 0
            let status = orc_log_get(txn, version, &data, &size)
            if status == ORC_ERR_TRIMMED { throw .trimmed }
            if status != ORC_OK { throw .unreadable(ORC.error(status, "Reading the changeset of version \(version)")) }
            var iterator = orc_changeset_iter()
            let initStatus = orc_changeset_iter_init(&iterator, data, size)
            if initStatus != ORC_OK { throw .unreadable(ORC.error(initStatus, "Reading the changeset of version \(version)")) }
            var instruction = orc_instr()
            while true {
                let next = orc_changeset_iter_next(&iterator, &instruction)
                if next == ORC_ERR_NOT_FOUND { break }
                if next != ORC_OK { throw .unreadable(ORC.error(next, "Decoding the changeset of version \(version)")) }
                instructionCount += 1
                record(instruction, schema: schema, embeddedTouched: &embeddedTouched)
            }
        }
        propagateToOwners(embeddedTouched, txn: txn, schema: schema)
    }

    /// The changes of one table (empty when nothing happened to it).
    subscript(table table: UInt32) -> TableChanges { tables[table] ?? TableChanges() }

    /// Whether anything happened to objects of `table`.
    func touches(table: UInt32) -> Bool { !(tables[table]?.isEmpty ?? true) }

    /// Whether any object of any table was created, erased or modified.
    var touchesObjects: Bool { tables.values.contains { !$0.isEmpty } }

    /// The operations on one collection property, in commit order.
    func operations(_ id: CollectionID) -> [CollectionOp] { collections[id] ?? [] }

    /// The columns changed of one object, nil when it was not modified.
    func modifiedColumns(table: UInt32, key: UInt64) -> Set<UInt16>? { tables[table]?.modified[key] }

    // MARK: Recording

    private mutating func markModified(_ table: UInt32, _ key: UInt64, _ column: UInt16) {
        tables[table, default: TableChanges()].modified[key, default: []].insert(column)
    }

    private mutating func addOp(_ table: UInt32, _ key: UInt64, _ column: UInt16, _ op: CollectionOp) {
        collections[CollectionID(table: table, key: key, column: column), default: []].append(op)
        markModified(table, key, column)
    }

    private mutating func record(_ i: orc_instr, schema: StoredSchema, embeddedTouched: inout [(table: UInt32, key: UInt64)]) {
        let table = i.table, key = i.key, column = i.col
        let isEmbedded = schema[table: table]?.kind == ORC_CLASS_EMBEDDED
        switch i.op {
        case ORC_INSTR_CREATE:
            tables[table, default: TableChanges()].created.insert(key)
        case ORC_INSTR_ERASE:
            tables[table, default: TableChanges()].erased.insert(key)
        case ORC_INSTR_SET, ORC_INSTR_ADD_INT:
            // The initial values of a new object are part of its creation.
            if i.flags & UInt32(ORC_INSTR_INITIAL) != 0 { return }
            markModified(table, key, column)
            if isEmbedded { embeddedTouched.append((table, key)) }
        case ORC_INSTR_LIST_INSERT:
            addOp(table, key, column, .insert(Int(i.index)))
        case ORC_INSTR_LIST_SET:
            addOp(table, key, column, .set(Int(i.index)))
        case ORC_INSTR_LIST_ERASE:
            addOp(table, key, column, .erase(Int(i.index)))
        case ORC_INSTR_LIST_MOVE:
            addOp(table, key, column, .move(from: Int(i.index), to: Int(i.index2)))
        case ORC_INSTR_COLL_CLEAR:
            addOp(table, key, column, .clear)
        case ORC_INSTR_SET_INSERT, ORC_INSTR_SET_ERASE:
            addOp(table, key, column, .setChanged)
        case ORC_INSTR_DICT_SET:
            addOp(table, key, column, .dictSet(Self.string(i.dict_key)))
        case ORC_INSTR_DICT_ERASE:
            addOp(table, key, column, .dictErase(Self.string(i.dict_key)))
        case ORC_INSTR_CREATE_EMBEDDED:
            tables[i.child_table, default: TableChanges()].created.insert(i.child_key)
            let collection = schema[table: table]?.properties.first { $0.column == column }?.collection ?? ORC_COLL_NONE
            if collection == ORC_COLL_LIST {
                addOp(table, key, column, .insert(Int(i.index)))
            } else if collection == ORC_COLL_DICT {
                addOp(table, key, column, .dictSet(Self.string(i.dict_key)))
            } else {
                markModified(table, key, column)
            }
        default:
            if i.op.rawValue >= ORC_INSTR_ADD_CLASS.rawValue && i.op.rawValue <= ORC_INSTR_SET_PRIMARY_KEY.rawValue {
                schemaChanged = true
            }
            // CLEAR_TABLE is followed by derived ERASEs, which record the objects.
        }
        if isEmbedded, i.op.rawValue >= ORC_INSTR_LIST_INSERT.rawValue, i.op.rawValue <= ORC_INSTR_CREATE_EMBEDDED.rawValue {
            embeddedTouched.append((table, key))
        }
    }

    private static func string(_ value: orc_value) -> String {
        guard value.type == ORC_TYPE_STRING, let data = value.string.data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: value.string.size), as: UTF8.self)
    }

    /// Marks the owners of changed embedded objects as modified, up to a top-level
    /// object: the property holding the embedded object changed.
    private mutating func propagateToOwners(_ touched: [(table: UInt32, key: UInt64)], txn: OpaquePointer, schema: StoredSchema) {
        guard !touched.isEmpty else { return }
        let graph = LinkGraph(schema)
        var seen = Set<ObjectRef>()
        var queue = touched.map { ObjectRef(table: $0.table, key: $0.key) }
        while let next = queue.popLast() {
            guard seen.insert(next).inserted, schema[table: next.table]?.kind == ORC_CLASS_EMBEDDED else { continue }
            for edge in graph.incoming(next.table) {
                for owner in Backlinks.keys(txn, next, originTable: edge.table, originColumn: edge.column) {
                    markModified(edge.table, owner, edge.column)
                    queue.append(ObjectRef(table: edge.table, key: owner))
                }
            }
        }
    }
}

/// An object named by table and key.
struct ObjectRef: Hashable {
    let table: UInt32
    let key: UInt64
}

/// Reading links in both directions, for change propagation.
enum Backlinks {
    /// The objects of `originTable` whose `originColumn` links to `target` (empty when none or on failure).
    static func keys(_ txn: OpaquePointer, _ target: ObjectRef, originTable: UInt32, originColumn: UInt16) -> [UInt64] {
        var out = orc_keys()
        defer { orc_keys_free(&out) }
        guard orc_obj_backlinks(txn, target.table, target.key, originTable, originColumn, &out) == ORC_OK, out.count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: out.keys, count: out.count))
    }

    /// The objects `column` of (`table`, `key`) links to: a link, a collection of links,
    /// or a mixed value holding a link.
    static func targets(_ txn: OpaquePointer, table: UInt32, key: UInt64, column: UInt16, collection: orc_collection) -> [ObjectRef] {
        if collection == ORC_COLL_NONE {
            var value = orc_value()
            guard orc_obj_get(txn, table, key, column, &value) == ORC_OK, value.type == ORC_TYPE_LINK else { return [] }
            return [ObjectRef(table: value.link.table, key: value.link.key)]
        }
        var size = 0
        guard orc_coll_size(txn, table, key, column, &size) == ORC_OK else { return [] }
        var result: [ObjectRef] = []
        result.reserveCapacity(size)
        for i in 0..<size {
            var value = orc_value()
            if orc_coll_get(txn, table, key, column, i, &value) == ORC_OK, value.type == ORC_TYPE_LINK {
                result.append(ObjectRef(table: value.link.table, key: value.link.key))
            }
        }
        return result
    }
}
