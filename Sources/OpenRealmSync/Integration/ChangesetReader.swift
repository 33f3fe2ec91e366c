import Foundation
import ORCore
import OpenRealmWire

/// Reads a local commit from the ORCore changeset log as wire instructions
/// (`docs/PROTOCOL.md` §5.2): objects named by class and primary key, properties by
/// name, derived instructions left out, a `CREATE` and its initial `SET`s merged into one
/// `createObject`, `ADD_CLASS` / `ADD_PROP` as `addClass` / `addProperty`.
///
/// What does not sync is left out: objects of classes without a primary key, embedded
/// objects (the server does not take them yet), destructive schema changes, and links
/// whose target can no longer be named.
enum ChangesetReader {
    /// The instructions of the commit of `version` (empty when the commit logged none).
    ///
    /// - Throws: ``SyncError`` when the log entry was trimmed or is damaged.
    static func instructions(_ txn: OpaquePointer, version: UInt64) throws -> [WireInstruction] {
        var data: UnsafeRawPointer?
        var size = 0
        let status = orc_log_get(txn, version, &data, &size)
        if status == ORC_ERR_NOT_FOUND { return [] }
        guard status == ORC_OK, let data else {
            throw SyncError(.otherError, "Reading local changes of version \(version) from the changeset log failed: \(String(cString: orc_last_error()))")
        }
        var it = orc_changeset_iter()
        guard orc_changeset_iter_init(&it, data, size) == ORC_OK else {
            throw SyncError(.otherError, "The changeset of version \(version) is damaged: \(String(cString: orc_last_error()))")
        }
        let values = ValueConversion(txn: txn)
        var out: [WireInstruction] = []
        var create: (className: String, pk: WirePrimaryKey, values: [WirePropertyValue])?
        func flush() {
            if let c = create { out.append(.createObject(className: c.className, primaryKey: c.pk, values: c.values)) }
            create = nil
        }
        var instr = orc_instr()
        while true {
            let next = orc_changeset_iter_next(&it, &instr)
            if next == ORC_ERR_NOT_FOUND { break }
            guard next == ORC_OK else {
                throw SyncError(.otherError, "The changeset of version \(version) is damaged: \(String(cString: orc_last_error()))")
            }
            if instr.flags & UInt32(ORC_INSTR_DERIVED) != 0 { continue }
            if instr.flags & UInt32(ORC_INSTR_INITIAL) != 0, instr.op == ORC_INSTR_SET {
                if create != nil, let prop = values.property(instr.table, column: instr.col),
                   prop.flags & UInt32(ORC_PROP_PRIMARY_KEY) == 0, let value = values.wireValue(instr.value) {
                    create!.values.append(WirePropertyValue(ValueConversion.name(prop.name), value))
                }
                continue
            }
            flush()
            if let instruction = translate(instr, values, &create) { out.append(instruction) }
        }
        flush()
        return out
    }

    private static func objectPath(_ instr: orc_instr, _ values: ValueConversion) -> (WireObjectPath, orc_class_info)? {
        guard instr.has_pk, let cls = values.classInfo(table: instr.table), cls.kind != ORC_CLASS_EMBEDDED,
              let pkValue = values.wireValue(instr.pk), let pk = WirePrimaryKey(pkValue) else { return nil }
        return (WireObjectPath(className: ValueConversion.name(cls.name), primaryKey: pk), cls)
    }

