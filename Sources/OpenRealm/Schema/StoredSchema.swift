import Foundation
import ORCore

/// The schema as the file stores it, read in one transaction.
struct StoredSchema {
    struct PropertyEntry {
        let name: String
        let column: UInt16
        let type: orc_type
        let collection: orc_collection
        let flags: UInt32
        let linkTable: UInt32
        var isOptional: Bool { flags & UInt32(ORC_PROP_OPTIONAL) != 0 }
        var isPrimaryKey: Bool { flags & UInt32(ORC_PROP_PRIMARY_KEY) != 0 }
        var isIndexed: Bool { flags & UInt32(ORC_PROP_INDEXED) != 0 }
    }

    struct ClassEntry {
        let name: String
        let table: UInt32
        let kind: orc_class_kind
        let primaryKeyColumn: Int32
        let properties: [PropertyEntry]

        func property(named name: String) -> PropertyEntry? { properties.first { $0.name == name } }
    }

    private(set) var classes: [ClassEntry] = []
    private var byName: [String: Int] = [:]
    private var byTable: [UInt32: Int] = [:]

    init(txn: OpaquePointer) {
        let count = orc_schema_class_count(txn)
        for i in 0..<count {
            var info = orc_class_info()
            guard orc_schema_class_at(txn, i, &info) == ORC_OK else { continue }
            var properties: [PropertyEntry] = []
            for j in 0..<info.prop_count {
                var prop = orc_prop_info()
                guard orc_schema_prop_at(txn, info.table, j, &prop) == ORC_OK else { continue }
                properties.append(PropertyEntry(name: String(cString: prop.name), column: prop.col, type: prop.type,
                                                collection: prop.collection, flags: prop.flags, linkTable: prop.link_table))
            }
            let entry = ClassEntry(name: String(cString: info.name), table: info.table, kind: info.kind,
                                   primaryKeyColumn: info.pk_col, properties: properties)
            byName[entry.name] = classes.count
            byTable[entry.table] = classes.count
            classes.append(entry)
        }
    }

    subscript(name: String) -> ClassEntry? { byName[name].map { classes[$0] } }
    subscript(table table: UInt32) -> ClassEntry? { byTable[table].map { classes[$0] } }

    func className(ofTable table: UInt32) -> String? { self[table: table]?.name }

    /// The public description of the stored schema (linking-objects properties are not
    /// stored). With `swiftNames`, a column a known model class renames with
    /// `propertiesMapping()` is named by its Swift name (what `realm.schema` shows);
    /// without, by the stored name (what a migration sees).
    func publicSchema(swiftNames: Bool) -> Schema {
        Schema(objectSchema: classes.map { entry in
            let info = swiftNames ? ObjectTypeInfo.named(entry.name) : nil
            return ObjectSchema(className: entry.name, properties: entry.properties.map { p in
                Property(name: info?.propertyName(ofColumnNamed: p.name) ?? p.name, columnName: p.name, type: PropertyType(p.type), isIndexed: p.isIndexed, isPrimary: p.isPrimaryKey,
                         isOptional: p.isOptional, collection: p.collection,
                         objectClassName: p.type == ORC_TYPE_LINK ? className(ofTable: p.linkTable) : nil,
                         linkOriginPropertyName: nil)
            }, isEmbedded: entry.kind == ORC_CLASS_EMBEDDED, isAsymmetric: entry.kind == ORC_CLASS_ASYMMETRIC)
        })
    }
}

/// A model class bound to its table in one file: the column of each property.
final class BoundClass: @unchecked Sendable {
    static let noColumn: UInt16 = 0xFFFF

    let info: ObjectTypeInfo
    let table: UInt32
    /// The column of each of `info.properties`, `noColumn` for `LinkingObjects`.
    let columns: [UInt16]
    let primaryKeyColumn: UInt16?
    /// `columns` in memory this binding owns, for property reads: an accessor keeps the
    /// address (it holds the binding) and indexes it without touching the array.
    let columnBuffer: UnsafeMutablePointer<UInt16>
    /// How `add` writes a new object of a class whose stored properties are all single
    /// scalar values (no links, collections or embedded objects): each one's encoder
    /// and column, in property order, for one `orc_obj_create`, in memory this binding
    /// owns (read without retaining an array per object). nil for other classes, which
    /// `add` walks property by property.
    let scalarPlan: ScalarPlan?

    struct ScalarPlan {
        let encoders: UnsafeMutablePointer<UnmanagedEncoder>
        let columns: UnsafeMutablePointer<UInt16>
        let count: Int
    }

    init(info: ObjectTypeInfo, entry: StoredSchema.ClassEntry) {
        self.info = info
        table = entry.table
        let columns = info.properties.map { $0.isStored ? entry.property(named: $0.columnName)?.column ?? BoundClass.noColumn : BoundClass.noColumn }
        self.columns = columns
        primaryKeyColumn = entry.primaryKeyColumn >= 0 ? UInt16(entry.primaryKeyColumn) : nil
        columnBuffer = .allocate(capacity: Swift.max(columns.count, 1))
        columnBuffer.initialize(repeating: BoundClass.noColumn, count: Swift.max(columns.count, 1))
        for (i, column) in columns.enumerated() { columnBuffer[i] = column }
        var encoders: [UnmanagedEncoder] = [], scalarColumns: [UInt16] = []
        var scalar = true
        for (i, property) in info.properties.enumerated() where property.isStored {
            // Only single, non-link values have an encoder (``ObjectTypeInfo``), so a
            // property with one is a scalar; collections, links and enums have none.
            guard let encoder = property.unmanagedEncoder, columns[i] != BoundClass.noColumn else {
                scalar = false
                break
            }
            encoders.append(encoder)
            scalarColumns.append(columns[i])
        }
        if scalar {
            let plan = ScalarPlan(encoders: .allocate(capacity: Swift.max(encoders.count, 1)),
                                  columns: .allocate(capacity: Swift.max(encoders.count, 1)), count: encoders.count)
            plan.encoders.initialize(from: encoders, count: encoders.count)
            plan.columns.initialize(from: scalarColumns, count: scalarColumns.count)
            scalarPlan = plan
        } else {
            scalarPlan = nil
        }
    }

    deinit {
        columnBuffer.deallocate()
        if let scalarPlan {
            scalarPlan.encoders.deallocate()
            scalarPlan.columns.deallocate()
        }
    }

    var className: String { info.className }
}
