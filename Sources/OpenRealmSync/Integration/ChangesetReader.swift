import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Reads a local commit from the ORCore changeset log as wire instructions
/// (`docs/PROTOCOL.md` §5.2): objects named by class and primary key, properties by
/// name, derived instructions left out, a `CREATE` and its initial `SET`s merged into one
/// `createObject`, `ADD_CLASS` / `ADD_PROP` as `addClass` / `addProperty`.
///
/// Embedded objects are named by their path from the top-level owner as it was when
/// the instruction was made (``EmbeddedLocator``): `CREATE_EMBEDDED` and the values set
/// on the new object right after it become one `createEmbeddedObject`, and an erase of
/// an embedded object an `eraseObject` of its path.
///
/// What does not sync is left out: objects of classes without a primary key,
/// destructive schema changes, links whose target can no longer be named, and
/// instructions on embedded objects that no longer exist (a later commit removed them).
enum ChangesetReader {
    /// A `createEmbeddedObject` being read: the values set on the new object right after
    /// its `CREATE_EMBEDDED` join it.
    private struct EmbeddedCreate {
        var table: UInt32
        var key: UInt64
        var parent: WireObjectPath
        var property: String
        var position: WireEmbeddedPosition
        var values: [WirePropertyValue]
    }

    /// The versions of the local commits in (after, head], oldest first, lazily: every
    /// commit but those that integrated a download (the server's changes, never
    /// uploaded). Walk it forwards to read them all, or `reversed()` to find the last.
    static func localVersions(_ txn: ORCoreTransaction, after: UInt64, through head: UInt64)
        -> some BidirectionalCollection<UInt64> {
        let integrated = head > after ? Set(SyncProgressStore.integrations(txn).map(\.local)) : []
        return (after..<max(after, head)).lazy.map { $0 + 1 }.filter { !integrated.contains($0) }
    }

    /// The local commits in (after, head] that carry synced changes, in order, with their
    /// instructions: commits that integrated a download (the server's changes) and
    /// commits with nothing to sync are left out. One conversion serves them all.
    ///
    /// - Throws: ``ORCoreError`` when a log entry was trimmed or is damaged.
    static func localChanges(_ txn: ORCoreTransaction, after: UInt64, through head: UInt64) throws
        -> [(version: UInt64, instructions: [WireInstruction])] {
        let values = ValueConversion(txn: txn.handle)
        var out: [(version: UInt64, instructions: [WireInstruction])] = []
        for v in localVersions(txn, after: after, through: head) {
            let instructions = try instructions(txn.handle, version: v, values: values)
            if !instructions.isEmpty { out.append((v, instructions)) }
        }
        return out
    }

    /// The instructions of the commit of `version` (empty when the commit logged none).
    ///
    /// - Parameter values: the conversion to use (one made for `txn`); pass the same one
    ///   when reading several versions in one read transaction, so that schema lookups
    ///   are made once.
    /// - Throws: ``ORCoreError`` when the log entry was trimmed or is damaged (reported
    ///   as a `SyncError` by ``FileAccess``).
    static func instructions(_ txn: OpaquePointer, version: UInt64, values shared: ValueConversion? = nil) throws -> [WireInstruction] {
        var data: UnsafeRawPointer?
        var size = 0
        let status = orc_log_get(txn, version, &data, &size)
        if status == ORC_ERR_NOT_FOUND { return [] }
        guard status == ORC_OK, let data else {
            throw ORCoreError.failure(status, "Reading local changes of version \(version) from the changeset log failed")
        }
        var it = orc_changeset_iter()
        try ORCoreError.check(orc_changeset_iter_init(&it, data, size), "The changeset of version \(version) is damaged")
        var decoded: [orc_instr] = []
        var instr = orc_instr()
        while true {
            let next = orc_changeset_iter_next(&it, &instr)
            if next == ORC_ERR_NOT_FOUND { break }
            try ORCoreError.check(next, "The changeset of version \(version) is damaged")
            decoded.append(instr)
        }
        let values = shared ?? ValueConversion(txn: txn)
        let locator = EmbeddedLocator(txn, values, version: version, instructions: decoded)
        var out: [WireInstruction] = []
        var create: (className: String, pk: WirePrimaryKey, values: [WirePropertyValue])?
        var embedded: EmbeddedCreate?
        func flush() {
            if let c = create { out.append(.createObject(className: c.className, primaryKey: c.pk, values: c.values)) }
            if let e = embedded { out.append(.createEmbeddedObject(object: e.parent, property: e.property, position: e.position, values: e.values)) }
            create = nil
            embedded = nil
        }
        for (ordinal, instr) in decoded.enumerated() {
            if instr.flags & UInt32(ORC_INSTR_DERIVED) != 0 { continue }
            if instr.flags & UInt32(ORC_INSTR_INITIAL) != 0, instr.op == ORC_INSTR_SET {
                if create != nil, let (prop, name) = values.propertyAndName(instr.table, column: instr.col),
                   prop.flags & UInt32(ORC_PROP_PRIMARY_KEY) == 0, let value = values.wireValue(instr.value) {
                    create!.values.append(WirePropertyValue(name, value))
                }
                continue
            }
            if instr.op == ORC_INSTR_SET, let e = embedded, instr.table == e.table, instr.key == e.key,
               let (prop, name) = values.propertyAndName(instr.table, column: instr.col), prop.collection == ORC_COLL_NONE,
               values.embeddedTarget(prop) == nil, let value = values.wireValue(instr.value) {
                embedded!.values.append(WirePropertyValue(name, value))
                continue
            }
            flush()
            let reading = Reading(instr: instr, ordinal: ordinal, values: values, locator: locator)
            if instr.op == ORC_INSTR_CREATE_EMBEDDED {
                embedded = reading.embeddedCreate()
            } else if instr.op == ORC_INSTR_ERASE, values.classInfo(table: instr.table)?.kind == ORC_CLASS_EMBEDDED {
                if let path = reading.erasedEmbeddedPath(following: decoded[(ordinal + 1)...]) { out.append(.eraseObject(path)) }
            } else if let instruction = translate(reading, &create) {
                out.append(instruction)
            }
        }
        flush()
        return out
    }

