import Foundation
import ORCore
import XCTest
@testable import OpenRealmQuery

/// A realm file built with ORCore's C API for query tests: classes and objects are
/// created directly, a ``QuerySchema`` describes them, and queries are compiled with
/// ``QueryCompiler`` and run with `orc_query_compile` / `orc_query_run`.
final class QueryTestRealm {
    struct ORCError: Error, CustomStringConvertible {
        let status: Int32
        let message: String
        var description: String { "ORCore status \(status): \(message)" }
    }

    let directory: URL
    private(set) var env: OpaquePointer?
    private var txn: OpaquePointer?
    private(set) var classes: [QuerySchemaClass] = []
    var schema: QuerySchemaList { QuerySchemaList(classes) }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try check(orc_env_open(directory.appendingPathComponent("q.realm").path, UInt32(ORC_ENV_NO_SYNC), nil, &env))
    }

    deinit {
        orc_txn_abort(txn)
        orc_env_close(env)
        try? FileManager.default.removeItem(at: directory)
    }

    func check(_ status: Int32) throws {
        guard status == ORC_OK else { throw ORCError(status: status, message: String(cString: orc_last_error())) }
    }

    // MARK: - Writing

    func beginWrite() throws { try check(orc_txn_begin(env, Int32(ORC_TXN_WRITE), &txn)) }

    func commit() throws {
        let t = txn
        txn = nil
        try check(orc_txn_commit(t, nil))
    }

    /// Adds a class; properties are added with `addProperty`.
    func addClass(_ name: String, embedded: Bool = false) throws -> UInt32 {
        var table: UInt32 = 0
        try check(orc_class_add(txn, name, embedded ? ORC_CLASS_EMBEDDED : ORC_CLASS_TOP_LEVEL, &table))
        classes.append(QuerySchemaClass(name: name, table: table, isEmbedded: embedded, properties: []))
        return table
    }

    private func classIndex(_ table: UInt32) -> Int { classes.firstIndex { $0.table == table }! }

    /// Adds a stored property and records it in the schema.
    @discardableResult
    func addProperty(_ table: UInt32, _ name: String, _ type: QueryPropertyType, _ collection: QueryCollectionKind = .none,
                     optional: Bool = false, indexed: Bool = false, target: String? = nil) throws -> UInt16 {
        var col: UInt16 = 0
        let linkTable = target.map { t in classes.first { $0.name == t }!.table } ?? 0
        var flags: UInt32 = 0
        if optional { flags |= UInt32(ORC_PROP_OPTIONAL) }
        if indexed { flags |= UInt32(ORC_PROP_INDEXED) }
        try name.withCString { cname in
            var spec = orc_prop_spec(name: cname, type: orc_type(UInt32(type.rawValue)),
                                     collection: orc_collection(UInt32(collection.rawValue)), flags: flags,
                                     link_table: linkTable)
            try check(orc_prop_add(txn, table, &spec, &col))
        }
        classes[classIndex(table)].properties.append(
            QuerySchemaProperty(name: name, column: col, type: type, collection: collection, isOptional: optional,
                                linkTargetClass: target))
        return col
    }

    /// Records a LinkingObjects property (schema only: it has no column).
    func addLinkingObjects(_ table: UInt32, _ name: String, originClass: String, originProperty: String) {
        classes[classIndex(table)].properties.append(
            .linkingObjects(name: name, originClass: originClass, originProperty: originProperty))
    }

    func column(_ table: UInt32, _ name: String) -> UInt16 {
        classes[classIndex(table)].property(named: name)!.column
    }

    /// Calls `body` with an `orc_value` holding `v` (string bytes stay valid inside).
    static func withValue<R>(_ v: QueryValue, _ body: (inout orc_value) throws -> R) rethrows -> R {
        var o = orc_value()
        switch v {
        case .null: o.type = ORC_TYPE_NULL
        case .bool(let b): o.type = ORC_TYPE_BOOL; o.boolean = b
        case .int(let i): o.type = ORC_TYPE_INT; o.integer = i
        case .float(let f): o.type = ORC_TYPE_FLOAT; o.fnum = f
        case .double(let d): o.type = ORC_TYPE_DOUBLE; o.dnum = d
        case .timestamp(let s, let ns): o.type = ORC_TYPE_TIMESTAMP; o.timestamp = orc_timestamp(seconds: s, nanoseconds: ns)
        case .decimal(let d): o.type = ORC_TYPE_DECIMAL; o.decimal = orc_decimal128(w: (d.bidLow, d.bidHigh))
        case .objectId(let id): o.type = ORC_TYPE_OBJECT_ID; o.object_id = id.orcBytes
        case .uuid(let u): o.type = ORC_TYPE_UUID; o.uuid = u.uuid
        case .link(let table, let key): o.type = ORC_TYPE_LINK; o.link.table = table; o.link.key = key
        case .string(let s): return try withBytes(Array(s.utf8), as: ORC_TYPE_STRING, body)
        case .binary(let d): return try withBytes(Array(d), as: ORC_TYPE_BINARY, body)
        }
        return try body(&o)
    }

    /// Calls `body` with an `orc_value` of `type` (a string or binary) holding `bytes`,
    /// which stay valid inside.
    private static func withBytes<R>(_ bytes: [UInt8], as type: orc_type, _ body: (inout orc_value) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buf in
            var o = orc_value()
            o.type = type
            o.string.data = buf.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
                ?? UnsafePointer(bitPattern: 1)
            o.string.size = buf.count
            return try body(&o)
        }
    }

    /// Creates an object with the given property values (by name).
    func create(_ table: UInt32, _ values: [String: QueryValue]) throws -> UInt64 {
        var key: UInt64 = 0
        let pairs = Array(values)
        var cols: [UInt16] = []
        var raw: [orc_value] = []
        // Nest the closures so every string's bytes stay alive for the call.
        func build(_ i: Int) throws {
            if i == pairs.count {
                try check(orc_obj_create(txn, table, cols, raw, raw.count, &key))
                return
            }
            try Self.withValue(pairs[i].value) { v in
                cols.append(column(table, pairs[i].key))
                raw.append(v)
                try build(i + 1)
            }
        }
        try build(0)
        return key
    }

    func set(_ table: UInt32, _ key: UInt64, _ name: String, _ value: QueryValue) throws {
        try Self.withValue(value) { v in try check(orc_obj_set(txn, table, key, column(table, name), &v)) }
    }

    func append(_ table: UInt32, _ key: UInt64, _ name: String, _ values: [QueryValue]) throws {
        let col = column(table, name)
        for v in values {
            var size = 0
            try check(orc_coll_size(txn, table, key, col, &size))
            try Self.withValue(v) { o in try check(orc_list_insert(txn, table, key, col, size, &o)) }
        }
    }

    func insert(_ table: UInt32, _ key: UInt64, _ name: String, _ values: [QueryValue]) throws {
        let col = column(table, name)
        for v in values { try Self.withValue(v) { o in try check(orc_set_insert(txn, table, key, col, &o, nil)) } }
    }

    func put(_ table: UInt32, _ key: UInt64, _ name: String, _ entries: [String: QueryValue]) throws {
        let col = column(table, name)
        for (k, v) in entries {
            let kb = Array(k.utf8)
            try Self.withValue(v) { o in try check(orc_dict_set(txn, table, key, col, k, kb.count, &o)) }
        }
    }

    /// Creates an embedded object as the value of a single-link property and sets its values.
    func createEmbedded(_ parentTable: UInt32, _ parent: UInt64, _ name: String, childTable: UInt32,
                        _ values: [String: QueryValue]) throws {
        var child: UInt64 = 0
        try check(orc_obj_create_embedded(txn, parentTable, parent, column(parentTable, name), 0, nil, &child))
        for (k, v) in values { try set(childTable, child, k, v) }
    }

    // MARK: - Querying

    /// Runs program bytes on `className` in a read transaction: the matching keys in
    /// result order, and whether an index was used.
    func run(program: [UInt8], className: String) throws -> (keys: [UInt64], usedIndex: Bool) {
        try withQuery(program, on: className) { read, query in
            var keys = orc_keys()
            defer { orc_keys_free(&keys) }
            try check(orc_query_run(read, query, &keys))
            let out = (0..<keys.count).map { keys.keys[$0] }
            return (out, orc_query_used_index(query))
        }
    }

    /// Compiles program bytes on `className` in a read transaction and runs `body` with
    /// the transaction and the compiled query.
    private func withQuery<R>(_ program: [UInt8], on className: String,
                              _ body: (OpaquePointer?, OpaquePointer?) throws -> R) throws -> R {
        let table = classes.first { $0.name == className }!.table
        var read: OpaquePointer?
        try check(orc_txn_begin(env, Int32(ORC_TXN_READ), &read))
        defer { orc_txn_abort(read) }
        var query: OpaquePointer?
        try check(program.withUnsafeBytes { orc_query_compile(read, table, $0.baseAddress, $0.count, &query) })
        defer { orc_query_free(query) }
        return try body(read, query)
    }

    /// Parses, binds, compiles and runs an RQL string.
    func run(_ rql: String, _ args: [Any] = [], on className: String) throws -> [UInt64] {
        let query = try QueryParser.parse(rql, arguments: args)
        let program = try QueryCompiler.compile(query, className: className, schema: schema)
        return try run(program: program, className: className).keys
    }

    /// Runs `orc_query_aggregate` over the objects matching `program`.
    func aggregate(program: [UInt8], className: String, column: UInt16, _ agg: QueryAggregate) throws -> orc_value {
        try withQuery(program, on: className) { read, query in
            var out = orc_value()
            try check(orc_query_aggregate(read, query, column, orc_agg(UInt32(agg.rawValue)), &out))
            return out
        }
    }
}
