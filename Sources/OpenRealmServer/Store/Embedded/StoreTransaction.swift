import Foundation
import ORCore
import OpenRealmSyncCore

/// The server's name for a live ORCore transaction: the sync core's
/// ``ORCoreTransaction`` (its handle, scratch memory, deferred writes and metadata
/// values), valid only inside the ``ORCoreEnvironment/read(_:)`` or
/// ``ORCoreEnvironment/write(_:)`` body that received it. The schema, object, row and
/// value access the server needs are extensions here and in `StoreTransaction+*.swift`;
/// every call checks its status and throws ``StoreError`` at once.
typealias StoreTransaction = ORCoreTransaction

extension StoreTransaction {
    /// What the transaction remembers between the engine's calls (the synced schema,
    /// object keys).
    var unitCache: StoreUnitCache { state { StoreUnitCache() } }

    // MARK: Schema

    /// A class of the stored schema.
    struct ClassInfo: Sendable, Hashable {
        var name: String
        var table: UInt32
        var kind: orc_class_kind
        var primaryKeyColumn: Int32
    }

    /// A property of a stored class.
    struct PropertyInfo: Sendable, Hashable {
        var name: String
        var column: UInt16
        var type: orc_type
        var collection: orc_collection
        var flags: UInt32
        var linkTable: UInt32

        var isOptional: Bool { flags & UInt32(ORC_PROP_OPTIONAL) != 0 }
        var isPrimaryKey: Bool { flags & UInt32(ORC_PROP_PRIMARY_KEY) != 0 }
    }

    private func classInfo(_ c: orc_class_info) -> ClassInfo {
        ClassInfo(name: String(cString: c.name), table: c.table, kind: c.kind, primaryKeyColumn: c.pk_col)
    }

    /// Every class, in table id order.
    func classes() throws -> [ClassInfo] {
        let count = orc_schema_class_count(handle)
        var out: [ClassInfo] = []
        for i in 0..<count {
            var info = orc_class_info()
            try StoreError.check(orc_schema_class_at(handle, i, &info), "read class #\(i)")
            out.append(classInfo(info))
        }
        return out
    }

    /// The class named `name`, or nil.
    func findClass(_ name: String) throws -> ClassInfo? {
        var info = orc_class_info()
        let status = orc_schema_class_find(handle, name, &info)
        if status == ORC_ERR_NOT_FOUND { return nil }
        try StoreError.check(status, "find class '\(name)'")
        return classInfo(info)
    }

    /// The class with table id `table`.
    func classInfo(table: UInt32) throws -> ClassInfo {
        var info = orc_class_info()
        try StoreError.check(orc_schema_class_get(handle, table, &info), "find class #\(table)")
        return classInfo(info)
    }

    /// The live properties of a class, in column order.
    func properties(of table: UInt32) throws -> [PropertyInfo] {
        let cls = try classInfo(table: table)
        var out: [PropertyInfo] = []
        var index: UInt32 = 0
        while true {
            var p = orc_prop_info()
            let status = orc_schema_prop_at(handle, table, index, &p)
            if status == ORC_ERR_OUT_OF_RANGE { break }
            try StoreError.check(status, "read property #\(index) of '\(cls.name)'")
            out.append(PropertyInfo(name: String(cString: p.name), column: p.col, type: p.type,
                                    collection: p.collection, flags: p.flags, linkTable: p.link_table))
            index += 1
        }
        return out
    }

    /// The property `name` of a class, or nil.
    func findProperty(_ table: UInt32, _ name: String) throws -> PropertyInfo? {
        var p = orc_prop_info()
        let status = orc_schema_prop_find(handle, table, name, &p)
        if status == ORC_ERR_NOT_FOUND { return nil }
        try StoreError.check(status, "find property '\(name)'")
        return PropertyInfo(name: String(cString: p.name), column: p.col, type: p.type,
                            collection: p.collection, flags: p.flags, linkTable: p.link_table)
    }

    /// Adds a class; returns its table id.
    func addClass(_ name: String, kind: orc_class_kind) throws -> UInt32 {
        var table: UInt32 = 0
        unitCache.schemaChanged()
        try StoreError.check(orc_class_add(handle, name, kind, &table), "add class '\(name)'")
        return table
    }

    /// Adds a property; returns its column id.
    @discardableResult
    func addProperty(_ table: UInt32, name: String, type: orc_type, collection: orc_collection = ORC_COLL_NONE,
                     flags: UInt32 = 0, linkTable: UInt32 = 0) throws -> UInt16 {
        var col: UInt16 = 0
        unitCache.schemaChanged()
        let status = name.withCString { cname -> Int32 in
            var spec = orc_prop_spec(name: cname, type: type, collection: collection, flags: flags, link_table: linkTable)
            return orc_prop_add(handle, table, &spec, &col)
        }
        try StoreError.check(status, "add property '\(name)'")
        return col
    }

    /// The column of the server's own property `name` of a class, added with `type` and
    /// `flags` when the class has none yet (the hidden `__partition` and `__clocks`).
    func hiddenColumn(_ table: UInt32, _ name: String, type: orc_type, flags: UInt32) throws -> UInt16 {
        if let existing = try findProperty(table, name) { return existing.column }
        return try addProperty(table, name: name, type: type, flags: flags)
    }

    /// Makes `column` the class's primary key.
    func setPrimaryKey(_ table: UInt32, column: UInt16) throws {
        unitCache.schemaChanged()
        try StoreError.check(orc_class_set_primary_key(handle, table, Int32(column)), "set primary key")
    }
}