    /// One logged instruction being read, with what naming its object needs.
    private struct Reading {
        let instr: orc_instr
        let ordinal: Int
        let values: ValueConversion
        let locator: EmbeddedLocator

        /// The wire path of the object the instruction names, as it was then, and its class.
        func objectPath() -> (WireObjectPath, orc_class_info)? {
            objectPath(table: instr.table, key: instr.key, pk: instr.has_pk ? instr.pk : nil)
        }

        func objectPath(table: UInt32, key: UInt64, pk: orc_value?) -> (WireObjectPath, orc_class_info)? {
            guard let cls = values.classInfo(table: table) else { return nil }
            if cls.kind == ORC_CLASS_EMBEDDED {
                return locator.path(table: table, key: key, at: ordinal).map { ($0, cls) }
            }
            guard let pk, let pkValue = values.wireValue(pk), let key = WirePrimaryKey(pkValue) else { return nil }
            return (WireObjectPath(className: values.className(table: table) ?? ValueConversion.name(cls.name), primaryKey: key), cls)
        }

        /// A `CREATE_EMBEDDED` (the parent is the instruction's object) as the start of a
        /// `createEmbeddedObject`.
        func embeddedCreate() -> EmbeddedCreate? {
            guard let (parent, _) = objectPath(), let prop = values.property(instr.table, column: instr.col) else { return nil }
            let position: WireEmbeddedPosition
            switch prop.collection {
            case ORC_COLL_NONE: position = .single
            case ORC_COLL_LIST: position = .listIndex(instr.index)
            case ORC_COLL_DICT:
                guard case .string(let k)? = values.wireValue(instr.dict_key) else { return nil }
                position = .dictionaryKey(k)
            default: return nil
            }
            return EmbeddedCreate(table: instr.child_table, key: instr.child_key, parent: parent,
                                  property: ValueConversion.name(prop.name), position: position, values: [])
        }

        /// The path an erased embedded object had, read from the derived instruction
        /// that unlinked it from its owner (it follows the erase in the log).
        func erasedEmbeddedPath(following rest: ArraySlice<orc_instr>) -> WireObjectPath? {
            for next in rest {
                guard next.flags & UInt32(ORC_INSTR_DERIVED) != 0 else { return nil }
                guard [ORC_INSTR_LIST_ERASE, ORC_INSTR_SET, ORC_INSTR_DICT_SET, ORC_INSTR_DICT_ERASE].contains(next.op),
                      let prop = values.property(next.table, column: next.col), prop.type == ORC_TYPE_LINK,
                      prop.link_table == instr.table else { continue }
                guard var (path, _) = objectPath(table: next.table, key: next.key, pk: next.has_pk ? next.pk : nil) else { return nil }
                path.path.append(.property(ValueConversion.name(prop.name)))
                switch next.op {
                case ORC_INSTR_LIST_ERASE: path.path.append(.index(next.index))
                case ORC_INSTR_SET: break
                default:
                    guard case .string(let k)? = values.wireValue(next.dict_key) else { return nil }
                    path.path.append(.key(k))
                }
                return path
            }
            return nil
        }
    }

    private static func translate(_ reading: Reading,
                                  _ create: inout (className: String, pk: WirePrimaryKey, values: [WirePropertyValue])?) -> WireInstruction? {
        let instr = reading.instr
        let values = reading.values
        func objectPath(_: orc_instr, _: ValueConversion) -> (WireObjectPath, orc_class_info)? { reading.objectPath() }
        func prop() -> String? { values.propertyAndName(instr.table, column: instr.col)?.name }
        func value() -> WireValue? { values.wireValue(instr.value) }
        func key() -> String {
            String(decoding: UnsafeRawBufferPointer(start: instr.dict_key.string.data, count: instr.dict_key.string.size), as: UTF8.self)
        }
        switch instr.op {
        case ORC_INSTR_CREATE:
            guard let (path, cls) = objectPath(instr, values), cls.kind != ORC_CLASS_EMBEDDED else { return nil }
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
