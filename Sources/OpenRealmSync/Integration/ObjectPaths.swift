import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Wire object paths (`docs/PROTOCOL.md` §3.4) resolved against this file, through the
/// walk client and server share (``ObjectPathWalk``). Used to apply downloads.
extension ValueConversion {
    /// The class an embedded-object property links to, or nil when `prop` does not link
    /// to an embedded class.
    func embeddedTarget(_ prop: orc_prop_info) -> orc_class_info? {
        guard prop.type == ORC_TYPE_LINK, let target = classInfo(table: prop.link_table),
              target.kind == ORC_CLASS_EMBEDDED else { return nil }
        return target
    }

    /// The class and key of the object `path` names; nil when this file does not hold it
    /// (its class is not in this schema, its owner is not here, a link on the way is
    /// null, a position or key on the way is gone) or the path does not fit the schema.
    func resolve(_ path: WireObjectPath, _ scratch: ValueScratch) -> (orc_class_info, UInt64)? {
        guard let found = try? ObjectPathWalk.resolve(path, in: FileObjectPaths(values: self, scratch: scratch)),
              let key = found.key else { return nil }
        return (found.cls, key)
    }
}

/// This file as the walk reads it: a failed read is an object that is not here.
private struct FileObjectPaths: ObjectPathStore {
    let values: ValueConversion
    let scratch: ValueScratch

    func name(of cls: orc_class_info) -> String { ValueConversion.name(cls.name) }

    func topLevelClass(_ name: String) -> orc_class_info? {
        guard let cls = values.classInfo(named: name), cls.kind != ORC_CLASS_EMBEDDED else { return nil }
        return cls
    }

    func object(_ cls: orc_class_info, primaryKey: WirePrimaryKey) -> UInt64? {
        values.findObject(cls.table, primaryKey, scratch)
    }

    func property(_ cls: orc_class_info, named name: String) -> orc_prop_info? { values.property(cls.table, named: name) }

    func embeddedTarget(_ prop: orc_prop_info) -> orc_class_info? { values.embeddedTarget(prop) }

    func collection(of prop: orc_prop_info) -> orc_collection { prop.collection }

    func link(_ cls: orc_class_info, _ key: UInt64, _ prop: orc_prop_info) -> UInt64? {
        var out = orc_value()
        guard orc_obj_get(values.txn, cls.table, key, prop.col, &out) == ORC_OK else { return nil }
        return Self.linkKey(out)
    }

    func listElement(_ cls: orc_class_info, _ key: UInt64, _ prop: orc_prop_info, _ index: UInt64) -> UInt64? {
        var out = orc_value()
        guard index <= UInt64(Int.max), orc_coll_get(values.txn, cls.table, key, prop.col, Int(index), &out) == ORC_OK else { return nil }
        return Self.linkKey(out)
    }

    func dictionaryElement(_ cls: orc_class_info, _ key: UInt64, _ prop: orc_prop_info, _ dictionaryKey: String) -> UInt64? {
        var out = orc_value()
        let (p, n) = scratch.copy(dictionaryKey)
        guard orc_dict_get(values.txn, cls.table, key, prop.col, p, n, &out) == ORC_OK else { return nil }
        return Self.linkKey(out)
    }

    private static func linkKey(_ value: orc_value) -> UInt64? {
        value.type == ORC_TYPE_LINK ? value.link.key : nil
    }
}
