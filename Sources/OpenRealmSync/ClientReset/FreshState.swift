import Foundation
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// Replaces the synced objects of a realm file with a fresh bootstrap, inside one write
/// transaction, the last step of a client reset.
///
/// Objects the bootstrap names are kept (their accessors and observers stay valid) and
/// brought to the bootstrap's state: their collections are emptied and the bootstrap's
/// `createObject` and collection instructions fill them again. Objects of synced
/// classes (top-level classes with a primary key) it does not name are erased. Classes
/// without a primary key, embedded and asymmetric classes are left alone: they do not
/// download.
struct FreshState {
    let txn: OpaquePointer

    /// Makes the file hold exactly `instructions`' objects.
    ///
    /// - Throws: ``SyncError`` when ORCore refuses to read or erase (the transaction
    ///   should then be aborted).
    func replace(with instructions: [WireInstruction]) throws {
        let named = try keptObjects(instructions)
        let count = orc_schema_class_count(txn)
        for i in 0..<count {
            var cls = orc_class_info()
            guard orc_schema_class_at(txn, i, &cls) == ORC_OK, cls.kind == ORC_CLASS_TOP_LEVEL, cls.pk_col >= 0 else { continue }
            let collections = collectionColumns(cls)
            let keep = named[cls.table] ?? []
            for key in try keys(cls.table) {
                if keep.contains(key) {
                    for col in collections { try check(orc_coll_clear(txn, cls.table, key, col), "emptying a collection") }
                } else {
                    try check(orc_obj_erase(txn, cls.table, key), "erasing an object the server no longer has")
                }
            }
        }
        var applier = ChangesetApplier(txn: txn)
        applier.apply(instructions)
    }

    /// The keys of the existing objects the bootstrap creates, by table.
    private func keptObjects(_ instructions: [WireInstruction]) throws -> [UInt32: Set<UInt64>] {
        let values = ValueConversion(txn: txn)
        let scratch = ValueScratch()
        var kept: [UInt32: Set<UInt64>] = [:]
        for case .createObject(let className, let pk, _) in instructions {
            defer { scratch.reset() }
            guard let cls = values.classInfo(named: className), let key = values.findObject(cls.table, pk, scratch) else { continue }
            kept[cls.table, default: []].insert(key)
        }
        return kept
    }

    private func collectionColumns(_ cls: orc_class_info) -> [UInt16] {
        var out: [UInt16] = []
        for i in 0..<cls.prop_count {
            var prop = orc_prop_info()
            if orc_schema_prop_at(txn, cls.table, i, &prop) == ORC_OK, prop.collection != ORC_COLL_NONE { out.append(prop.col) }
        }
        return out
    }

    private func keys(_ table: UInt32) throws -> [UInt64] {
        var keys = orc_keys()
        defer { orc_keys_free(&keys) }
        try check(orc_table_keys(txn, table, &keys), "listing the objects of a synced class")
        guard let base = keys.keys else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: keys.count))
    }

    private func check(_ status: Int32, _ what: String) throws {
        guard status != ORC_OK else { return }
        let failure = ORCoreError.failure(status, "Client reset: \(what) failed")
        throw SyncError(.clientResetError, failure.message, underlyingError: failure)
    }
}
