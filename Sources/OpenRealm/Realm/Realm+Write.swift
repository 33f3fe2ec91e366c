import Foundation
import ORCore

/// Collections that can be written into a managed object's property from any source
/// (an unmanaged collection, a managed one, an array given by name).
protocol CollectionAssignable {
    /// Replaces the elements of the property `index` of the managed `object`.
    func _orAssign(to object: ObjectBase, index: Int, context: _ORWriteContext) throws
}

extension CollectionAssignable {
    /// The property setter's assignment (`object.tags = tags`): inside a write only, and a
    /// failure is the write's (`_failWrite`).
    func _orAssignAsProperty(of object: ObjectBase, index: Int) {
        let realm = object._realm!
        object._requireNotStale()
        realm.requireWrite()
        let context = _ORWriteContext(realm: realm, policy: .error, arena: realm.arena)
        do { try _orAssign(to: object, index: index, context: context) } catch { realm._failWrite(error) }
    }
}

extension Realm {
    // MARK: Adding objects

    /// Adds an unmanaged object, and every unmanaged object it links to, to the realm;
    /// the object becomes managed. With `.modified` or `.all`, an existing object with
    /// the same primary key is updated instead (its changed or all properties).
    ///
    /// Must be called inside a write transaction. A failure (a duplicate primary key
    /// with `.error`) fails the transaction: `write` throws it and commits nothing.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        requireWrite("add objects")
        do {
            try Self._requirePrimaryKey(type(of: object), update)
            _ = try _add(object, policy: update, only: nil)
        } catch { _failWrite(error) }
    }

    /// Adds an asymmetric object.
    public func create<T: AsymmetricObject>(_ type: T.Type, value: Any = [String: Any]()) {
        requireWrite("create objects")
        do {
            let object = T()
            try object._setValues(from: value, policy: .error, realm: nil)
            _ = try _add(object, policy: .error, only: nil)
        } catch { _failWrite(error) }
    }

    /// Adds every object of a sequence (see `add(_:update:)`).
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        requireWrite("add objects")
        do {
            for object in objects {
                try Self._requirePrimaryKey(type(of: object), update)
                _ = try _add(object, policy: update, only: nil)
            }
        } catch { _failWrite(error) }
    }

    /// Creates a managed object from a dictionary of values, an array of values in
    /// property order, or another object, and returns it. Nested dictionaries and
    /// arrays create linked objects. With `.modified` or `.all`, an object with the same
    /// primary key is updated with the given values only.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        requireWrite("create objects")
        do {
            try Self._requirePrimaryKey(type, update)
            return try _create(type, value: value, policy: update)
        } catch {
            _failWrite(error)
            return T()
        }
    }

    /// Updating needs a primary key to find the existing object. Only the object given to
    /// `add`/`create` must have one: linked objects without a primary key are created anew.
    static func _requirePrimaryKey(_ type: ObjectBase.Type, _ policy: UpdatePolicy) throws {
        guard policy != .error else { return }
        let info = ObjectTypeInfo.of(type)
        if info.primaryKey == nil {
            throw RealmError(.invalidArgument, "'\(info.className)' does not have a primary key and can not be updated.")
        }
    }

    func _create<T: ObjectBase>(_ type: T.Type, value: Any, policy: UpdatePolicy) throws -> T {
        state.createDepth += 1
        defer { state.createDepth -= 1 }
        if state.createDepth > 100 {
            throw RealmError(.invalidValue, "Values given to create are nested more than 100 objects deep (a cycle of unmanaged objects?).")
        }
        let object = T()
        let given = try object._setValues(from: value, policy: policy, realm: self)
        if T.self is EmbeddedObject.Type {
            throw RealmError(.invalidValue, "Embedded objects cannot be created on their own: set them as the value of a parent's property.")
        }
        let existing = try _add(object, policy: policy, only: given)
        return existing as? T ?? object
    }

    /// The binding for a linked object, adding it first when it is unmanaged.
    func _addForLink(_ object: ObjectBase, policy: UpdatePolicy) throws -> BoundClass {
        if let realm = object._realm, let bound = object._bound {
            guard realm._coordinator === _coordinator else {
                throw RealmError(.invalidValue, "Cannot link to an object of another realm; add or create it in this realm.")
            }
            guard !object._isStale, orc_obj_exists(txn, bound.table, object._key) else {
                throw RealmError(.objectInvalidated, "Cannot link to a deleted or invalidated object of class '\(bound.className)'.")
            }
            return bound
        }
        if object is EmbeddedObject {
            throw RealmError(.invalidValue, "An embedded object can only be set as the value of its parent's property.")
        }
        try _add(object, policy: policy == .error ? .error : policy, only: nil)
        return object._bound!
    }

    /// Adds (or updates) an object. `only`: the property indexes given by the caller
    /// (for `create` with a dictionary: an update writes only those). Returns the object.
    @discardableResult
    func _add(_ object: ObjectBase, policy: UpdatePolicy, only: Set<Int>?) throws -> ObjectBase {
        if let realm = object._realm {
            guard realm._coordinator === _coordinator else {
                throw RealmError(.invalidValue, "Object of class '\(object._typeInfo.className)' is already managed by another Realm. Use create(_:value:update:) to copy it into this one.")
            }
            if object.isInvalidated {
                throw RealmError(.objectInvalidated, "Adding a deleted or invalidated object to a Realm is not permitted (class '\(object._typeInfo.className)').")
            }
            return object
        }
        // The class added last (a loop of adds) needs no registry lookup.
        let info = state.lastBound.flatMap { $0.type == ObjectIdentifier(type(of: object)) ? $0.bound.info : nil }
            ?? object._typeInfo
        if info.kind == ORC_CLASS_EMBEDDED {
            throw RealmError(.invalidValue, "Embedded objects of class '\(info.className)' cannot be added directly: set them as the value of a parent's property.")
        }
        if let sync = configuration.sync, info.kind == ORC_CLASS_TOP_LEVEL {
            try sync.checkAdding(info.className, to: self, in: writeTxn!)
        }
        guard let bound = try _bind(type(of: object), create: true) else {
            throw RealmError(.schemaMismatch, "Class '\(info.className)' is not in the realm's schema.")
        }
        let txn = writeTxn!
        let context = addContext(policy)

        var existingKey: UInt64?
        if policy != .error, let pkIndex = info.primaryKeyIndex {
            var pk = try info.properties[pkIndex].encodeUnmanaged(object, context)
            var key: UInt64 = 0
            let status = orc_obj_find(txn, bound.table, &pk, &key)
            if status == ORC_OK { existingKey = key } else if status != ORC_ERR_NOT_FOUND {
                throw ORC.error(status, "Finding '\(info.className)' by primary key")
            }
        }

        // A new object of a class of scalars only: every value encoded in order, one create.
        if existingKey == nil, let plan = bound.scalarPlan {
            let key: UInt64 = try withUnsafeTemporaryAllocation(of: orc_value.self, capacity: plan.count) { encoded in
                for i in 0..<plan.count { encoded[i] = try plan.encoders[i](object, context) }
                return try _createRow(object, info, bound, plan.columns, encoded.baseAddress, plan.count)
            }
            arena.reset()
            _manage(object, bound, key)
            return object
        }

        let properties = info.properties
        // Single values are encoded straight out of the unmanaged instance (with code
        // specialized per property type) into buffers on the stack; links and
        // collections are read out before the instance becomes managed and written
        // after the row exists, so that cycles of unmanaged objects resolve.
        var links: [(index: Int, value: any _Persistable)] = []
        var later: [(index: Int, value: any _Persistable)] = []
        let key: UInt64 = try withUnsafeTemporaryAllocation(of: UInt16.self, capacity: properties.count) { cols in
            try withUnsafeTemporaryAllocation(of: orc_value.self, capacity: properties.count) { encoded in
                var count = 0
                for i in properties.indices {
                    let property = properties[i]
                    guard property.isStored else { continue }
                    if existingKey != nil, let only, !only.contains(i) { continue }
                    if property.descriptor.collection != ORC_COLL_NONE || property.isEmbeddedLink {
                        later.append((i, property.field.unmanagedValue(object, property.offset)))
                        continue
                    }
                    if property.descriptor.type == ORC_TYPE_LINK {
                        links.append((i, property.field.unmanagedValue(object, property.offset)))
                        continue
                    }
                    let value = try property.encodeUnmanaged(object, context)
                    if let existingKey, policy == .modified {
                        var current = orc_value()
                        if orc_obj_get(txn, bound.table, existingKey, bound.columns[i], &current) == ORC_OK,
                           current.type == value.type, withUnsafePointer(to: value, { orc_value_compare(&current, $0) }) == 0 {
                            continue
                        }
                    }
                    if existingKey != nil && i == info.primaryKeyIndex { continue }
                    cols[count] = bound.columns[i]
                    encoded[count] = value
                    count += 1
                }
                if let existingKey {
                    if count > 0 {
                        try ORC.check(orc_obj_set_many(txn, bound.table, existingKey, cols.baseAddress, encoded.baseAddress, count),
                                      "Updating '\(info.className)'")
                    }
                    return existingKey
                }
                return try _createRow(object, info, bound, cols.baseAddress, encoded.baseAddress, count)
            }
        }
        arena.reset()
        _manage(object, bound, key)

        for (i, value) in links {
            var link = try value._orEncodeIfValue(context)!
            if let existingKey, policy == .modified {
                var current = orc_value()
                if orc_obj_get(txn, bound.table, existingKey, bound.columns[i], &current) == ORC_OK,
                   orc_value_compare(&current, &link) == 0 && current.type == link.type { continue }
            }
            try ORC.check(orc_obj_set(txn, bound.table, key, bound.columns[i], &link), "Setting '\(info.className).\(properties[i].name)'")
        }
        for (i, value) in later {
            if properties[i].isEmbeddedLink {
                try _setEmbedded(object, i, AnyValueConversion.embeddedObject(value), policy: policy)
                properties[i].field.releaseUnmanaged(object, properties[i].offset)
            } else if let collection = value as? CollectionAssignable {
                try collection._orAssign(to: object, index: i, context: context)
                // The collection the object held becomes its managed one.
                (collection as? _ManagedCollection)?._adopt(object, i)
            }
        }
        if !links.isEmpty || !later.isEmpty { arena.reset() }
        // The object reads the realm now: what it linked to while unmanaged is let go,
        // so that a cycle of added objects does not keep itself alive.
        for (i, _) in links { properties[i].field.releaseUnmanaged(object, properties[i].offset) }
        return object
    }

    /// Creates the row of an unmanaged object being added, from its encoded values.
    private func _createRow(_ object: ObjectBase, _ info: ObjectTypeInfo, _ bound: BoundClass,
                            _ columns: UnsafePointer<UInt16>?, _ values: UnsafePointer<orc_value>?, _ count: Int) throws -> UInt64 {
        var key: UInt64 = 0
        let status = orc_obj_create(writeTxn!, bound.table, columns, values, count, &key)
        if status == ORC_ERR_EXISTS, let pkIndex = info.primaryKeyIndex {
            let pk = info.properties[pkIndex].field.unmanagedValue(object, info.properties[pkIndex].offset)
            throw RealmError(.primaryKeyExists, "Attempting to create an object of type '\(info.className)' with an existing primary key value '\(pk)'.")
        }
        try ORC.check(status, "Creating an object of class '\(info.className)'")
        return key
    }

    /// Sets an embedded-object property: the previous child is deleted and `child`'s
    /// values are copied into a new child row; an unmanaged `child` becomes its accessor.
    ///
    /// With `.modified` (`add(_:update: .modified)`), an existing child is updated in
    /// place instead, as in the Realm Swift SDK: accessors of it stay valid, and an
    /// unmanaged `child` becomes one.
    func _setEmbedded(_ parent: ObjectBase, _ index: Int, _ child: ObjectBase?, policy: UpdatePolicy) throws {
        let bound = parent._bound!
        let txn = writeTxn!
        if policy == .modified, let child {
            var current = orc_value()
            if orc_obj_get(txn, bound.table, parent._key, bound.columns[index], &current) == ORC_OK, current.type == ORC_TYPE_LINK {
                try _fillEmbedded(child._detachedCopy(), key: current.link.key, policy: policy)
                return
            }
        }
        // Copied first: creating the new child deletes the old one, which may be `child`.
        guard let child = child?._detachedCopy() else {
            var null = orc_value.null
            try ORC.check(orc_obj_set(txn, bound.table, parent._key, bound.columns[index], &null),
                          "Setting '\(bound.className).\(bound.info.properties[index].name)'")
            return
        }
        var childKey: UInt64 = 0
        try ORC.check(orc_obj_create_embedded(txn, bound.table, parent._key, bound.columns[index], 0, nil, &childKey),
                      "Creating the embedded object of '\(bound.className).\(bound.info.properties[index].name)'")
        try _fillEmbedded(child, key: childKey, policy: policy)
    }

    /// Copies an embedded object's values into the row `key` made for it (or, updating in
    /// place, the row it replaces); an unmanaged `child` becomes the row's accessor.
    func _fillEmbedded(_ child: ObjectBase, key: UInt64, policy: UpdatePolicy) throws {
        let type = Swift.type(of: child)
        guard let childBound = try _bind(type, create: true) else { return }
        let info = childBound.info
        let source: [Any]
        if child._realm != nil {
            // A managed embedded object (copying from another parent): read its values by name.
            source = info.properties.map { child[$0.name] as Any }
        } else {
            source = info.properties.map { $0.field.unmanagedValue(child, $0.offset) }
        }
        let context = _ORWriteContext(realm: self, policy: policy, arena: arena)
        let target: ObjectBase = child._realm == nil ? child : type.init()
        _manage(target, childBound, key)
        for (i, property) in info.properties.enumerated() where property.isStored {
            let value = source[i]
            if target === child, property.descriptor.type == ORC_TYPE_LINK, property.descriptor.collection == ORC_COLL_NONE {
                property.field.releaseUnmanaged(target, property.offset)
            }
            if property.isEmbeddedLink {
                try _setEmbedded(target, i, AnyValueConversion.embeddedObject(value), policy: policy)
            } else if property.descriptor.collection != ORC_COLL_NONE {
                if let collection = value as? CollectionAssignable {
                    try collection._orAssign(to: target, index: i, context: context)
                    if target === child { (collection as? _ManagedCollection)?._adopt(target, i) }
                } else if let array = value as? [Any] {
                    try (property.valueType._orFromAny(array, context) as? CollectionAssignable)?._orAssign(to: target, index: i, context: context)
                }
            } else {
                var encoded = try (property.valueType._orFromAny(value, context) as! any _PersistableValue)._orEncode(context)
                try ORC.check(orc_obj_set(writeTxn, childBound.table, key, childBound.columns[i], &encoded),
                              "Setting '\(info.className).\(property.name)'")
            }
        }
    }

    // MARK: Deleting

    /// Deletes an object: links to it become nil, lists drop it, and its embedded
    /// objects are deleted with it. Inside a write transaction only.
    public func delete(_ object: ObjectBase) {
        requireWrite("delete objects")
        guard let realm = object._realm, realm._coordinator === _coordinator else {
            _failWrite(RealmError(.invalidArgument, "Can only delete an object from the Realm it belongs to."))
            return
        }
        // An accessor of an invalidated realm no longer reads its row (which may well
        // exist): deleting it deletes nothing, as deleting a deleted object.
        if object._isStale { return }
        let table = object._table!
        let status = orc_obj_erase(writeTxn, table, object._key)
        if status != ORC_OK && status != ORC_ERR_NOT_FOUND {
            _failWrite(ORC.error(status, "Deleting an object"))
        }
    }

    /// Deletes every object of a sequence (a `Results`, a `List`, an array).
    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase {
        requireWrite("delete objects")
        let targets = objects.map { $0 }
        for object in targets { delete(object) }
    }

    /// Deletes every object of every class.
    public func deleteAll() {
        requireWrite("delete objects")
        let stored = _coordinator.storedSchema(writeTxn!)
        for entry in stored.classes where entry.kind != ORC_CLASS_EMBEDDED {
            let status = orc_table_clear(writeTxn, entry.table)
            if status != ORC_OK { _failWrite(ORC.error(status, "Deleting every '\(entry.name)'")); return }
        }
    }
}
