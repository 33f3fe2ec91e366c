import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Wire object paths (`docs/PROTOCOL.md` §3.4) resolved against this file: a top-level
/// object by class and primary key, then one step per single link to an embedded object,
/// or per list index or dictionary key of a collection of them. Used to apply downloads.
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
        guard var cls = classInfo(named: path.root.className), cls.kind != ORC_CLASS_EMBEDDED,
              var key = findObject(cls.table, path.root.primaryKey, scratch) else { return nil }
        let steps = path.path
        var i = 0
        while i < steps.count {
            guard case .property(let name) = steps[i], let prop = property(cls.table, named: name),
                  let child = embeddedTarget(prop) else { return nil }
            var out = orc_value()
            switch prop.collection {
            case ORC_COLL_NONE:
                guard orc_obj_get(txn, cls.table, key, prop.col, &out) == ORC_OK else { return nil }
                i += 1
            case ORC_COLL_LIST:
                guard i + 1 < steps.count, case .index(let index) = steps[i + 1], index <= UInt64(Int.max),
                      orc_coll_get(txn, cls.table, key, prop.col, Int(index), &out) == ORC_OK else { return nil }
                i += 2
            case ORC_COLL_DICT:
                guard i + 1 < steps.count, case .key(let dkey) = steps[i + 1] else { return nil }
                let (p, n) = scratch.copy(dkey)
                guard orc_dict_get(txn, cls.table, key, prop.col, p, n, &out) == ORC_OK else { return nil }
                i += 2
            default:
                return nil
            }
            guard out.type == ORC_TYPE_LINK else { return nil }
            cls = child
            key = out.link.key
        }
        return (cls, key)
    }
}
