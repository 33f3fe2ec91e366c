import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Applies downloaded wire instructions to the realm inside the session's write
/// transaction, so that `Realm` instances and observers see them as one commit.
///
/// The server has already resolved conflicts among what it integrated, list
/// instructions have been transformed against the client's unacknowledged edits and
/// writes those edits win have been left out (``PendingEdits``), so instructions apply
/// as they come. Embedded objects are reached by their paths (``ValueConversion/resolve(_:_:)``)
/// and created in place. What this file cannot hold is skipped: classes and properties
/// its schema lacks (another client's model), objects it does not hold, schema
/// instructions (the local schema comes from the app's models). A `createObject` of an
/// existing object merges into it.
///
/// `createObject`, most of a bootstrap, takes a path of its own (``ObjectCreator``):
/// a class's columns are resolved once per run of objects with the same properties,
/// and each object's values go straight into reused buffers and one ORCore call.
struct ChangesetApplier {
    let txn: OpaquePointer
    private let values: ValueConversion
    private let scratch = ValueScratch()
    private var creator: ObjectCreator
    /// How many instructions were skipped (for diagnostics and tests).
    private(set) var skipped = 0

    init(txn: OpaquePointer) {
        self.txn = txn
        values = ValueConversion(txn: txn)
        creator = ObjectCreator(values)
    }

    mutating func apply(_ instructions: [WireInstruction]) {
        var i = 0
        while i < instructions.count {
            defer { scratch.reset() }
            // Inserts at consecutive positions of one list (an object sent whole, a
            // bootstrap): one rewrite of the list, not one per element.
            if case .listInsert(let path, let property, let index, _) = instructions[i] {
                var end = i + 1
                while end < instructions.count, case .listInsert(let p, let q, let at, _) = instructions[end],
                      at == index &+ UInt64(end - i), q == property, p == path {
                    end += 1
                }
                if end - i > 1, applyInserts(instructions[i..<end], path, property, index) {
                    i = end
                    continue
                }
            }
            if !apply(instructions[i]) { skipped += 1 }
            i += 1
        }
        // Links created objects made to objects created after them.
        _ = creator.resolvePendingLinks(scratch)
    }

    /// Applies `run`, `listInsert`s of `path.property` at `index`, `index + 1`, ..., in
    /// one ORCore call; false (nothing applied) when one of them cannot go in that
    /// way, for the instructions to be applied one by one.
    private func applyInserts(_ run: ArraySlice<WireInstruction>, _ path: WireObjectPath, _ property: String,
                              _ index: UInt64) -> Bool {
        guard let (cls, key) = target(path), let col = column(cls, property) else { return false }
        var converted: [orc_value] = []
        converted.reserveCapacity(run.count)
        for case .listInsert(_, _, _, let value) in run {
            guard let v = values.orcValue(value, scratch) else { return false }
            converted.append(v)
        }
        var size = 0
        _ = orc_coll_size(txn, cls.table, key, col, &size)
        // Past the end, each insert would be clamped to the end in turn.
        let at = min(Int(clamping: index), size)
        return converted.withUnsafeBufferPointer {
            orc_list_insert_many(txn, cls.table, key, col, at, $0.baseAddress, $0.count) == ORC_OK
        }
    }

    /// The class and object key an instruction's path names.
    private func target(_ path: WireObjectPath) -> (orc_class_info, UInt64)? {
        values.resolve(path, scratch)
    }

    /// The single values among `initial` that `cls` has, as columns and ORCore values
    /// (the primary key, collections and links to embedded objects left out).
    private func singleValues(_ cls: orc_class_info, _ initial: [WirePropertyValue]) -> ([UInt16], [orc_value]) {
        var cols: [UInt16] = []
        var vals: [orc_value] = []
        for v in initial {
            guard let prop = values.property(cls.table, named: v.name), prop.collection == ORC_COLL_NONE,
                  Int32(prop.col) != cls.pk_col, values.embeddedTarget(prop) == nil,
                  let value = values.orcValue(v.value, scratch) else { continue }
            cols.append(prop.col)
            vals.append(value)
        }
        return (cols, vals)
    }

    private func column(_ cls: orc_class_info, _ name: String) -> UInt16? {
        values.property(cls.table, named: name).map(\.col)
    }

