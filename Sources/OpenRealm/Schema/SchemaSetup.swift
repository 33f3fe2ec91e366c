import Foundation
import ORCore

/// Brings a file's schema and the models together on open: creates the classes of a
/// new file, adds new classes and index changes to an existing one, runs a migration
/// when the schema version rose, and refuses (naming every difference) when the models
/// changed without one.
enum SchemaSetup {
    /// Thrown inside the open when `deleteRealmIfMigrationNeeded` applies.
    struct DeleteAndRetry: Error {}

    /// The classes a configuration opens with. With `objectTypes`, those and the classes
    /// they link to, all of which must be valid and have distinct stored names. Without,
    /// every known class except those that cannot be stored unambiguously (an invalid
    /// declaration, a stored name several known classes share, or a link to such a
    /// class): those are bound when first used, which reports their problem then.
    static func targetTypes(_ configuration: Realm.Configuration) throws(RealmError) -> [ObjectTypeInfo] {
        if let types = configuration.objectTypes {
            let infos = ObjectTypeInfo.closure(of: types)
            if let invalid = infos.compactMap(\.schemaProblem).first {
                throw RealmError(.schemaMismatch, "Schema validation failed: \(invalid)")
            }
            if let (name, clash) = Dictionary(grouping: infos, by: \.className).first(where: { $0.value.count > 1 }) {
                throw RealmError(.schemaMismatch, "Schema validation failed: the model classes "
                                 + clash.map { "'\(String(reflecting: $0.type))'" }.joined(separator: " and ")
                                 + " are both stored as class '\(name)'; list only one of them in objectTypes.")
            }
            return infos
        }
        let known = ObjectTypeInfo.closure(of: ObjectTypeInfo.knownTypes.map(\.type))
        let countByName = Dictionary(grouping: known, by: \.className).mapValues(\.count)
        func storable(_ info: ObjectTypeInfo) -> Bool { info.schemaProblem == nil && countByName[info.className] == 1 }
        return known.filter { info in ObjectTypeInfo.closure(of: [info.type]).allSatisfy(storable) }
    }

    static func prepare(_ coordinator: RealmCoordinator, _ configuration: Realm.Configuration) throws {
        let targets = try targetTypes(configuration)
        var txn: OpaquePointer?
        try ORC.check(orc_txn_begin(coordinator.env, Int32(ORC_TXN_READ), &txn), "Reading the schema")
        let stored = StoredSchema(txn: txn!)
        let fileVersion = RealmCoordinator.readSchemaVersion(txn!)
        orc_txn_abort(txn)

        var missing: [ObjectTypeInfo] = []
        var problems: [String] = []
        var indexChanges: [(ObjectTypeInfo, Int, Bool)] = []
        for info in targets {
            guard let entry = stored[info.className] else { missing.append(info); continue }
            let diff = SchemaChanges.differences(info, entry, stored)
            problems += diff.migration
            indexChanges += diff.indexes.map { (info, $0.0, $0.1) }
        }
        let isNewFile = stored.classes.isEmpty && fileVersion == nil
        let currentVersion = fileVersion ?? 0

        if !isNewFile, let fileVersion, configuration.schemaVersion < fileVersion {
            throw RealmError(.schemaMismatch, "Provided schema version \(configuration.schemaVersion) is less than last set version \(fileVersion).")
        }
        let needsMigration = !problems.isEmpty
        let versionRose = !isNewFile && configuration.schemaVersion > currentVersion
        if needsMigration && !versionRose {
            if configuration.deleteRealmIfMigrationNeeded && !configuration.readOnly { throw DeleteAndRetry() }
            throw RealmError(.schemaMismatch, "Migration is required due to the following errors:\n" + problems.map { "- \($0)" }.joined(separator: "\n"))
        }
        let needsWrite = isNewFile || !missing.isEmpty || !indexChanges.isEmpty || versionRose || fileVersion == nil
        if needsWrite && configuration.readOnly {
            if needsMigration || versionRose {
                throw RealmError(.schemaMismatch, "The read-only realm at '\(coordinator.path)' needs a migration to schema version \(configuration.schemaVersion).")
            }
        } else if needsWrite {
            if versionRose && configuration.deleteRealmIfMigrationNeeded && needsMigration && configuration.migrationBlock == nil {
                throw DeleteAndRetry()
            }
            var txn: OpaquePointer?
            try ORC.check(orc_txn_begin(coordinator.env, Int32(ORC_TXN_WRITE), &txn), "Updating the schema")
            do {
                if versionRose {
                    try MigrationRunner(coordinator: coordinator, configuration: configuration, txn: txn!,
                                        targets: targets, oldVersion: currentVersion).run()
                } else {
                    try SchemaChanges.addClasses(missing, txn: txn!)
                    try applyIndexes(indexChanges, txn: txn!)
                }
                if fileVersion == nil || versionRose || isNewFile {
                    try RealmCoordinator.writeSchemaVersion(txn!, configuration.schemaVersion)
                }
                try ORC.check(orc_txn_commit(txn, nil), "Committing the schema")
            } catch {
                orc_txn_abort(txn)
                coordinator.invalidateBindings()
                throw error
            }
        }
        try bindAll(coordinator, targets)
    }

    static func applyIndexes(_ changes: [(ObjectTypeInfo, Int, Bool)], txn: OpaquePointer) throws(RealmError) {
        let stored = StoredSchema(txn: txn)
        for (info, index, indexed) in changes {
            guard let entry = stored[info.className], let column = entry.property(named: info.properties[index].columnName) else { continue }
            try ORC.check(orc_prop_set_indexed(txn, entry.table, column.column, indexed),
                          "Changing the index of '\(info.className).\(info.properties[index].name)'")
        }
    }

    /// Binds every target class present in the file.
    static func bindAll(_ coordinator: RealmCoordinator, _ targets: [ObjectTypeInfo]) throws {
        var txn: OpaquePointer?
        try ORC.check(orc_txn_begin(coordinator.env, Int32(ORC_TXN_READ), &txn), "Reading the schema")
        defer { orc_txn_abort(txn) }
        let stored = coordinator.storedSchema(txn!)
        for info in targets {
            if let entry = stored[info.className] { _ = coordinator.bind(info, entry) }
        }
    }
}
