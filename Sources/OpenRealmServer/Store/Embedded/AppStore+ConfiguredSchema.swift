import Foundation
import ORCore
import OpenRealmWire

/// The schema an operator gives a production app (``AppSchema``: the configuration's
/// `"schema"`, `openrealm-server schema apply`), and the stored schema in that form
/// (`schema show`).
extension AppStore {
    /// Adds what `schema` has and the store lacks, in one write transaction: additive
    /// only, as a development-mode client's declaration is. A running server calls it
    /// holding the app's sync lock (``SyncApp/syncLock``).
    ///
    /// - Returns: what was added (`class 'Task'`, `property 'Task.title'`), in order;
    ///   empty when the store already had all of it.
    /// - Throws: ``ServerError`` naming the class or property whose definition
    ///   conflicts with the stored one (another type, kind or primary key), with both
    ///   definitions; nothing is applied then.
    @discardableResult
    func applyConfiguredSchema(_ schema: AppSchema) throws -> [String] {
        try environment.write { txn in
            let before = try Self.storedSchema(txn)
            let stored = Dictionary(uniqueKeysWithValues: before.classes.map { ($0.schema.name, $0) })
            var added: [String] = []
            for instruction in schema.instructions {
                switch instruction {
                case .addClass(let cls):
                    if stored[cls.name] == nil { added.append("class '\(cls.name)'") }
                case .addProperty(let className, let property):
                    if stored[className]?.properties.contains(where: { $0.name == property.name }) != true,
                       stored[className]?.schema.primaryKey?.name != property.name {
                        added.append("property '\(className).\(property.name)'")
                    }
                default:
                    break
                }
                do {
                    try Self.applySchema(txn, instruction, allowingChanges: true)
                } catch let failure as SyncFailure {
                    throw AppSchema.conflict(appId: appId, failure, instruction, stored: before)
                }
            }
            return added
        }
    }

    /// The synced classes (not the server's own tables and columns) as an ``AppSchema``,
    /// classes and properties by name.
    func storedSchema() throws -> AppSchema {
        try environment.read { txn in try Self.storedSchema(txn) }
    }

    static func storedSchema(_ txn: StoreTransaction) throws -> AppSchema {
        let classes = try txn.classes().filter { !$0.name.hasPrefix(reservedPrefix) }
        let names = Dictionary(uniqueKeysWithValues: classes.map { ($0.table, $0.name) })
        return AppSchema(classes: try classes.sorted { $0.name < $1.name }.map { cls in
            var primaryKey: WirePrimaryKeySchema?
            var properties: [WirePropertySchema] = []
            for p in try txn.properties(of: cls.table) where !p.name.hasPrefix(reservedPrefix) {
                guard let type = WirePropertyType(rawValue: UInt8(p.type.rawValue)),
                      let collection = WireCollectionKind(rawValue: UInt8(p.collection.rawValue)) else { continue }
                if p.isPrimaryKey {
                    primaryKey = WirePrimaryKeySchema(name: p.name, type: type, isOptional: p.isOptional)
                } else {
                    properties.append(WirePropertySchema(name: p.name, type: type, collection: collection, isOptional: p.isOptional,
                                                         isIndexed: p.flags & UInt32(ORC_PROP_INDEXED) != 0,
                                                         linkTarget: type == .link ? names[p.linkTable] : nil))
                }
            }
            let kind = WireClassKind(rawValue: UInt8(cls.kind.rawValue)) ?? .topLevel
            return AppSchema.Class(schema: WireClassSchema(name: cls.name, kind: kind, primaryKey: primaryKey),
                                   properties: properties.sorted { $0.name < $1.name })
        })
    }
}