    private static func translate(_ instr: orc_instr, _ values: ValueConversion,
                                  _ create: inout (className: String, pk: WirePrimaryKey, values: [WirePropertyValue])?) -> WireInstruction? {
        func prop() -> String? { values.property(instr.table, column: instr.col).map { ValueConversion.name($0.name) } }
        func value() -> WireValue? { values.wireValue(instr.value) }
        func key() -> String {
            String(decoding: UnsafeRawBufferPointer(start: instr.dict_key.string.data, count: instr.dict_key.string.size), as: UTF8.self)
        }
        switch instr.op {
        case ORC_INSTR_CREATE:
            guard let (path, _) = objectPath(instr, values) else { return nil }
            create = (path.root.className, path.root.primaryKey, [])
            return nil
        case ORC_INSTR_ERASE:
            guard let (path, _) = objectPath(instr, values) else { return nil }
            return .eraseObject(path)
        case ORC_INSTR_SET:
            guard let (path, cls) = objectPath(instr, values), Int32(instr.col) != cls.pk_col,
                  let name = prop(), let v = value() else { return nil }
            return .set(object: path, property: name, value: v)
        case ORC_INSTR_ADD_INT:
            guard let (path, _) = objectPath(instr, values), let name = prop() else { return nil }
            return .addInteger(object: path, property: name, delta: instr.delta)
        case ORC_INSTR_LIST_INSERT:
            guard let (path, _) = objectPath(instr, values), let name = prop(), let v = value() else { return nil }
            return .listInsert(object: path, property: name, index: instr.index, value: v)
        case ORC_INSTR_LIST_SET:
            guard let (path, _) = objectPath(instr, values), let name = prop(), let v = value() else { return nil }
            return .listSet(object: path, property: name, index: instr.index, value: v)
        case ORC_INSTR_LIST_ERASE:
            guard let (path, _) = objectPath(instr, values), let name = prop() else { return nil }
            return .listErase(object: path, property: name, index: instr.index)
        case ORC_INSTR_LIST_MOVE:
            guard let (path, _) = objectPath(instr, values), let name = prop() else { return nil }
            return .listMove(object: path, property: name, from: instr.index, to: instr.index2)
        case ORC_INSTR_COLL_CLEAR:
            guard let (path, _) = objectPath(instr, values), let name = prop() else { return nil }
            return .clearCollection(object: path, property: name)
        case ORC_INSTR_SET_INSERT:
            guard let (path, _) = objectPath(instr, values), let name = prop(), let v = value() else { return nil }
            return .setInsert(object: path, property: name, value: v)
        case ORC_INSTR_SET_ERASE:
            guard let (path, _) = objectPath(instr, values), let name = prop(), let v = value() else { return nil }
            return .setErase(object: path, property: name, value: v)
        case ORC_INSTR_DICT_SET:
            guard let (path, _) = objectPath(instr, values), let name = prop(), let v = value() else { return nil }
            return .dictionarySet(object: path, property: name, key: key(), value: v)
        case ORC_INSTR_DICT_ERASE:
            guard let (path, _) = objectPath(instr, values), let name = prop() else { return nil }
            return .dictionaryErase(object: path, property: name, key: key())
        case ORC_INSTR_ADD_CLASS:
            let name = ValueConversion.name(instr.name, instr.name_len)
            guard let cls = values.classInfo(named: name) else { return nil }
            if cls.kind == ORC_CLASS_EMBEDDED {
                return .addClass(WireClassSchema(name: name, kind: .embedded, primaryKey: nil))
            }
            guard cls.pk_col >= 0, let pk = values.property(cls.table, column: UInt16(cls.pk_col)),
                  let type = WirePropertyType(rawValue: UInt8(pk.type.rawValue)) else { return nil }
            return .addClass(WireClassSchema(name: name, kind: cls.kind == ORC_CLASS_ASYMMETRIC ? .asymmetric : .topLevel,
                                             primaryKey: WirePrimaryKeySchema(name: ValueConversion.name(pk.name), type: type,
                                                                              isOptional: pk.flags & UInt32(ORC_PROP_OPTIONAL) != 0)))
        case ORC_INSTR_ADD_PROP:
            guard let cls = values.classInfo(table: instr.table), cls.kind == ORC_CLASS_EMBEDDED || cls.pk_col >= 0,
                  Int32(instr.col) != cls.pk_col,
                  let type = WirePropertyType(rawValue: UInt8(instr.prop_type.rawValue)),
                  let collection = WireCollectionKind(rawValue: UInt8(instr.collection.rawValue)) else { return nil }
            var target: String?
            if type == .link {
                guard let targetClass = values.classInfo(table: instr.link_table) else { return nil }
                target = ValueConversion.name(targetClass.name)
            }
            return .addProperty(className: ValueConversion.name(cls.name), property: WirePropertySchema(
                name: ValueConversion.name(instr.name, instr.name_len), type: type, collection: collection,
                isOptional: instr.prop_flags & UInt32(ORC_PROP_OPTIONAL) != 0, isIndexed: instr.prop_flags & UInt32(ORC_PROP_INDEXED) != 0,
                linkTarget: target))
        default:
            return nil
        }
    }
}
