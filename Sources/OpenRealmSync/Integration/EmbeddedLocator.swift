import ORCore
import OpenRealmWire

/// Where an embedded object was when a logged local instruction was made, as a wire
/// path from its top-level owner (for uploads and pending edits).
///
/// The changeset log names an embedded object by its table and object key only. Its
/// owner and its place in the owner never change (an embedded object has one parent,
/// `orcore.h`), so the path is read from the file as it is now, then list positions on
/// the way are carried back to the time of the instruction: every list edit logged
/// after it (in its own changeset and in every later commit, downloads included) is
/// undone on the position, newest first.
///
/// An object that no longer exists has no path: an instruction on it is left out of
/// the upload, since a later local commit removed the object (and that removal is
/// uploaded) or a download did (and the server drops writes to erased objects).
final class EmbeddedLocator {
    /// One list edit of the log, reduced to what moves positions.
    private struct ListEdit {
        enum Kind { case insert(UInt64), erase(UInt64), move(UInt64, UInt64), clear }
        var table: UInt32
        var key: UInt64
        var col: UInt16
        var kind: Kind
    }

    private let txn: OpaquePointer
    private let values: ValueConversion
    private let version: UInt64
    /// The list edits of the changeset being read, by instruction ordinal.
    private var current: [(ordinal: Int, edit: ListEdit)] = []
    /// The list edits of the commits after it, oldest first (read on first use).
    private var later: [ListEdit]?
    /// The properties that link to each embedded table (read on first use).
    private var owners: [UInt32: [(table: UInt32, prop: orc_prop_info)]]?

    /// A locator for the instructions of the commit of `version`, whose decoded
    /// instructions are `instructions` (in log order, derived ones included).
    init(_ txn: OpaquePointer, _ values: ValueConversion, version: UInt64, instructions: [orc_instr]) {
        self.txn = txn
        self.values = values
        self.version = version
        for (i, instr) in instructions.enumerated() {
            if let edit = listEdit(instr) { current.append((i, edit)) }
        }
    }

    /// The path of object (`table`, `key`) as it was just before instruction `ordinal`
    /// of the changeset; a top-level object's path has no steps. Nil when the object
    /// (or an owner on the way) no longer exists, or was created after that point.
    func path(table: UInt32, key: UInt64, at ordinal: Int) -> WireObjectPath? {
        guard let cls = values.classInfo(table: table) else { return nil }
        if cls.kind != ORC_CLASS_EMBEDDED {
            guard let ref = values.objectRef(table: table, key: key) else { return nil }
            return WireObjectPath(ref)
        }
        guard let (ownerTable, ownerKey, prop) = owner(table: table, key: key),
              var ownerPath = path(table: ownerTable, key: ownerKey, at: ordinal) else { return nil }
        let name = ValueConversion.name(prop.name)
        let link = orc_value.link(table: table, key: key)
        switch prop.collection {
        case ORC_COLL_NONE:
            ownerPath.path.append(.property(name))
        case ORC_COLL_LIST:
            var index = 0
            guard withUnsafePointer(to: link, { orc_coll_find(txn, ownerTable, ownerKey, prop.col, $0, &index) }) == ORC_OK,
                  let then = position(UInt64(index), list: (ownerTable, ownerKey, prop.col), before: ordinal) else { return nil }
            ownerPath.path += [.property(name), .index(then)]
        case ORC_COLL_DICT:
            guard let dkey = dictionaryKey(of: key, in: (ownerTable, ownerKey, prop.col)) else { return nil }
            ownerPath.path += [.property(name), .key(dkey)]
        default:
            return nil
        }
        return ownerPath
    }

    // MARK: Owners

    /// The object holding embedded object (`table`, `key`) and the property it is in.
    private func owner(table: UInt32, key: UInt64) -> (UInt32, UInt64, orc_prop_info)? {
        for (ownerTable, prop) in linkingProperties(to: table) {
            var keys = orc_keys()
            defer { orc_keys_free(&keys) }
            guard orc_obj_backlinks(txn, table, key, ownerTable, prop.col, &keys) == ORC_OK, keys.count > 0 else { continue }
            return (ownerTable, keys.keys[0], prop)
        }
        return nil
    }

