import ORCore
import OpenRealmQuery
import OpenRealmWire

/// The embedded store's schema as the engine reads it (``SyncSchema``): a class's slot
/// is its table id, a property's its column.
extension StoreTransaction: SchemaWriting {
    package func schema() throws -> SyncSchema {
        if let cached = unitCache.schema { return cached }
        let built = try buildSchema()
        unitCache.schema = built
        return built
    }

    package func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws {
        try AppStore.applySchema(self, instruction, allowingChanges: allowingChanges)
    }

    package func addHiddenColumn(_ column: HiddenColumn, to cls: StoredClass) throws -> StoredProperty {
        if let existing = cls.hiddenColumn(column) { return existing }
        let type: orc_type, flags: UInt32
        switch column {
        case .partition: (type, flags) = (ORC_TYPE_STRING, UInt32(ORC_PROP_OPTIONAL) | UInt32(ORC_PROP_INDEXED))
        case .clocks: (type, flags) = (ORC_TYPE_BINARY, UInt32(ORC_PROP_OPTIONAL))
        }
        let table = cls.slot.table
        let added = try hiddenColumn(table, column.rawValue, type: type, flags: flags)
        guard let property = try findProperty(table, column.rawValue).flatMap({ Self.storedProperty($0, names: [:]) }),
              property.slot.column == added else {
            throw StoreError(status: 0, "column '\(column.rawValue)' of class '\(cls.name)' was not added")
        }
        return property
    }

    /// The synced classes (not the server's own tables) and their properties, the
    /// query schema with them (``SyncSchema/init(listing:)``).
    private func buildSchema() throws -> SyncSchema {
        let all = try classes()
        // Link targets by table, every class (the query schema names synced ones only).
        let names = Dictionary(uniqueKeysWithValues: all.map { ($0.table, $0.name) })
        return SyncSchema(listing: try all.map { info in
            StoredClass(name: info.name, kind: WireClassKind(rawValue: UInt8(info.kind.rawValue)) ?? .topLevel,
                        properties: try properties(of: info.table).compactMap { Self.storedProperty($0, names: names) },
                        slot: StorageSlot(table: info.table))
        })
    }

    /// A stored property as the engine reads it; nil for a type the wire does not carry.
    private static func storedProperty(_ p: PropertyInfo, names: [UInt32: String]) -> StoredProperty? {
        guard let type = WirePropertyType(rawValue: UInt8(p.type.rawValue)),
              let collection = WireCollectionKind(rawValue: UInt8(p.collection.rawValue)) else { return nil }
        return StoredProperty(name: p.name, type: type, collection: collection, isOptional: p.isOptional,
                              isIndexed: p.flags & UInt32(ORC_PROP_INDEXED) != 0, isPrimaryKey: p.isPrimaryKey,
                              linkTarget: type == .link ? names[p.linkTable] : nil, slot: StorageSlot(column: p.column))
    }
}

/// The embedded store's slots: a class's table id, a property's column.
extension StorageSlot {
    init(table: UInt32) {
        self.init(rawValue: UInt64(table))
    }

    init(column: UInt16) {
        self.init(rawValue: UInt64(column))
    }

    var table: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

    var column: UInt16 { UInt16(truncatingIfNeeded: rawValue) }
}
