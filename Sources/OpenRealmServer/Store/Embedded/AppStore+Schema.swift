import Foundation
import ORCore
import OpenRealmWire

/// The synced schema's additive changes, which clients declare in development mode
/// (``SchemaWriting/applySchema(_:allowingChanges:)``) and operators apply
/// (``applyConfiguredSchema(_:)``). The engine reads the schema as a ``SyncSchema``.
extension AppStore {
    /// Applies a schema instruction as ``SchemaAddition/plan(_:in:allowingChanges:)``
    /// decides: adds the class or property unless it exists with the same definition.
    /// Without `allowingChanges` (an app not in development mode) a declaration of what
    /// exists is accepted and anything new refused, so that clients declare their schema
    /// as usual and none can add to it.
    ///
    /// - Throws: ``SyncFailure`` `invalidSchemaChange` (see the plan).
    static func applySchema(_ txn: StoreTransaction, _ instruction: WireInstruction, allowingChanges: Bool = true) throws {
        switch try SchemaAddition.plan(instruction, in: txn.schema(), allowingChanges: allowingChanges) {
        case nil:
            return
        case .addClass(let name, let kind, let primaryKey):
            let table = try txn.addClass(name, kind: orc_class_kind(rawValue: UInt32(kind.rawValue)))
            if let pk = primaryKey {
                var flags = UInt32(ORC_PROP_PRIMARY_KEY)
                if pk.isOptional { flags |= UInt32(ORC_PROP_OPTIONAL) }
                try txn.addProperty(table, name: pk.name, type: orc_type(rawValue: UInt32(pk.type.rawValue)), flags: flags)
            }
        case .addProperty(let cls, let property):
            var linkTable: UInt32 = 0
            if let target = property.linkTarget, let targetClass = try txn.schema().storedClass(named: target) {
                linkTable = targetClass.slot.table
            }
            var flags: UInt32 = property.isOptional ? UInt32(ORC_PROP_OPTIONAL) : 0
            if property.isIndexed { flags |= UInt32(ORC_PROP_INDEXED) }
            try txn.addProperty(cls.slot.table, name: property.name, type: orc_type(rawValue: UInt32(property.type.rawValue)),
                                collection: orc_collection(rawValue: UInt32(property.collection.rawValue)), flags: flags,
                                linkTable: linkTable)
        }
    }
}