    private mutating func apply(_ instruction: WireInstruction) -> Bool {
        switch instruction {
        case .createObject(let className, let pk, let initial):
            return creator.create(className, pk, initial, scratch)
        case .eraseObject(let path):
            guard let (cls, key) = target(path) else { return false }
            creator.forget(table: cls.table, key: key, column: nil)
            return orc_obj_erase(txn, cls.table, key) == ORC_OK
        case .set(let path, let property, let value):
            // A link to an embedded object is only ever set to null (which erases it).
            guard let (cls, key) = target(path), let prop = values.property(cls.table, named: property),
                  Int32(prop.col) != cls.pk_col, values.embeddedTarget(prop) == nil || value == .null,
                  var v = values.orcValue(value, scratch) else { return false }
            creator.forget(table: cls.table, key: key, column: prop.col)
            return orc_obj_set(txn, cls.table, key, prop.col, &v) == ORC_OK
        case .addInteger(let path, let property, let delta):
            guard let (cls, key) = target(path), let col = column(cls, property) else { return false }
            return orc_obj_add_int(txn, cls.table, key, col, delta) == ORC_OK
        case .listInsert(let path, let property, let index, let value):
            guard let (cls, key) = target(path), let col = column(cls, property), var v = values.orcValue(value, scratch) else { return false }
            var size = 0
            _ = orc_coll_size(txn, cls.table, key, col, &size)
            return orc_list_insert(txn, cls.table, key, col, min(Int(clamping: index), size), &v) == ORC_OK
        case .listSet(let path, let property, let index, let value):
            guard let (cls, key) = target(path), let col = column(cls, property), var v = values.orcValue(value, scratch) else { return false }
            return orc_list_set(txn, cls.table, key, col, Int(clamping: index), &v) == ORC_OK
        case .listErase(let path, let property, let index):
            guard let (cls, key) = target(path), let col = column(cls, property) else { return false }
            return orc_list_erase(txn, cls.table, key, col, Int(clamping: index)) == ORC_OK
        case .listMove(let path, let property, let from, let to):
            guard let (cls, key) = target(path), let col = column(cls, property) else { return false }
            return orc_list_move(txn, cls.table, key, col, Int(clamping: from), Int(clamping: to)) == ORC_OK
        case .clearCollection(let path, let property):
            guard let (cls, key) = target(path), let col = column(cls, property) else { return false }
            return orc_coll_clear(txn, cls.table, key, col) == ORC_OK
        case .setInsert(let path, let property, let value):
            guard let (cls, key) = target(path), let col = column(cls, property), var v = values.orcValue(value, scratch) else { return false }
            return orc_set_insert(txn, cls.table, key, col, &v, nil) == ORC_OK
        case .setErase(let path, let property, let value):
            guard let (cls, key) = target(path), let col = column(cls, property), var v = values.orcValue(value, scratch) else { return false }
            return orc_set_erase(txn, cls.table, key, col, &v, nil) == ORC_OK
        case .dictionarySet(let path, let property, let dictKey, let value):
            guard let (cls, key) = target(path), let col = column(cls, property), var v = values.orcValue(value, scratch) else { return false }
            let k = Array(dictKey.utf8)
            return orc_dict_set(txn, cls.table, key, col, scratch.copy(k), k.count, &v) == ORC_OK
        case .dictionaryErase(let path, let property, let dictKey):
            guard let (cls, key) = target(path), let col = column(cls, property) else { return false }
            let k = Array(dictKey.utf8)
            return orc_dict_erase(txn, cls.table, key, col, scratch.copy(k), k.count, nil) == ORC_OK
        case .createEmbeddedObject(let path, let property, let position, let initial):
            guard let (cls, key) = target(path), let prop = values.property(cls.table, named: property),
                  let childClass = values.embeddedTarget(prop) else { return false }
            var child: UInt64 = 0
            let status: Int32
            switch (position, prop.collection) {
            case (.single, ORC_COLL_NONE):
                status = orc_obj_create_embedded(txn, cls.table, key, prop.col, 0, nil, &child)
            case (.listIndex(let index), ORC_COLL_LIST):
                var size = 0
                _ = orc_coll_size(txn, cls.table, key, prop.col, &size)
                status = orc_obj_create_embedded(txn, cls.table, key, prop.col, min(Int(clamping: index), size), nil, &child)
            case (.dictionaryKey(let dkey), ORC_COLL_DICT):
                guard var k = values.orcValue(.string(dkey), scratch) else { return false }
                status = orc_obj_create_embedded(txn, cls.table, key, prop.col, 0, &k, &child)
            default:
                return false
            }
            guard status == ORC_OK else { return false }
            let (cols, vals) = singleValues(childClass, initial)
            return cols.isEmpty || orc_obj_set_many(txn, childClass.table, child, cols, vals, cols.count) == ORC_OK
        case .addClass, .addProperty:
            return false
        }
    }
}
