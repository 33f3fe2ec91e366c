import Foundation
import OpenRealmQuery
import OpenRealmServer
import OpenRealmWire
import PostgresNIO

/// An app's synced objects on PostgreSQL, read and written inside one ``PostgresUnit``:
/// the engine's ``ObjectWriting`` (reads in batches, a ``PostgresWorkingSet`` per
/// changeset) and its post-images (``PostImageWriting``). Make one per unit; it shares
/// the unit's ``PostgresSchemaUnit``, whose schema it reads once per unit.
///
/// Reads answer as the embedded store's: `matching` decides with the Swift query
/// evaluator over each object's decoded image (``EvaluableImage``), the evaluator the
/// fan-out uses for post-images, which agrees with ORCore's compiled programs
/// (`QueryEvaluatorDifferentialTests`); a predicate that does not fit the schema
/// matches nothing. Each call is one round trip.
package final class PostgresObjectUnit: ObjectWriting, PostImageWriting, @unchecked Sendable {
    package let schemaUnit: PostgresSchemaUnit
    private let rows: PostgresObjectRows
    /// The last working set made: the post-images of its changeset are taken from it.
    private var lastWorkingSet: PostgresWorkingSet?

    package init(_ schemaUnit: PostgresSchemaUnit) {
        self.schemaUnit = schemaUnit
        self.rows = PostgresObjectRows(unit: schemaUnit.unit, appId: schemaUnit.appId)
    }

    package convenience init(_ unit: PostgresUnit, appId: String) {
        self.init(PostgresSchemaUnit(unit, appId: appId))
    }

    package func schema() throws -> SyncSchema {
        try schemaUnit.schema()
    }

    package func workingSet(_ request: WorkingSetRequest) throws -> PostgresWorkingSet {
        let made = try PostgresWorkingSet(schemaUnit, rows: rows, request: request)
        lastWorkingSet = made
        return made
    }

    // MARK: Reads

    package func existing(_ refs: [WireObjectRef]) throws -> Set<WireObjectRef> {
        let asked = try known(refs)
        return Set(try rows.rows(asked).map(\.ref))
    }

    package func matching(_ predicate: QueryPredicate, in className: String, among refs: [WireObjectRef]?) throws -> [WireObjectRef] {
        let schema = try self.schema()
        guard schema.topLevelClass(named: className) != nil,
              let evaluator = try? QueryEvaluator(predicate, className: className, schema: schema.query) else { return [] }
        let candidates: [PostgresObjectRow]
        if let refs {
            let asked = refs.filter { $0.className == className }
            guard !asked.isEmpty else { return [] }
            var found: [WireObjectRef: PostgresObjectRow] = [:]
            for row in try rows.rows(try known(asked)) { found[row.ref] = row }
            // In the references' order, a repeated one repeated (as the embedded store answers).
            candidates = asked.compactMap { found[$0] }
        } else {
            candidates = try rows.rows(ofClass: className)
        }
        var out: [WireObjectRef] = []
        for row in candidates {
            let image = ObjectImage(ref: row.ref, properties: try properties(row, schema))
            // A predicate the image cannot answer matches nothing (as RecordedMembership).
            if (try? evaluator.matches(EvaluableImage(image, partition: row.partition, schema: schema.query))) == true {
                out.append(row.ref)
            }
        }
        return out
    }

    package func images(_ refs: [WireObjectRef]) throws -> [ObjectImage] {
        let schema = try self.schema()
        let asked = refs.filter { schema.topLevelClass(named: $0.className) != nil }
        var found: [WireObjectRef: PostgresObjectRow] = [:]
        for row in try rows.rows(asked) { found[row.ref] = row }
        return try refs.compactMap { ref in
            try found[ref].map { ObjectImage(ref: ref, properties: try properties($0, schema)) }
        }
    }

    // MARK: Post-images

    /// Keeps `refs` as they are now with `serverVersion`: from the last working set when
    /// it held them all (the changeset's objects, the usual case: no read), otherwise
    /// read from their rows.
    package func recordPostImages(of refs: [WireObjectRef], serverVersion: UInt64) throws {
        let schema = try self.schema()
        let objects: [PostImages.Object]
        if let held = try lastWorkingSet?.postImageObjects(refs) {
            objects = held
        } else {
            var found: [WireObjectRef: PostgresObjectRow] = [:]
            for row in try rows.rows(refs.filter { schema.topLevelClass(named: $0.className) != nil }) { found[row.ref] = row }
            objects = try refs.map { ref in
                let row = found[ref]
                return PostImages.Object(ref: ref, image: try row.map { ObjectImage(ref: ref, properties: try properties($0, schema)) },
                                         partition: row?.partition)
            }
        }
        let bytes = try PostImages(objects).encoded()
        try schemaUnit.unit.perform("""
            INSERT INTO openrealm_post_images (app_id, server_version, images)
            VALUES (\(schemaUnit.appId), \(Int64(clamping: serverVersion)), \(Data(bytes)))
            """)
    }

    package func postImages(_ serverVersion: UInt64) throws -> PostImages? {
        guard serverVersion <= UInt64(Int64.max) else { return nil }
        let bytes = try schemaUnit.unit.query("""
            SELECT images FROM openrealm_post_images WHERE app_id = \(schemaUnit.appId) AND server_version = \(Int64(serverVersion))
            """) { rows -> Data? in
            var found: Data?
            for try await value in rows.decode(Data.self) { found = value }
            return found
        }
        guard let bytes else { return nil }
        do {
            return try PostImages(decoding: Array(bytes))
        } catch {
            throw PostgresStoreError(.statementFailed, "the post-images of server version \(serverVersion) of app "
                + "'\(schemaUnit.appId)' on \(schemaUnit.unit.pool.location) are damaged: \(error)")
        }
    }

    // MARK: Helpers

    /// `refs` but those of classes the schema does not have.
    ///
    /// - Throws: ``PostgresObjectError`` for a reference to an embedded class (it has no
    ///   primary key) or whose primary key does not have its class's type, as the
    ///   embedded store refuses them.
    private func known(_ refs: [WireObjectRef]) throws -> [WireObjectRef] {
        let schema = try self.schema()
        return try refs.filter { ref in
            guard let cls = schema.storedClass(named: ref.className) else { return false }
            guard let primaryKey = cls.primaryKey, !cls.isEmbedded else {
                throw PostgresObjectError("\(ref) names class '\(cls.name)', which has no primary key")
            }
            if ref.primaryKey != .null, PostgresObjectValues.propertyType(of: ref.primaryKey.value) != primaryKey.type {
                throw PostgresObjectError("\(ref): the primary key of class '\(cls.name)' is of type \(primaryKey.type)")
            }
            return true
        }
    }

    /// The row's image as the schema has it now (properties added since read as their
    /// defaults).
    private func properties(_ row: PostgresObjectRow, _ schema: SyncSchema) throws -> [ObjectImage.Property] {
        let decoded: [ObjectImage.Property]
        do {
            decoded = try PostImages.properties(decoding: row.properties)
        } catch {
            throw PostgresStoreError(.statementFailed, "the object \(row.ref) of app '\(schemaUnit.appId)' is damaged: \(error)")
        }
        return PostgresObjectNode.decoding(decoded, className: row.ref.className, owner: row.ref, schema: schema)
            .imageProperties(schema)
    }
}
