import Foundation
import OpenRealmServer
import OpenRealmWire
import PostgresNIO

/// One row of `openrealm_objects` (migration 8, ``PostgresSchema``): a synced top-level
/// object of an app, named by class and primary key.
///
/// | column | holds |
/// |---|---|
/// | `class_name`, `primary_key` | the object's class, and its primary key in the wire's value encoding |
/// | `object_key` | its place in creation order (ORCore's object key: sets of links are ordered by it) |
/// | `properties` | its image, ``PostImages/encoded(properties:)`` |
/// | `clocks` | its ``PropertyClocks``, ``PropertyClocks/encoded()`` |
/// | `partition` | its hidden partition (``HiddenColumn/partition``), or null |
/// | `links`, `link_keys` | the top-level objects it links to (wire object references), and their keys |
struct PostgresObjectRow {
    var ref: WireObjectRef
    var key: Int64
    var properties: [UInt8]
    var clocks: [UInt8]
    var partition: String?
    var links: [WireObjectRef]
    var linkKeys: [Int64]
}

/// The statements on `openrealm_objects` of one app, in one unit: each a round trip
/// that reads or writes many rows at once.
struct PostgresObjectRows {
    let unit: PostgresUnit
    let appId: String

    /// Rows per INSERT: nine parameters each, under PostgreSQL's 65,535.
    static let rowsPerInsert = 1_000

    private static let columns = "o.class_name, o.primary_key, o.object_key, o.properties, o.clocks, o.partition, o.links, o.link_keys"
    private typealias Raw = (String, Data, Int64, Data, Data, String?, [ByteBuffer], [Int64])

    // MARK: Reads

    /// The rows of `refs` that exist, and the app's largest object key (0 without
    /// objects): what a working set loads, in one query.
    func load(_ refs: [WireObjectRef]) throws -> (rows: [PostgresObjectRow], largestKey: Int64) {
        let (classes, keys) = try Self.named(refs)
        let raw = try unit.query("""
            SELECT m.largest, \(unescaped: Self.columns)
            FROM (SELECT coalesce(max(object_key), 0) AS largest FROM openrealm_objects WHERE app_id = \(appId)) m
            LEFT JOIN openrealm_objects o ON o.app_id = \(appId)
                AND (o.class_name, o.primary_key) IN (SELECT * FROM unnest(\(classes)::text[], \(keys)::bytea[]))
            """) { rows -> (Int64, [Raw]) in
            var largest: Int64 = 0
            var all: [Raw] = []
            for try await (max, c, pk, key, props, clocks, partition, links, linkKeys)
                in rows.decode((Int64, String?, Data?, Int64?, Data?, Data?, String?, [ByteBuffer]?, [Int64]?).self) {
                largest = max
                if let c, let pk, let key, let props, let clocks {
                    all.append((c, pk, key, props, clocks, partition, links ?? [], linkKeys ?? []))
                }
            }
            return (largest, all)
        }
        return (try raw.1.map(decode), raw.0)
    }

    /// The rows of `refs` that exist, in no particular order.
    func rows(_ refs: [WireObjectRef]) throws -> [PostgresObjectRow] {
        guard !refs.isEmpty else { return [] }
        let (classes, keys) = try Self.named(refs)
        return try select("""
            SELECT \(unescaped: Self.columns) FROM openrealm_objects o
            WHERE o.app_id = \(appId)
              AND (o.class_name, o.primary_key) IN (SELECT * FROM unnest(\(classes)::text[], \(keys)::bytea[]))
            """)
    }

    /// Every row of class `className`, in object key order.
    func rows(ofClass className: String) throws -> [PostgresObjectRow] {
        try select("""
            SELECT \(unescaped: Self.columns) FROM openrealm_objects o
            WHERE o.app_id = \(appId) AND o.class_name = \(className) ORDER BY o.object_key
            """)
    }

    /// The rows that link to any of `refs`.
    func rows(linkingTo refs: [WireObjectRef]) throws -> [PostgresObjectRow] {
        guard !refs.isEmpty else { return [] }
        let targets = try refs.map { ByteBuffer(bytes: try Self.encoded($0)) }
        return try select("""
            SELECT \(unescaped: Self.columns) FROM openrealm_objects o
            WHERE o.app_id = \(appId) AND o.links && \(targets)::bytea[]
            """)
    }

