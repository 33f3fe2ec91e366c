import OpenRealmQuery
import OpenRealmWire

/// The synced schema as the sync engine reads it: the classes clients declared (not the
/// server's own tables), each with its properties by name and kind, and the same schema
/// as the query validator and compiler see it (``query``). A store builds it once per
/// unit of work (``SchemaReading/schema()``) and builds it again only after the unit
/// changed the schema, so the engine looks classes and properties up in memory rather
/// than asking the store per instruction.
///
/// Classes and properties carry a ``StorageSlot``: where the store keeps them, which the
/// engine hands back to the store's object operations untouched (the embedded store puts
/// its table id or column there, so a hot path needs no lookup by name).
package struct SyncSchema: Sendable {
    /// The synced classes, in the store's order.
    package let classes: [StoredClass]
    /// The schema as the query validator and compiler see it: the synced properties and
    /// the hidden `__partition` column (partitions' predicates query it), without the
    /// property clocks.
    package let query: QuerySchemaList
    private let index: [String: Int]

    package init(classes: [StoredClass], query: QuerySchemaList) {
        self.classes = classes
        self.query = query
        var index: [String: Int] = [:]
        for (i, cls) in classes.enumerated() { index[cls.name] = i }
        self.index = index
    }

    /// The synced class `name` (top-level, embedded or asymmetric), or nil.
    package func storedClass(named name: String) -> StoredClass? {
        index[name].map { classes[$0] }
    }

    /// The synced class that is not embedded named `name`, or nil: the classes whose
    /// objects are named by a primary key on the wire.
    package func topLevelClass(named name: String) -> StoredClass? {
        guard let cls = storedClass(named: name), !cls.isEmbedded else { return nil }
        return cls
    }

    /// The embedded class `property` links to (as a single link, a list or a
    /// dictionary), or nil when it does not link to an embedded class.
    package func embeddedTarget(of property: StoredProperty) -> StoredClass? {
        guard property.type == .link, let target = property.linkTarget,
              let cls = storedClass(named: target), cls.isEmbedded else { return nil }
        return cls
    }
}

/// Where a store keeps a class or a property (the embedded store: a table id or a
/// column). Opaque to the engine: it only hands a slot back to the store that made it,
/// within the unit of work that read the schema.
package struct StorageSlot: Hashable, Sendable {
    package let rawValue: UInt64

    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }
}

/// A synced class.
package struct StoredClass: Hashable, Sendable {
    package var name: String
    /// Top-level, embedded (owned by one parent link) or asymmetric (upload only).
    package var kind: WireClassKind
    /// The synced properties, the primary key among them, in the store's order.
    package var properties: [StoredProperty]
    /// The server's own columns of the class (``HiddenColumn``), never sent to clients.
    package var hidden: [StoredProperty]
    package var slot: StorageSlot

    package init(name: String, kind: WireClassKind, properties: [StoredProperty], hidden: [StoredProperty] = [], slot: StorageSlot) {
        self.name = name
        self.kind = kind
        self.properties = properties
        self.hidden = hidden
        self.slot = slot
    }

    package var isEmbedded: Bool { kind == .embedded }

    /// The primary key property, or nil (embedded classes have none).
    package var primaryKey: StoredProperty? {
        Self.first(in: properties) { $0.isPrimaryKey } ?? Self.first(in: hidden) { $0.isPrimaryKey }
    }

    /// The synced property `name`, or nil (also for the server's hidden columns).
    package func property(named name: String) -> StoredProperty? {
        Self.first(in: properties) { $0.name == name }
    }

    /// The property or hidden column `name`, or nil: what a lookup of a stored column by
    /// name finds.
    package func column(named name: String) -> StoredProperty? {
        property(named: name) ?? Self.first(in: hidden) { $0.name == name }
    }

    /// The hidden column `column`, or nil when the class does not have it yet.
    package func hiddenColumn(_ column: HiddenColumn) -> StoredProperty? {
        Self.first(in: hidden) { $0.name == column.rawValue }
    }

    /// The first of `properties` that `matches`, examined in place: the integration looks
    /// up a property by name for every value of every instruction, and copying each
    /// property it passes (three strings' retains and releases) was most of the lookup.
    @inline(__always)
    private static func first(in properties: [StoredProperty], where matches: (StoredProperty) -> Bool) -> StoredProperty? {
        var i = 0
        while i < properties.count {
            if matches(properties[i]) { return properties[i] }
            i += 1
        }
        return nil
    }
}

/// A property of a synced class (or one of the server's hidden columns).
package struct StoredProperty: Hashable, Sendable {
    package var name: String
    /// The value type (of the elements, for a collection).
    package var type: WirePropertyType
    /// One value, or a list, set or dictionary of them.
    package var collection: WireCollectionKind
    package var isOptional: Bool
    package var isIndexed: Bool
    package var isPrimaryKey: Bool
    /// For a link: the name of the class it links to.
    package var linkTarget: String?
    package var slot: StorageSlot

    package init(name: String, type: WirePropertyType, collection: WireCollectionKind = .none, isOptional: Bool = false,
                 isIndexed: Bool = false, isPrimaryKey: Bool = false, linkTarget: String? = nil, slot: StorageSlot) {
        self.name = name
        self.type = type
        self.collection = collection
        self.isOptional = isOptional
        self.isIndexed = isIndexed
        self.isPrimaryKey = isPrimaryKey
        self.linkTarget = linkTarget
        self.slot = slot
    }
}

/// The server's own columns of a synced class: kept with each object, never sent to a
/// client nor writable by one (their names start with the reserved `__`).
package enum HiddenColumn: String, Sendable, CaseIterable {
    /// The partition of an object of a class that does not declare the partition
    /// property (``SubscriptionView/Partition``): an optional, indexed string.
    case partition = "__partition"
    /// The object's property clocks (``PropertyClocks/encoded()``): optional bytes.
    case clocks = "__clocks"
}

/// The schema, read in a unit of work.
package protocol SchemaReading: AnyObject {
    /// The synced schema as the unit sees it: built on first use and kept for the unit,
    /// built again after the unit changes the schema.
    func schema() throws -> SyncSchema
}

/// The schema, changed: additive only, inside the unit that integrates the changeset
/// declaring it.
package protocol SchemaWriting: SchemaReading {
    /// Applies a schema instruction (`addClass`, `addProperty`; others are ignored):
    /// adds the class or property unless it exists with the same definition. Without
    /// `allowingChanges` (an app not in development mode) a declaration of what exists
    /// is accepted and anything new refused.
    ///
    /// - Throws: ``SyncFailure`` `invalidSchemaChange` for a reserved name, a definition
    ///   that conflicts with the stored one, a property of an unknown class or a link to
    ///   an unknown class, or anything new without `allowingChanges`.
    func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws
    /// The hidden column `column` of `cls`, added when the class has none yet.
    func addHiddenColumn(_ column: HiddenColumn, to cls: StoredClass) throws -> StoredProperty
}
