import Foundation
import ORCore

/// An object seen through the stored schema rather than a model class: the objects a
/// migration block gets (`oldObject` in the old schema, `newObject` in the new one).
public typealias MigrationObject = DynamicObject

/// A migration in progress: given to `Realm.Configuration.migrationBlock` when the
/// schema version rose.
///
/// ```swift
/// config.migrationBlock = { migration, oldSchemaVersion in
///     if oldSchemaVersion < 2 {
///         migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
///             newObject!["fullName"] = "\(oldObject!["firstName"]!) \(oldObject!["lastName"]!)"
///         }
///     }
/// }
/// ```
public final class Migration {
    /// The schema the file had.
    public let oldSchema: Schema
    /// The schema the file will have.
    public var newSchema: Schema { runner.realm._coordinator.storedSchema(runner.txn).publicSchema(swiftNames: false) }
    let runner: MigrationRunner

    init(runner: MigrationRunner, oldSchema: Schema) {
        self.runner = runner
        self.oldSchema = oldSchema
    }

    /// Calls `block` with every object of the class as it was (`oldObject`) and as it is
    /// in the new schema (`newObject`). The old object's properties go by the names the
    /// file stored, the new one's by the model's Swift names (they differ where a class
    /// renames properties with `propertiesMapping()`).
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard let oldEntry = runner.oldStored[typeName] else { return }
        var keys = orc_keys()
        defer { orc_keys_free(&keys) }
        guard orc_table_keys(runner.txn, oldEntry.table, &keys) == ORC_OK else { return }
        let newEntry = StoredSchema(txn: runner.txn)[typeName]
        for i in 0..<keys.count {
            let key = keys.keys[i]
            guard orc_obj_exists(runner.txn, oldEntry.table, key) else { continue }
            let old = DynamicObject(realm: runner.realm, entry: oldEntry, key: key, readOnly: true)
            let new = newEntry.map { DynamicObject(realm: runner.realm, entry: $0, key: key, readOnly: false, modelNames: true) }
            block(old, new)
        }
    }

    /// Creates an object of the class in the new schema from a dictionary of values.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        guard let entry = StoredSchema(txn: runner.txn)[typeName] else {
            preconditionFailure("Cannot create an object of class '\(typeName)': the class is not in the new schema.")
        }
        do {
            return try DynamicObject.create(realm: runner.realm, entry: entry, value: value, modelNames: true)
        } catch {
            runner.fail(error)
            return DynamicObject(realm: runner.realm, entry: entry, key: 0, readOnly: true)
        }
    }

    /// Deletes an object.
    public func delete(_ object: MigrationObject) {
        let status = orc_obj_erase(runner.txn, object._dynamicEntry.table, object._key)
        if status != ORC_OK { runner.fail(ORC.error(status, "Deleting an object in a migration")) }
    }

    /// Deletes every object of a class and the class itself. Returns whether the class existed.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let entry = StoredSchema(txn: runner.txn)[typeName] else { return false }
        if runner.targetNames.contains(typeName) {
            let status = orc_table_clear(runner.txn, entry.table)
            if status != ORC_OK { runner.fail(ORC.error(status, "Deleting the objects of '\(typeName)'")) }
            return true
        }
        let status = orc_class_remove(runner.txn, entry.table)
        if status != ORC_OK { runner.fail(ORC.error(status, "Deleting class '\(typeName)'")) }
        return status == ORC_OK
    }

    /// Renames a property, keeping its values: `from` is the old name, `to` the name in
    /// the models. The types must match.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        runner.rename(typeName, from: oldName, to: newName)
    }
}

/// Applies a migration inside the open's write transaction: see `SchemaSetup`.
final class MigrationRunner {
    let coordinator: RealmCoordinator
    let configuration: Realm.Configuration
    let txn: OpaquePointer
    let targets: [ObjectTypeInfo]
    let oldVersion: UInt64
    let oldStored: StoredSchema
    let realm: Realm
    var targetNames: Set<String> { Set(targets.map(\.className)) }
    /// Old columns by class and property name (old names may have been moved aside).
    var oldColumns: [String: [String: UInt16]] = [:]
    /// Columns to remove after the block: (class, column).
    private var leftovers: [(String, UInt16)] = []
    private var firstError: Swift.Error?

    init(coordinator: RealmCoordinator, configuration: Realm.Configuration, txn: OpaquePointer,
         targets: [ObjectTypeInfo], oldVersion: UInt64) throws {
        self.coordinator = coordinator
        self.configuration = configuration
        self.txn = txn
        self.targets = targets
        self.oldVersion = oldVersion
        oldStored = StoredSchema(txn: txn)
        realm = Realm(coordinator: coordinator, configuration: configuration, frozen: nil, privateState: true)
    }

    func fail(_ error: Swift.Error) { if firstError == nil { firstError = error } }

