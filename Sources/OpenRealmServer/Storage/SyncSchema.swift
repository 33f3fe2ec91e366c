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
struct SyncSchema: Sendable {
    /// The synced classes, in the store's order.
    let classes: [StoredClass]
    /// The schema as the query validator and compiler see it: the synced properties and
    /// the hidden `__partition` column (partitions' predicates query it), without the
    /// property clocks.
    let query: QuerySchemaList
    private let index: [String: Int]

    init(classes: [StoredClass], query: QuerySchemaList) {
        self.classes = classes
        self.query = query
        var index: [String: Int] = [:]
        for (i, cls) in classes.enumerated() { index[cls.name] = i }
        self.index = index
    }

    /// The synced class `name` (top-level, embedded or asymmetric), or nil.
    func storedClass(named name: String) -> StoredClass? {
        index[name].map { classes[$0] }
    }

    /// The synced class that is not embedded named `name`, or nil: the classes whose
    /// objects are named by a primary key on the wire.
    func topLevelClass(named name: String) -> StoredClass? {
        guard let cls = storedClass(named: name), !cls.isEmbedded else { return nil }
        return cls
    }

    /// The embedded class `property` links to (as a single link, a list or a
    /// dictionary), or nil when it does not link to an embedded class.
    func embeddedTarget(of property: StoredProperty) -> StoredClass? {
        guard property.type == .link, let target = property.linkTarget,
              let cls = storedClass(named: target), cls.isEmbedded else { return nil }
        return cls
    }
}

/// Where a store keeps a class or a property (the embedded store: a table id or a
/// column). Opaque to the engine: it only hands a slot back to the store that made it,
/// within the unit of work that read the schema.
struct StorageSlot: Hashable, Sendable {
    let rawValue: UInt64

    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }
}

/// A synced class.
struct StoredClass: Hashable, Sendable {
    var name: String
    /// Top-level, embedded (owned by one parent link) or asymmetric (upload only).
    var kind: WireClassKind
    /// The synced properties, the primary key among them, in the store's order.
    var properties: [StoredProperty]
    /// The server's own columns of the class (``HiddenColumn``), never sent to clients.
    var hidden: [StoredProperty]
    var slot: StorageSlot

    var isEmbedded: Bool { kind == .embedded }

    /// The primary key property, or nil (embedded classes have none).
    var primaryKey: StoredProperty? { properties.first { $0.isPrimaryKey } ?? hidden.first { $0.isPrimaryKey } }

    /// The synced property `name`, or nil (also for the server's hidden columns).
    func property(named name: String) -> StoredProperty? {
        properties.first { $0.name == name }
    }

    /// The property or hidden column `name`, or nil: what a lookup of a stored column by
    /// name finds.
    func column(named name: String) -> StoredProperty? {
        property(named: name) ?? hidden.first { $0.name == name }
    }

    /// The hidden column `column`, or nil when the class does not have it yet.
    func hiddenColumn(_ column: HiddenColumn) -> StoredProperty? {
        hidden.first { $0.name == column.rawValue }
    }
}

/// A property of a synced class (or one of the server's hidden columns).
struct StoredProperty: Hashable, Sendable {
    var name: String
    /// The value type (of the elements, for a collection).
    var type: WirePropertyType
    /// One value, or a list, set or dictionary of them.
    var collection: WireCollectionKind
    var isOptional: Bool
    var isIndexed: Bool
    var isPrimaryKey: Bool
    /// For a link: the name of the class it links to.
    var linkTarget: String?
    var slot: StorageSlot
}

/// The server's own columns of a synced class: kept with each object, never sent to a
/// client nor writable by one (their names start with the reserved `__`).
enum HiddenColumn: String, Sendable, CaseIterable {
    /// The partition of an object of a class that does not declare the partition
    /// property (``SubscriptionView/Partition``): an optional, indexed string.
    case partition = "__partition"
    /// The object's property clocks (``PropertyClocks/encoded()``): optional bytes.
    case clocks = "__clocks"
}

/// The schema, read in a unit of work.
protocol SchemaReading: AnyObject {
    /// The synced schema as the unit sees it: built on first use and kept for the unit,
    /// built again after the unit changes the schema.
    func schema() throws -> SyncSchema
}

/// The schema, changed: additive only, inside the unit that integrates the changeset
/// declaring it.
protocol SchemaWriting: SchemaReading {
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
