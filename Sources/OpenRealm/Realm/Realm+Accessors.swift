import Foundation
import ORCore

/// How managed objects reach their rows: bindings of classes to tables, accessors for
/// rows, and the single-property read and write paths every `@Persisted` access takes.
extension Realm {
    /// The binding of a model class in this file. When the class is not stored yet it
    /// is added (with the classes it links to) if the realm is in a write transaction;
    /// otherwise nil. A class outside the configuration's `objectTypes` is an error.
    func _bind(_ type: ObjectBase.Type, create: Bool) throws(RealmError) -> BoundClass? {
        let id = ObjectIdentifier(type)
        let generation = _coordinator.bindingsGeneration
        if let last = state.lastBound, last.type == id, last.generation == generation { return last.bound }
        if let bound = _coordinator.binding(type) {
            state.lastBound = (id, bound, generation)
            return bound
        }
        let info = ObjectTypeInfo.of(type)
        if let types = configuration.objectTypes,
           !ObjectTypeInfo.closure(of: types).contains(where: { $0.type == type }) {
            throw RealmError(.schemaMismatch, "Object type '\(info.className)' is not managed by this realm: add '\(String(reflecting: type))' to the configuration's objectTypes.")
        }
        if let invalid = info.schemaProblem { throw RealmError(.schemaMismatch, "Schema validation failed: \(invalid)") }
        let txn = self.txn
        var stored = _coordinator.storedSchema(txn)
        if stored[info.className] == nil {
            guard create, let writeTxn else { return nil }
            try SchemaChanges.addClasses(ObjectTypeInfo.closure(of: [type]).filter { stored[$0.className] == nil }, txn: writeTxn)
            stored = _coordinator.storedSchema(writeTxn)
        }
        guard let entry = stored[info.className] else { return nil }
        let diff = SchemaChanges.differences(info, entry, stored)
        if !diff.migration.isEmpty {
            throw RealmError(.schemaMismatch, "Class '\(info.className)' differs from the stored schema; a migration is required:\n"
                             + diff.migration.map { "- \($0)" }.joined(separator: "\n"))
        }
        for target in ObjectTypeInfo.closure(of: [type]) where target !== info {
            if _coordinator.binding(target.type) == nil, let targetEntry = stored[target.className] {
                _ = _coordinator.bind(target, targetEntry)
            }
        }
        return _coordinator.bind(info, entry)
    }

    /// The binding of a class, stopping with a clear message when it cannot be made
    /// (for non-throwing calls such as `objects(_:)`).
    func _bindOrNil(_ type: ObjectBase.Type) -> BoundClass? {
        do { return try _bind(type, create: false) } catch {
            preconditionFailure(error.message)
        }
    }

    /// A managed accessor of class `T` for the row `key` of `table`.
    func _accessor<T: ObjectBase>(_ type: T.Type, table: UInt32, key: UInt64) -> T {
        if let bound = _coordinator.binding(table: table), bound.info.type is T.Type {
            return _accessor(bound, key) as! T
        }
        if let bound = (try? _bind(type, create: false)) ?? nil, bound.table == table {
            return _accessor(bound, key) as! T
        }
        preconditionFailure("No model class of type '\(T.self)' is bound to table \(table).")
    }

    /// A managed accessor for a link whose class is only known by its table.
    func _accessor(linkTable table: UInt32, key: UInt64) -> ObjectBase? {
        if let bound = _coordinator.binding(table: table) { return _accessor(bound, key) }
        guard let entry = _coordinator.storedSchema(txn)[table: table] else { return nil }
        if let info = ObjectTypeInfo.named(entry.name), let bound = try? _bind(info.type, create: false) {
            return _accessor(bound, key)
        }
        return DynamicObject(realm: self, entry: entry, key: key, readOnly: false)
    }

    func _accessor(_ bound: BoundClass, _ key: UInt64) -> ObjectBase {
        let object = bound.info.type.init()
        _manage(object, bound, key)
        return object
    }

    /// Makes an instance an accessor of a row: its `@Persisted` fields now read the realm.
    func _manage(_ object: ObjectBase, _ bound: BoundClass, _ key: UInt64) {
        let properties = bound.info.properties
        for i in properties.indices {
            properties[i].makeManaged(object, i)
        }
        object._realm = self
        object._bound = bound
        object._key = key
        object._readTable = bound.table
        object._readColumns = UnsafePointer(bound.columnBuffer)
        object._readRealm = Unmanaged.passUnretained(self)
        object._readState = Unmanaged.passUnretained(state)
        object._epoch = state.invalidations
    }

    /// Runs `body` with a context whose arena is the realm's; outside a write the arena is
    /// emptied afterwards (inside one it is emptied at commit), so lookups allocate nothing
    /// that outlives them.
    func _withScratchContext<R>(_ body: (_ORWriteContext) throws -> R) rethrows -> R {
        defer { if writeTxn == nil { arena.reset() } }
        return try body(_ORWriteContext(realm: self, policy: .error, arena: arena))
    }

    /// Reads one property of a managed object: the checked path, which also opens the
    /// read snapshot and reports every failure (`ObjectBase._readValue` falls back to it).
    func _read(_ object: ObjectBase, _ index: Int) -> orc_value {
        object._requireNotStale()
        let bound = object._bound!
        var value = orc_value()
        let status = orc_obj_get(txn, bound.table, object._key, bound.columns[index], &value)
        if status != ORC_OK {
            if status == ORC_ERR_NOT_FOUND && !orc_obj_exists(txn, bound.table, object._key) {
                preconditionFailure("Object of class '\(bound.className)' has been deleted or invalidated.")
            }
            preconditionFailure("Reading '\(bound.className).\(bound.info.properties[index].name)': \(ORC.lastMessage)")
        }
        return value
    }

    /// Writes one property of a managed object; a failure fails the write transaction.
    func _write(_ object: ObjectBase, _ index: Int, _ encode: (_ORWriteContext) throws -> orc_value) {
        object._requireNotStale()
        requireWrite()
        let bound = object._bound!
        let context = _ORWriteContext(realm: self, policy: .error, arena: arena)
        do {
            var value = try encode(context)
            let status = orc_obj_set(writeTxn, bound.table, object._key, bound.columns[index], &value)
            if status != ORC_OK {
                throw ORC.error(status, "Setting '\(bound.className).\(bound.info.properties[index].name)'")
            }
        } catch {
            _failWrite(error)
        }
    }
}

extension ObjectBase {
    /// Reads property `index` of this managed object from the current transaction (a
    /// write in progress is seen at once; a new snapshot is read as soon as the realm
    /// moves). The thread check and the transaction come from the realm's state in a
    /// few loads with no reference counting; anything out of the ordinary (another
    /// thread, no snapshot yet, an invalidated realm, a deleted object, a read error)
    /// takes `Realm._read`,
    /// which opens the snapshot or stops with the usual message.
    @inline(__always)
    final func _readValue(_ index: Int) -> orc_value {
        if let state = _readState, let columns = _readColumns,
           let txn = state._withUnsafeGuaranteedRef({ $0.readTxnOnOwnerThread(epoch: _epoch) }) {
            var value = orc_value()
            if orc_obj_get(txn, _readTable, _key, columns[index], &value) == ORC_OK { return value }
        }
        return _realm!._read(self, index)
    }
}
