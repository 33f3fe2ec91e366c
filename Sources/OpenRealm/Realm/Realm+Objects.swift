import Foundation
import ORCore

extension Realm {
    /// Every object of a class, as live `Results`. Only `Object` classes (and
    /// projections of them) can be fetched (``RealmFetchable``): embedded and
    /// asymmetric classes are refused at compile time.
    public func objects<Element: RealmFetchable>(_ type: Element.Type) -> Results<Element> {
        // A projection class is fetched as its root class; its elements are made from the root's.
        guard let objectType = (type as? ObjectBase.Type) ?? (type as? ProjectionOfObjects.Type)?._rootObjectType else {
            preconditionFailure("'\(type.className())' is not an Object class, so realm.objects cannot fetch it.")
        }
        return Results(core: ResultsCore(realm: self, type: objectType, domain: nil, query: ParsedQuery(predicate: .truePredicate)))
    }

    /// The object of a class with the given primary key, or nil.
    ///
    /// The key must have the primary key's type (an `Int` for an int key, an `ObjectId`, a
    /// `String`, a `UUID`, or nil for an optional key).
    public func object<Element: ObjectBase, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        guard let bound = _bindOrNil(type) else { return nil }
        guard let pkIndex = bound.info.primaryKeyIndex else {
            preconditionFailure("'\(bound.className)' does not have a primary key.")
        }
        let property = bound.info.properties[pkIndex]
        if let direct = PrimaryKeyLookup.find(key, property, txn, bound.table) {
            // The binding is the one of `type`, so the accessor is a `type`, an `Element`.
            return direct.map { unsafeDowncast(_accessor(bound, $0), to: Element.self) }
        }
        let found: UInt64? = _withScratchContext { context in
            let converted: any _Persistable
            do {
                converted = try property.valueType._orFromAny(key, context)
            } catch {
                preconditionFailure("Invalid value '\(key)' of type '\(KeyType.self)' for the primary key '\(bound.className).\(property.name)': \((error as? RealmError)?.message ?? "")")
            }
            guard var value = (try? converted._orEncodeIfValue(context)) ?? nil else { return nil }
            var objectKey: UInt64 = 0
            return orc_obj_find(txn, bound.table, &value, &objectKey) == ORC_OK ? objectKey : nil
        }
        guard let objectKey = found else { return nil }
        return _accessor(bound, objectKey) as? Element
    }

    // MARK: Copies

    /// Writes a compacted copy of the realm to a new file, which must not exist.
    ///
    /// - Throws: `.fileExists` when the destination exists, or the file system's error.
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        if encryptionKey != nil {
            throw RealmError(.fail, "Encrypted copies are not supported by OpenRealm: call writeCopy without an encryptionKey.")
        }
        if FileManager.default.fileExists(atPath: fileURL.path) {
            throw RealmError(.fileExists, "Cannot write a copy to '\(fileURL.path)': the file already exists.")
        }
        if isInWriteTransaction {
            throw RealmError(.wrongTransactionState, "Cannot write a copy of a realm inside a write transaction.")
        }
        // ORCore copies the latest committed version; a frozen realm must be copied at its own.
        if isFrozen {
            var latest: UInt64 = 0
            try ORC.check(orc_env_version(_coordinator.env, &latest), "Reading the version of '\(_coordinator.path)'")
            if latest != snapshotVersion {
                throw RealmError(.fail, "Cannot write a copy of a frozen realm at version \(snapshotVersion) to '\(fileURL.path)': the file has moved on to version \(latest), and only the latest version can be copied. Copy the live realm, or freeze it again.")
            }
        }
        let status = orc_env_copy(_coordinator.env, fileURL.path)
        if status == ORC_ERR_EXISTS || status == 17 {
            throw RealmError(.fileExists, "Cannot write a copy to '\(fileURL.path)': the file already exists.")
        }
        try ORC.check(status, "Writing a copy to '\(fileURL.path)'")
    }

    /// Writes a compacted copy of the realm's data where `configuration` says, so that it
    /// opens with that configuration. Local to local copies carry every object; synced
    /// configurations are handled by the sync module.
    ///
    /// - Throws: `.fileExists` when the destination exists; `.invalidArgument` for an
    ///   in-memory destination.
    public func writeCopy(configuration: Configuration) throws {
        if let sync = configuration.sync ?? self.configuration.sync {
            try sync.writeCopy(of: self, to: configuration)
            return
        }
        guard let url = configuration.fileURL else {
            throw RealmError(.invalidArgument, "writeCopy(configuration:) needs a configuration with a fileURL; in-memory realms cannot be copied to.")
        }
        try writeCopy(toFile: url, encryptionKey: configuration.encryptionKey)
    }
}

extension Realm {
    /// Whether the realm holds no objects at all.
    public var isEmpty: Bool {
        let txn = self.txn
        for entry in _coordinator.storedSchema(txn).classes {
            var count: UInt64 = 0
            if orc_table_count(txn, entry.table, &count) == ORC_OK, count > 0 { return false }
        }
        return true
    }
}
