import OpenRealmQuery
import OpenRealmWire

extension SyncSchema {
    /// The schema of a store's classes as the store lists them: every class with every
    /// column it has in `properties`, in the store's order. What is named with the
    /// reserved `__` is the server's: such classes are left out, such columns become the
    /// class's ``StoredClass/hidden`` ones. The query schema has the synced properties
    /// and `__partition` (partitions' predicates query it), not the clocks, and no link
    /// to a class of the server's; its table and column numbers are the slots'.
    package init(listing all: [StoredClass]) {
        let reserved = StorageConventions.reservedPrefix
        var stored: [StoredClass] = []
        var query: [QuerySchemaClass] = []
        for var cls in all where !cls.name.hasPrefix(reserved) {
            let columns = cls.properties
            cls.properties = columns.filter { !$0.name.hasPrefix(reserved) }
            cls.hidden = columns.filter { $0.name.hasPrefix(reserved) }
            let queried = columns.compactMap { property -> QuerySchemaProperty? in
                guard property.name != HiddenColumn.clocks.rawValue,
                      let type = QueryPropertyType(rawValue: property.type.rawValue),
                      let collection = QueryCollectionKind(rawValue: property.collection.rawValue) else { return nil }
                let target = type == .link ? property.linkTarget.flatMap { $0.hasPrefix(reserved) ? nil : $0 } : nil
                return QuerySchemaProperty(name: property.name, column: UInt16(truncatingIfNeeded: property.slot.rawValue), type: type,
                                           collection: collection, isOptional: property.isOptional, linkTargetClass: target)
            }
            stored.append(cls)
            query.append(QuerySchemaClass(name: cls.name, table: UInt32(truncatingIfNeeded: cls.slot.rawValue), isEmbedded: cls.isEmbedded,
                                          properties: queried))
        }
        self.init(classes: stored, query: QuerySchemaList(query))
    }
}
