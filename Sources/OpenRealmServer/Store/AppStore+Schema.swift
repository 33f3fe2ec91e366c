import Foundation
import ORCore
import OpenRealmWire

/// The synced schema's additive changes, which clients declare in development mode
/// (``SchemaWriting/applySchema(_:allowingChanges:)``) and operators apply
/// (``applyConfiguredSchema(_:)``). The engine reads the schema as a ``SyncSchema``.
extension AppStore {
    /// Applies a schema instruction: adds the class or property unless it exists with
    /// the same definition. Without `allowingChanges` (an app not in development mode)
    /// a declaration of what exists is accepted and anything new refused, so that
    /// clients declare their schema as usual and none can add to it.
    ///
    /// - Throws: ``SyncFailure`` `invalidSchemaChange` for a reserved class name, a
    ///   definition that conflicts with the stored one, a property of an unknown class
    ///   or a link to an unknown class, or anything new without `allowingChanges`.
    static func applySchema(_ txn: StoreTransaction, _ instruction: WireInstruction, allowingChanges: Bool = true) throws {
        func refuseUnlessAllowed(_ what: String) throws {
            guard allowingChanges else {
                throw SyncFailure(.invalidSchemaChange, "\(what) is not in the app's schema, and the app is not in development mode: "
                    + "schema changes are refused")
            }
        }
        switch instruction {
        case .addClass(let schema):
            guard !schema.name.hasPrefix(reservedPrefix) else {
                throw SyncFailure(.invalidSchemaChange, "class name '\(schema.name)' is reserved: names starting with '\(reservedPrefix)' belong to the server")
            }
            let kind = orc_class_kind(rawValue: UInt32(schema.kind.rawValue))
            if let existing = try txn.findClass(schema.name) {
                guard existing.kind == kind else {
                    throw SyncFailure(.invalidSchemaChange, "class '\(schema.name)' exists with another kind than \(schema.kind)")
                }
                let pk = existing.primaryKeyColumn >= 0
                    ? try txn.properties(of: existing.table).first { $0.column == UInt16(existing.primaryKeyColumn) } : nil
                let same: Bool
                switch (schema.primaryKey, pk) {
                case (nil, nil): same = true
                case (let want?, let have?):
                    same = want.name == have.name && want.type.rawValue == UInt8(have.type.rawValue) && want.isOptional == have.isOptional
                default: same = false
                }
                guard same else {
                    throw SyncFailure(.invalidSchemaChange, "class '\(schema.name)' exists with another primary key")
                }
                return
            }
            try refuseUnlessAllowed("class '\(schema.name)'")
            let table = try txn.addClass(schema.name, kind: kind)
            if let pk = schema.primaryKey {
                var flags = UInt32(ORC_PROP_PRIMARY_KEY)
                if pk.isOptional { flags |= UInt32(ORC_PROP_OPTIONAL) }
                try txn.addProperty(table, name: pk.name, type: orc_type(rawValue: UInt32(pk.type.rawValue)), flags: flags)
            }
        case .addProperty(let className, let property):
            guard !property.name.hasPrefix(reservedPrefix) else {
                throw SyncFailure(.invalidSchemaChange, "property name '\(className).\(property.name)' is reserved: names starting with '\(reservedPrefix)' belong to the server")
            }
            guard let cls = try txn.findClass(className) else {
                throw SyncFailure(.invalidSchemaChange, "property '\(property.name)' declared for unknown class '\(className)'")
            }
            var linkTable: UInt32 = 0
            if let target = property.linkTarget {
                guard let targetClass = try txn.findClass(target) else {
                    throw SyncFailure(.invalidSchemaChange, "property '\(className).\(property.name)' links to unknown class '\(target)'")
                }
                linkTable = targetClass.table
            }
            let type = orc_type(rawValue: UInt32(property.type.rawValue))
            let collection = orc_collection(rawValue: UInt32(property.collection.rawValue))
            if let existing = try txn.findProperty(cls.table, property.name) {
                guard existing.type == type, existing.collection == collection,
                      existing.isOptional == property.isOptional, existing.linkTable == linkTable else {
                    throw SyncFailure(.invalidSchemaChange, "property '\(className).\(property.name)' exists with another type")
                }
                return
            }
            try refuseUnlessAllowed("property '\(className).\(property.name)'")
            var flags: UInt32 = property.isOptional ? UInt32(ORC_PROP_OPTIONAL) : 0
            if property.isIndexed { flags |= UInt32(ORC_PROP_INDEXED) }
            try txn.addProperty(cls.table, name: property.name, type: type, collection: collection, flags: flags, linkTable: linkTable)
        default:
            return
        }
    }
}
