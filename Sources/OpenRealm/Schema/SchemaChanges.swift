import Foundation
import ORCore

/// Compares model classes with the stored schema and applies changes to the file.
enum SchemaChanges {
    /// The differences between a model class and its stored class that need a migration,
    /// each a sentence naming the property, and whether only index flags differ otherwise.
    static func differences(_ info: ObjectTypeInfo, _ entry: StoredSchema.ClassEntry, _ stored: StoredSchema) -> (migration: [String], indexes: [(Int, Bool)]) {
        var problems: [String] = []
        var indexes: [(Int, Bool)] = []
        let name = info.className
        if (info.kind == ORC_CLASS_EMBEDDED) != (entry.kind == ORC_CLASS_EMBEDDED) {
            problems.append("Class '\(name)' has been changed from \(entry.kind == ORC_CLASS_EMBEDDED ? "embedded" : "top-level") to \(info.kind == ORC_CLASS_EMBEDDED ? "embedded" : "top-level").")
        }
        for (i, property) in info.properties.enumerated() where property.isStored {
            guard let column = entry.property(named: property.columnName) else {
                problems.append("Property '\(name).\(property.columnName)' has been added.")
                continue
            }
            let d = property.descriptor
            let storedTarget = column.type == ORC_TYPE_LINK ? stored.className(ofTable: column.linkTable) : nil
            let modelTarget = d.target?.className()
            if column.type != d.type || column.collection != d.collection || storedTarget != modelTarget {
                problems.append("Property '\(name).\(property.columnName)' has been changed from '\(describe(column.type, column.collection, storedTarget))' to '\(describe(d.type, d.collection, modelTarget))'.")
                continue
            }
            let singleLink = d.type == ORC_TYPE_LINK && d.collection == ORC_COLL_NONE
            if !singleLink && d.type != ORC_TYPE_MIXED && column.isOptional != d.optional {
                problems.append("Property '\(name).\(property.columnName)' has been made \(d.optional ? "optional" : "required").")
            }
            if column.isPrimaryKey != property.isPrimaryKey {
                problems.append(property.isPrimaryKey
                    ? "Primary Key for class '\(name)' has been added as '\(property.columnName)'."
                    : "Primary Key '\(property.columnName)' for class '\(name)' has been removed.")
            }
            if !property.isPrimaryKey && column.isIndexed != property.isIndexed {
                indexes.append((i, property.isIndexed))
            }
        }
        for column in entry.properties where info.index(ofColumnNamed: column.name) == nil
            || info.properties[info.index(ofColumnNamed: column.name)!].isLinkingObjects {
            problems.append("Property '\(name).\(column.name)' has been removed.")
        }
        return (problems, indexes)
    }

    static func describe(_ type: orc_type, _ collection: orc_collection, _ target: String?) -> String {
        let base = type == ORC_TYPE_LINK ? (target ?? "object") : PropertyType(type).description
        switch collection {
        case ORC_COLL_LIST: return "array<\(base)>"
        case ORC_COLL_SET: return "set<\(base)>"
        case ORC_COLL_DICT: return "dictionary<string, \(base)>"
        default: return base
        }
    }

    /// Adds the classes of `infos` missing from the file, then their properties.
    static func addClasses(_ infos: [ObjectTypeInfo], txn: OpaquePointer) throws(RealmError) {
        var stored = StoredSchema(txn: txn)
        var added: [ObjectTypeInfo] = []
        for info in infos where stored[info.className] == nil {
            var table: UInt32 = 0
            try ORC.check(orc_class_add(txn, info.className, info.kind, &table), "Adding class '\(info.className)'")
            added.append(info)
        }
        stored = StoredSchema(txn: txn)
        for info in added {
            let table = stored[info.className]!.table
            for property in info.properties where property.isStored {
                _ = try addProperty(property, table: table, className: info.className, txn: txn, stored: stored)
            }
        }
    }

    @discardableResult
    static func addProperty(_ property: ObjectTypeInfo.PropertyInfo, table: UInt32, className: String,
                            txn: OpaquePointer, stored: StoredSchema) throws(RealmError) -> UInt16 {
        let d = property.descriptor
        var flags: UInt32 = 0
        let singleLink = d.type == ORC_TYPE_LINK && d.collection == ORC_COLL_NONE
        if d.optional || singleLink || d.type == ORC_TYPE_MIXED { flags |= UInt32(ORC_PROP_OPTIONAL) }
        if property.isPrimaryKey { flags |= UInt32(ORC_PROP_PRIMARY_KEY) }
        if property.isIndexed { flags |= UInt32(ORC_PROP_INDEXED) }
        var linkTable: UInt32 = 0
        if let target = d.target {
            guard let entry = stored[target.className()] else {
                throw RealmError(.schemaMismatch, "Property '\(className).\(property.name)' links to class '\(target.className())', which is not in the schema.")
            }
            linkTable = entry.table
        }
        var column: UInt16 = 0
        let status = property.columnName.withCString { name -> Int32 in
            var spec = orc_prop_spec(name: name, type: d.type, collection: d.collection, flags: flags, link_table: linkTable)
            return orc_prop_add(txn, table, &spec, &column)
        }
        try ORC.check(status, "Adding property '\(className).\(property.name)'")
        return column
    }
}