    func run() throws {
        for entry in oldStored.classes {
            oldColumns[entry.name] = Dictionary(uniqueKeysWithValues: entry.properties.map { ($0.name, $0.column) })
        }
        try SchemaChanges.addClasses(targets.filter { oldStored[$0.className] == nil }, txn: txn)
        var primaryKeys: [(UInt32, String, String?)] = []
        var indexes: [(ObjectTypeInfo, Int, Bool)] = []
        for info in targets {
            guard let entry = oldStored[info.className] else { continue }
            let diff = SchemaChanges.differences(info, entry, oldStored)
            indexes += diff.indexes.map { (info, $0.0, $0.1) }
            let modelPK = info.primaryKey?.columnName
            let storedPK = entry.primaryKeyColumn >= 0 ? entry.properties.first { $0.column == UInt16(entry.primaryKeyColumn) }?.name : nil
            // The block may change primary key values (uniqueness is checked after it), so
            // the key is lifted during the migration and set again afterwards.
            if modelPK != storedPK || storedPK != nil {
                try ORC.check(orc_class_set_primary_key(txn, entry.table, -1), "Removing the primary key of '\(info.className)'")
                primaryKeys.append((entry.table, info.className, modelPK))
            }
            for property in info.properties where property.isStored {
                let current = StoredSchema(txn: txn)
                if let column = entry.property(named: property.columnName) {
                    let d = property.descriptor
                    let target = column.type == ORC_TYPE_LINK ? oldStored.className(ofTable: column.linkTable) : nil
                    let singleLink = d.type == ORC_TYPE_LINK && d.collection == ORC_COLL_NONE
                    let sameShape = column.type == d.type && column.collection == d.collection && target == d.target?.className()
                    let sameOptional = singleLink || d.type == ORC_TYPE_MIXED || column.isOptional == d.optional
                    if sameShape && sameOptional { continue }
                    // Changed: move the old column aside so the block can still read it.
                    let aside = "__openrealm_old_\(column.column)_\(property.columnName)"
                    try ORC.check(orc_prop_rename(txn, entry.table, column.column, aside), "Migrating '\(info.className).\(property.name)'")
                    leftovers.append((info.className, column.column))
                    let newColumn = try SchemaChanges.addProperty(property, table: entry.table, className: info.className,
                                                                  txn: txn, stored: StoredSchema(txn: txn))
                    if sameShape { try copyValues(table: entry.table, from: column.column, to: newColumn, property: property) }
                } else {
                    try SchemaChanges.addProperty(property, table: entry.table, className: info.className, txn: txn, stored: current)
                }
            }
            for column in entry.properties {
                let index = info.index(ofColumnNamed: column.name)
                if index == nil || info.properties[index!].isLinkingObjects { leftovers.append((info.className, column.column)) }
            }
        }
        coordinator.invalidateBindings()
        bind()
        realm.writeTxn = txn
        defer { realm.writeTxn = nil }
        if let block = configuration.migrationBlock {
            block(Migration(runner: self, oldSchema: oldStored.publicSchema(swiftNames: false)), oldVersion)
        }
        if let error = realm.pendingWriteError { throw error }
        if let firstError { throw firstError }
        let stored = StoredSchema(txn: txn)
        for (className, column) in leftovers {
            guard let entry = stored[className], entry.properties.contains(where: { $0.column == column }) else { continue }
            try ORC.check(orc_prop_remove(txn, entry.table, column), "Removing a property of '\(className)'")
        }
        let final = StoredSchema(txn: txn)
        for (table, className, pk) in primaryKeys {
            guard let pk, let column = final[className]?.property(named: pk) else { continue }
            let status = orc_class_set_primary_key(txn, table, Int32(column.column))
            if status == ORC_ERR_EXISTS {
                throw RealmError(.schemaMismatch, "Primary key property '\(className).\(pk)' has duplicate values after the migration.")
            }
            try ORC.check(status, "Setting the primary key of '\(className)'")
        }
        try SchemaSetup.applyIndexes(indexes, txn: txn)
        coordinator.invalidateBindings()
    }

    private func bind() {
        let stored = StoredSchema(txn: txn)
        for info in targets { if let entry = stored[info.className] { _ = coordinator.bind(info, entry) } }
    }

    /// Copies values between columns of the same type whose optionality changed (nulls
    /// become the type's zero value).
    private func copyValues(table: UInt32, from: UInt16, to: UInt16, property: ObjectTypeInfo.PropertyInfo) throws {
        guard property.descriptor.collection == ORC_COLL_NONE else { return }
        var keys = orc_keys()
        defer { orc_keys_free(&keys) }
        try ORC.check(orc_table_keys(txn, table, &keys), "Migrating values")
        for i in 0..<keys.count {
            var value = orc_value()
            guard orc_obj_get(txn, table, keys.keys[i], from, &value) == ORC_OK, value.type != ORC_TYPE_NULL else { continue }
            let status = orc_obj_set(txn, table, keys.keys[i], to, &value)
            if status != ORC_OK && status != ORC_ERR_EXISTS { try ORC.check(status, "Migrating '\(property.name)'") }
        }
    }

    func rename(_ className: String, from oldName: String, to newName: String) {
        let stored = StoredSchema(txn: txn)
        guard let entry = stored[className] else {
            return fail(RealmError(.schemaMismatch, "Cannot rename a property of '\(className)': the class does not exist."))
        }
        guard let oldColumn = oldColumns[className]?[oldName],
              let old = entry.properties.first(where: { $0.column == oldColumn }) else {
            return fail(RealmError(.schemaMismatch, "Cannot rename property '\(className).\(oldName)': it does not exist in the old schema."))
        }
        if let new = entry.property(named: newName), new.column != oldColumn {
            guard new.type == old.type, new.collection == old.collection else {
                return fail(RealmError(.schemaMismatch, "Cannot rename property '\(className).\(oldName)' to '\(newName)': their types differ."))
            }
            let status = orc_prop_remove(txn, entry.table, new.column)
            if status != ORC_OK { return fail(ORC.error(status, "Renaming '\(className).\(oldName)'")) }
        }
        let status = orc_prop_rename(txn, entry.table, oldColumn, newName)
        if status != ORC_OK { return fail(ORC.error(status, "Renaming '\(className).\(oldName)'")) }
        leftovers.removeAll { $0.0 == className && $0.1 == oldColumn }
        coordinator.invalidateBindings()
        bind()
    }
}