    private func linkingProperties(to table: UInt32) -> [(table: UInt32, prop: orc_prop_info)] {
        if owners == nil {
            var map: [UInt32: [(table: UInt32, prop: orc_prop_info)]] = [:]
            for i in 0..<orc_schema_class_count(txn) {
                var cls = orc_class_info()
                guard orc_schema_class_at(txn, i, &cls) == ORC_OK else { continue }
                var j: UInt32 = 0
                var prop = orc_prop_info()
                while orc_schema_prop_at(txn, cls.table, j, &prop) == ORC_OK {
                    if prop.type == ORC_TYPE_LINK { map[prop.link_table, default: []].append((cls.table, prop)) }
                    j += 1
                }
            }
            owners = map
        }
        return owners?[table] ?? []
    }

    private func dictionaryKey(of key: UInt64, in dict: (UInt32, UInt64, UInt16)) -> String? {
        var size = 0
        guard orc_coll_size(txn, dict.0, dict.1, dict.2, &size) == ORC_OK else { return nil }
        for i in 0..<size {
            var value = orc_value()
            var dkey = orc_value()
            guard orc_coll_get(txn, dict.0, dict.1, dict.2, i, &value) == ORC_OK,
                  value.type == ORC_TYPE_LINK, value.link.key == key,
                  orc_dict_key_at(txn, dict.0, dict.1, dict.2, i, &dkey) == ORC_OK,
                  case .string(let s)? = values.wireValue(dkey) else { continue }
            return s
        }
        return nil
    }

    // MARK: Positions back in time

    /// Position `index` (now) of a list carried back to just before instruction
    /// `ordinal` of the changeset; nil when the element was not in the list then.
    private func position(_ index: UInt64, list: (UInt32, UInt64, UInt16), before ordinal: Int) -> UInt64? {
        var q = index
        let mine = { (e: ListEdit) in e.table == list.0 && e.key == list.1 && e.col == list.2 }
        for edit in laterEdits().reversed() where mine(edit) {
            guard let back = undo(edit.kind, q) else { return nil }
            q = back
        }
        for (i, edit) in current.reversed() where i >= ordinal && mine(edit) {
            guard let back = undo(edit.kind, q) else { return nil }
            q = back
        }
        return q
    }

    /// Where the element at `q` after `kind` was before it; nil when `kind` put it there.
    private func undo(_ kind: ListEdit.Kind, _ q: UInt64) -> UInt64? {
        switch kind {
        case .insert(let p):
            if q == p { return nil }
            return q > p ? q - 1 : q
        case .erase(let p):
            return q >= p ? q + 1 : q
        case .move(let from, let to):
            if q == to { return from }
            let without = q > to ? q - 1 : q
            return without >= from ? without + 1 : without
        case .clear:
            return nil
        }
    }

    private func laterEdits() -> [ListEdit] {
        if let later { return later }
        var out: [ListEdit] = []
        let head = orc_txn_version(txn)
        var v = version + 1
        while v <= head {
            defer { v += 1 }
            var data: UnsafeRawPointer?
            var size = 0
            var it = orc_changeset_iter()
            guard orc_log_get(txn, v, &data, &size) == ORC_OK, let data,
                  orc_changeset_iter_init(&it, data, size) == ORC_OK else { continue }
            var instr = orc_instr()
            while orc_changeset_iter_next(&it, &instr) == ORC_OK {
                if let edit = listEdit(instr) { out.append(edit) }
            }
        }
        later = out
        return out
    }

    private func listEdit(_ instr: orc_instr) -> ListEdit? {
        let kind: ListEdit.Kind
        switch instr.op {
        case ORC_INSTR_LIST_INSERT: kind = .insert(instr.index)
        case ORC_INSTR_LIST_ERASE: kind = .erase(instr.index)
        case ORC_INSTR_LIST_MOVE: kind = .move(instr.index, instr.index2)
        case ORC_INSTR_COLL_CLEAR: kind = .clear
        case ORC_INSTR_CREATE_EMBEDDED:
            guard instr.dict_key.type != ORC_TYPE_STRING, let prop = values.property(instr.table, column: instr.col),
                  prop.collection == ORC_COLL_LIST else { return nil }
            kind = .insert(instr.index)
        default:
            return nil
        }
        return ListEdit(table: instr.table, key: instr.key, col: instr.col, kind: kind)
    }
}
