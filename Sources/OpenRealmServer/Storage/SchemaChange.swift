import OpenRealmWire

/// What a schema instruction adds to the synced schema, once checked against it: the
/// rules every store applies alike (``SchemaWriting/applySchema(_:allowingChanges:)``),
/// leaving a store only to make the class or property.
package enum SchemaAddition: Equatable {
    /// A new class, with its primary key property when it has one.
    case addClass(name: String, kind: WireClassKind, primaryKey: WirePrimaryKeySchema?)
    /// A new property of an existing class.
    case addProperty(StoredClass, WirePropertySchema)

    /// Checks `instruction` against `schema`.
    ///
    /// - Returns: what to add, or nil when the instruction declares what exists (or is
    ///   not a schema instruction).
    /// - Throws: ``SyncFailure`` `invalidSchemaChange` for a reserved name (`__`: the
    ///   server's), a definition that conflicts with the stored one (kind, primary key,
    ///   type, collection, optionality, link target), a property of an unknown class or
    ///   a link to a class that is not synced, or anything new without
    ///   `allowingChanges` (an app not in development mode).
    package static func plan(_ instruction: WireInstruction, in schema: SyncSchema, allowingChanges: Bool) throws -> SchemaAddition? {
        func refuseUnlessAllowed(_ what: String) throws {
            guard allowingChanges else {
                throw SyncFailure(.invalidSchemaChange, "\(what) is not in the app's schema, and the app is not in development mode: "
                    + "schema changes are refused")
            }
        }
        let reserved = StorageConventions.reservedPrefix
        switch instruction {
        case .addClass(let declared):
            guard !declared.name.hasPrefix(reserved) else {
                throw SyncFailure(.invalidSchemaChange, "class name '\(declared.name)' is reserved: names starting with '\(reserved)' belong to the server")
            }
            if let existing = schema.storedClass(named: declared.name) {
                guard existing.kind == declared.kind else {
                    throw SyncFailure(.invalidSchemaChange, "class '\(declared.name)' exists with another kind than \(declared.kind)")
                }
                let same: Bool
                switch (declared.primaryKey, existing.primaryKey) {
                case (nil, nil): same = true
                case (let want?, let have?): same = want.name == have.name && want.type == have.type && want.isOptional == have.isOptional
                default: same = false
                }
                guard same else {
                    throw SyncFailure(.invalidSchemaChange, "class '\(declared.name)' exists with another primary key")
                }
                return nil
            }
            try refuseUnlessAllowed("class '\(declared.name)'")
            return .addClass(name: declared.name, kind: declared.kind, primaryKey: declared.primaryKey)
        case .addProperty(let className, let property):
            guard !property.name.hasPrefix(reserved) else {
                throw SyncFailure(.invalidSchemaChange, "property name '\(className).\(property.name)' is reserved: names starting with '\(reserved)' belong to the server")
            }
            guard let cls = schema.storedClass(named: className) else {
                throw SyncFailure(.invalidSchemaChange, "property '\(property.name)' declared for unknown class '\(className)'")
            }
            if let target = property.linkTarget, schema.storedClass(named: target) == nil {
                throw SyncFailure(.invalidSchemaChange, "property '\(className).\(property.name)' links to unknown class '\(target)'")
            }
            if let existing = cls.property(named: property.name) {
                guard existing.type == property.type, existing.collection == property.collection,
                      existing.isOptional == property.isOptional, existing.linkTarget == property.linkTarget else {
                    throw SyncFailure(.invalidSchemaChange, "property '\(className).\(property.name)' exists with another type")
                }
                return nil
            }
            try refuseUnlessAllowed("property '\(className).\(property.name)'")
            return .addProperty(cls, property)
        default:
            return nil
        }
    }
}
