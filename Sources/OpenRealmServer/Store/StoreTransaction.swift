import Foundation
import ORCore
import OpenRealmSyncCore

/// A live ORCore transaction, valid only inside the ``StoreEnvironment/read(_:)`` or
/// ``StoreEnvironment/write(_:)`` body that received it. Every call checks its status
/// and throws ``StoreError`` at once.
///
/// Strings ORCore returns point into the map; the methods here copy them into Swift
/// values before returning, so nothing read outlives the transaction by accident.
final class StoreTransaction {
    let handle: OpaquePointer
    /// Scratch memory for strings and bytes handed to ORCore during one call.
    let scratch = ValueScratch()
    /// What the transaction remembers between the engine's calls (the synced schema).
    let unitCache = StoreUnitCache()

    /// State that callers keep in memory for the length of a write transaction and write
    /// once, at its end, by type (``deferredWrite(_:)``).
    private var deferred: [ObjectIdentifier: any DeferredStoreWrite] = [:]
    private var deferredOrder: [any DeferredStoreWrite] = []

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    /// The transaction's one `W`, made by `make` on first use; its
    /// ``DeferredStoreWrite/write(_:)`` runs when the write body returns, before the
    /// commit (``StoreEnvironment/write(_:)``). An aborted transaction drops it.
    func deferredWrite<W: DeferredStoreWrite>(_ make: () -> W) -> W {
        if let existing = deferred[ObjectIdentifier(W.self)] as? W { return existing }
        let made = make()
        deferred[ObjectIdentifier(W.self)] = made
        deferredOrder.append(made)
        return made
    }

    /// Runs the deferred writes, in the order they were first used.
    func finishDeferredWrites() throws {
        let writes = deferredOrder
        deferredOrder = []
        deferred = [:]
        for write in writes { try write.write(self) }
    }

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

    // MARK: Metadata

    /// A metadata value as a little-endian UInt64, or nil when absent.
    func metaUInt64(_ name: String) throws -> UInt64? {
        var data: UnsafeRawPointer?
        var size = 0
        let status = orc_meta_get(handle, name, &data, &size)
        if status == ORC_ERR_NOT_FOUND { return nil }
        try StoreError.check(status, "read metadata '\(name)'")
        guard size == 8, let data else { throw StoreError(status: 0, "metadata '\(name)' holds \(size) bytes, not 8") }
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 8)) }
        return UInt64(littleEndian: value)
    }

    /// Stores a metadata value as a little-endian UInt64.
    func setMeta(_ name: String, _ value: UInt64) throws {
        var le = value.littleEndian
        try withUnsafeBytes(of: &le) { bytes in
            try StoreError.check(orc_meta_set(handle, name, bytes.baseAddress, 8), "write metadata '\(name)'")
        }
    }

    /// A metadata value's bytes, or nil when absent.
    func metaBytes(_ name: String) throws -> [UInt8]? {
        var data: UnsafeRawPointer?
        var size = 0
        let status = orc_meta_get(handle, name, &data, &size)
        if status == ORC_ERR_NOT_FOUND { return nil }
        try StoreError.check(status, "read metadata '\(name)'")
        guard size > 0, let data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Stores a metadata value's bytes; empty bytes delete it.
    func setMeta(_ name: String, bytes: [UInt8]) throws {
        guard !bytes.isEmpty else {
            let status = orc_meta_delete(handle, name)
            if status != ORC_ERR_NOT_FOUND { try StoreError.check(status, "delete metadata '\(name)'") }
            return
        }
        try bytes.withUnsafeBytes { raw in
            try StoreError.check(orc_meta_set(handle, name, raw.baseAddress, raw.count), "write metadata '\(name)'")
        }
    }
}

/// What a caller of a write transaction keeps in memory and writes once, at its end
/// (``StoreTransaction/deferredWrite(_:)``).
protocol DeferredStoreWrite: AnyObject {
    func write(_ txn: StoreTransaction) throws
}