    private func select(_ query: PostgresQuery) throws -> [PostgresObjectRow] {
        let raw = try unit.query(query) { rows -> [Raw] in
            var all: [Raw] = []
            for try await row in rows.decode(Raw.self) { all.append(row) }
            return all
        }
        return try raw.map(decode)
    }

    // MARK: Writes

    /// Writes `rows`, each new or replacing the row of its object.
    func write(_ rows: [PostgresObjectRow]) throws {
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(rows.count, start + Self.rowsPerInsert)]
            start += batch.count
            var binds = PostgresBindings()
            binds.append(appId)
            var sql = """
                INSERT INTO openrealm_objects
                    (app_id, class_name, primary_key, object_key, properties, clocks, partition, links, link_keys) VALUES
                """
            for (i, row) in batch.enumerated() {
                let p = 2 + i * 8
                sql += (i == 0 ? " " : ", ") + "($1, $\(p), $\(p + 1), $\(p + 2), $\(p + 3), $\(p + 4), $\(p + 5), $\(p + 6), $\(p + 7))"
                binds.append(row.ref.className)
                binds.append(ByteBuffer(bytes: try Self.encoded(row.ref.primaryKey)))
                binds.append(row.key)
                binds.append(ByteBuffer(bytes: row.properties))
                binds.append(ByteBuffer(bytes: row.clocks))
                binds.append(row.partition)
                binds.append(try row.links.map { ByteBuffer(bytes: try Self.encoded($0)) })
                binds.append(row.linkKeys)
            }
            sql += """
                 ON CONFLICT (app_id, class_name, primary_key) DO UPDATE SET object_key = EXCLUDED.object_key,
                    properties = EXCLUDED.properties, clocks = EXCLUDED.clocks, partition = EXCLUDED.partition,
                    links = EXCLUDED.links, link_keys = EXCLUDED.link_keys
                """
            try unit.perform(PostgresQuery(unsafeSQL: sql, binds: binds))
        }
    }

    /// Deletes the rows of `refs`.
    func delete(_ refs: [WireObjectRef]) throws {
        guard !refs.isEmpty else { return }
        let (classes, keys) = try Self.named(refs)
        try unit.perform("""
            DELETE FROM openrealm_objects
            WHERE app_id = \(appId) AND (class_name, primary_key) IN (SELECT * FROM unnest(\(classes)::text[], \(keys)::bytea[]))
            """)
    }

    // MARK: Encoding

    /// A primary key as the table keeps it: its wire value encoding.
    static func encoded(_ primaryKey: WirePrimaryKey) throws -> [UInt8] {
        var writer = WireRecordWriter()
        try writer.value(primaryKey.value)
        return writer.bytes
    }

    /// An object reference as `links` keeps it: the wire's object reference encoding.
    static func encoded(_ ref: WireObjectRef) throws -> [UInt8] {
        var writer = WireRecordWriter()
        try writer.objectRef(ref)
        return writer.bytes
    }

    /// `refs` as the two arrays the statements unnest: classes and primary keys.
    private static func named(_ refs: [WireObjectRef]) throws -> ([String], [ByteBuffer]) {
        (refs.map(\.className), try refs.map { ByteBuffer(bytes: try encoded($0.primaryKey)) })
    }

    private func decode(_ raw: Raw) throws -> PostgresObjectRow {
        let (className, pk, key, properties, clocks, partition, links, linkKeys) = raw
        do {
            var reader = WireRecordReader(Array(pk))
            guard let primaryKey = WirePrimaryKey(try reader.value()) else {
                throw PostgresObjectError("the primary key is not of a key's type")
            }
            try reader.expectEnd()
            let refs = try links.map { buffer -> WireObjectRef in
                var reader = WireRecordReader(Array(buffer.readableBytesView))
                let ref = try reader.objectRef()
                try reader.expectEnd()
                return ref
            }
            guard refs.count == linkKeys.count else { throw PostgresObjectError("\(refs.count) links with \(linkKeys.count) keys") }
            return PostgresObjectRow(ref: WireObjectRef(className: className, primaryKey: primaryKey), key: key,
                                     properties: Array(properties), clocks: Array(clocks), partition: partition,
                                     links: refs, linkKeys: linkKeys)
        } catch {
            throw PostgresStoreError(.statementFailed,
                                     "an object of class '\(className)' of app '\(appId)' on \(unit.pool.location) is damaged: \(error)")
        }
    }
}
