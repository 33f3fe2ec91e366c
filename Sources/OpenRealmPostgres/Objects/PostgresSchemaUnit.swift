import OpenRealmServer
import OpenRealmWire
import PostgresNIO

/// An app's synced schema in PostgreSQL (migration 6, ``PostgresSchema``), read and
/// changed inside one ``PostgresUnit``: the engine's ``SchemaWriting``.
///
/// Classes and properties are rows kept in the order they were made; a class's slot is
/// its position among the app's classes, a property's its position in its class. The
/// schema is read once per unit (one query) and again only after the unit changed it.
/// Changes are checked by the rules every store shares (``SchemaAddition``) and made
/// only inside the app's write lock, so positions are handed out one at a time.
package final class PostgresSchemaUnit: SchemaWriting, @unchecked Sendable {
    package let unit: PostgresUnit
    package let appId: String
    private var cached: SyncSchema?

    package init(_ unit: PostgresUnit, appId: String) {
        self.unit = unit
        self.appId = appId
    }

    package func schema() throws -> SyncSchema {
        if let cached { return cached }
        typealias Row = (String, Int32, Int16, String?, Int32?, Int16?, Int16?, Bool?, Bool?, Bool?, String?)
        let rows = try unit.query("""
            SELECT c.name, c.position, c.kind, p.name, p.position, p.type, p.collection, p.optional, p.indexed, p.primary_key,
                   p.link_target
            FROM openrealm_classes c
            LEFT JOIN openrealm_properties p ON p.app_id = c.app_id AND p.class_name = c.name
            WHERE c.app_id = \(appId)
            ORDER BY c.position, p.position
            """) { rows -> [Row] in
            var all: [Row] = []
            for try await row in rows.decode(Row.self) { all.append(row) }
            return all
        }
        var classes: [StoredClass] = []
        for (className, classPosition, kind, name, position, type, collection, optional, indexed, primaryKey, target) in rows {
            if classes.last?.name != className {
                guard let kind = WireClassKind(rawValue: UInt8(clamping: kind)) else { throw damaged("class '\(className)' has kind \(kind)") }
                classes.append(StoredClass(name: className, kind: kind, properties: [],
                                           slot: StorageSlot(rawValue: UInt64(max(0, classPosition)))))
            }
            guard let name, let position, let type, let collection else { continue }
            guard let type = WirePropertyType(rawValue: UInt8(clamping: type)),
                  let collection = WireCollectionKind(rawValue: UInt8(clamping: collection)) else {
                throw damaged("property '\(className).\(name)' has type \(type) in collection \(collection)")
            }
            classes[classes.count - 1].properties.append(StoredProperty(
                name: name, type: type, collection: collection, isOptional: optional ?? false, isIndexed: indexed ?? false,
                isPrimaryKey: primaryKey ?? false, linkTarget: target, slot: StorageSlot(rawValue: UInt64(max(0, position)))))
        }
        let built = SyncSchema(listing: classes)
        cached = built
        return built
    }

    package func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws {
        switch try SchemaAddition.plan(instruction, in: schema(), allowingChanges: allowingChanges) {
        case nil:
            return
        case .addClass(let name, let kind, let primaryKey):
            try unit.perform("""
                INSERT INTO openrealm_classes (app_id, name, position, kind)
                SELECT \(appId), \(name), coalesce(max(position) + 1, 0), \(Int16(kind.rawValue))
                FROM openrealm_classes WHERE app_id = \(appId)
                """)
            if let pk = primaryKey {
                try insertProperty(className: name, name: pk.name, type: pk.type, collection: .none, isOptional: pk.isOptional,
                                   isIndexed: false, isPrimaryKey: true, linkTarget: nil)
            }
        case .addProperty(let cls, let property):
            try insertProperty(className: cls.name, name: property.name, type: property.type, collection: property.collection,
                               isOptional: property.isOptional, isIndexed: property.isIndexed, isPrimaryKey: false,
                               linkTarget: property.linkTarget)
        }
        cached = nil
    }

    package func addHiddenColumn(_ column: HiddenColumn, to cls: StoredClass) throws -> StoredProperty {
        if let existing = try cls.hiddenColumn(column) ?? schema().storedClass(named: cls.name)?.hiddenColumn(column) {
            return existing
        }
        switch column {
        case .partition:
            try insertProperty(className: cls.name, name: column.rawValue, type: .string, collection: .none, isOptional: true,
                               isIndexed: true, isPrimaryKey: false, linkTarget: nil)
        case .clocks:
            try insertProperty(className: cls.name, name: column.rawValue, type: .binary, collection: .none, isOptional: true,
                               isIndexed: false, isPrimaryKey: false, linkTarget: nil)
        }
        cached = nil
        guard let added = try schema().storedClass(named: cls.name)?.hiddenColumn(column) else {
            throw damaged("column '\(column.rawValue)' of class '\(cls.name)' was not added")
        }
        return added
    }

    private func insertProperty(className: String, name: String, type: WirePropertyType, collection: WireCollectionKind,
                                isOptional: Bool, isIndexed: Bool, isPrimaryKey: Bool, linkTarget: String?) throws {
        try unit.perform("""
            INSERT INTO openrealm_properties
                (app_id, class_name, name, position, type, collection, optional, indexed, primary_key, link_target)
            SELECT \(appId), \(className), \(name), coalesce(max(position) + 1, 0), \(Int16(type.rawValue)),
                   \(Int16(collection.rawValue)), \(isOptional), \(isIndexed), \(isPrimaryKey), \(linkTarget)
            FROM openrealm_properties WHERE app_id = \(appId) AND class_name = \(className)
            """)
    }

    private func damaged(_ what: String) -> PostgresStoreError {
        PostgresStoreError(.statementFailed, "the synced schema of app '\(appId)' on \(unit.pool.location) is damaged: \(what)")
    }
}
