import Foundation
import OpenRealmServer
import OpenRealmWire
import PostgresNIO

/// `openrealm-server migrate`: moves the apps of a data directory (the embedded store)
/// into PostgreSQL with nothing a client holds made stale, so that clients carry on
/// without a client reset and their tokens stay valid:
///
/// - accounts: users (with their email claims), refresh tokens, API keys (hashes),
///   mailed token pairs (hashes), as they are, ids kept;
/// - the sync mode, the synced schema (classes and properties in their order, hidden
///   partition columns), the history with its exact server versions and its floor, the
///   post-images a shared store kept;
/// - client files: idents, salts, users, integrated client versions, completed views,
///   progress, last-seen times, upload records and bootstrap copies; the idents
///   PostgreSQL hands out next come after every migrated one;
/// - objects: each top-level object's image, per-property clocks and hidden partition,
///   object keys in the store's creation order;
/// - the signing keys (``adoptSigningKeys(_:in:)``).
///
/// Post-images of migrated entries are not made: an engine opening the app on
/// PostgreSQL starts at the migrated server version (``SyncApp``'s `serverVersion` is
/// the store's at open) and catches up only on later versions, which their engines
/// record post-images for. Rate-limit buckets are not moved (they refill). Client files
/// that carry a restore mark (a backup's copy knew them and they have not bound since)
/// are not moved: PostgreSQL keeps no restore marks, so their clients reset as files
/// made after the backup do, rather than risk syncing past a version the restored
/// store forgot.
///
/// Refusals happen before anything is written: a data directory in use (its lock), a
/// damaged or unreadable store (the file named), an app the database holds already,
/// signing keys in the database other than the data directory's. Each app then moves in
/// one transaction: a failure leaves that app absent.
package enum EmbeddedStoreMigration {
    /// What moved of one app.
    package struct AppReport: Sendable, Hashable {
        package var appId: String
        package var serverVersion: UInt64
        package var historyFloor: UInt64
        package var users = 0
        package var clientFiles = 0
        package var historyEntries = 0
        package var objects = 0
        /// Client files with a restore mark, not moved (their clients reset).
        package var restoreMarkedFiles: [UInt64] = []
    }

    /// What a migration did.
    package struct Report: Sendable, Hashable {
        package var apps: [AppReport] = []
        /// Whether the signing keys were written (false: the database held them already).
        package var signingKeysWritten = false
        /// How many signing keys the data directory gave (current and retired).
        package var signingKeys = 0
    }

    /// Objects read and written per batch.
    static let objectBatch = 500

    /// Moves apps `appIds` (nil: every app) of `dataDirectory` into `database`, with
    /// the token keys `ring` (the data directory's, ``EmbeddedAppExport/signingKeyRing(dataDirectory:source:previous:)``).
    /// Holds the data directory's lock throughout. `progress` gets a line per app moved.
    ///
    /// - Throws: ``ServerError`` for a refusal (nothing written) or a failed app (the
    ///   apps before it moved, it and the ones after did not), naming the file, app or
    ///   database (never its password).
    package static func run(dataDirectory: URL, appIds: [String]? = nil, signingKeys ring: SigningKeyRing,
                            into database: DatabasePool, progress: (AppReport) -> Void = { _ in }) throws -> Report {
        let directory = DataDirectory(dataDirectory)
        try directory.requireExisting()
        let lock = try DataDirectoryLock(directory: dataDirectory, holder: "migrate")
        defer { lock.release() }
        let available = try directory.appIds()
        let chosen = appIds ?? available
        for appId in chosen where !available.contains(appId) {
            throw ServerError("app '\(appId)' has no store in the data directory '\(dataDirectory.path)'; nothing was moved")
        }
        // Every source is opened (and verified) before anything is written.
        let exports = try chosen.map { try EmbeddedAppExport(dataDirectory: dataDirectory, appId: $0) }
        let present = try appsPresent(chosen, in: database)
        guard present.isEmpty else {
            throw ServerError("the database \(database.location) already holds app(s) "
                + present.map { "'\($0)'" }.joined(separator: ", ")
                + ": migrate does not merge into an app; nothing was moved (drop them there, or move other apps with --app)")
        }
        var report = Report(signingKeys: 1 + ring.previous.count)
        report.signingKeysWritten = try adoptSigningKeys(ring, in: database)
        for export in exports {
            let moved = try move(export, into: database)
            report.apps.append(moved)
            progress(moved)
        }
        return report
    }

    /// The apps among `appIds` the database has anything of.
    static func appsPresent(_ appIds: [String], in database: DatabasePool) throws -> [String] {
        guard !appIds.isEmpty else { return [] }
        return try database.unit("look up the apps to migrate") { unit in
            try unit.query("""
                SELECT app_id FROM openrealm_apps WHERE app_id = ANY(\(appIds))
                UNION SELECT app_id FROM openrealm_users WHERE app_id = ANY(\(appIds))
                UNION SELECT app_id FROM openrealm_client_files WHERE app_id = ANY(\(appIds))
                UNION SELECT app_id FROM openrealm_objects WHERE app_id = ANY(\(appIds))
                ORDER BY 1
                """) { rows in
                var found: [String] = []
                for try await id in rows.decode(String.self) { found.append(id) }
                return found
            }
        }
    }

    /// Moves one app in one transaction.
    static func move(_ export: EmbeddedAppExport, into database: DatabasePool) throws -> AppReport {
        let appId = export.appId
        do {
            return try export.read { source in
                try database.unit("migrate app '\(appId)'") { unit in
                    try write(source, appId: appId, in: unit)
                }
            }
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError("moving app '\(appId)' from '\(export.path)' into \(database.location) failed, and nothing of the app "
                + "was written: \(error)")
        }
    }

    private static func write(_ source: EmbeddedAppSnapshot, appId: String, in unit: PostgresUnit) throws -> AppReport {
        let version = try source.serverVersion()
        let floor = try source.historyFloor()
        let partitioned = try source.developmentPartitioned()
        var report = AppReport(appId: appId, serverVersion: version, historyFloor: floor)
        // No ON CONFLICT: an app made meanwhile by a server on the database fails the move.
        try unit.perform("""
            INSERT INTO openrealm_apps (app_id, server_version, history_floor, development_partitioned)
            VALUES (\(appId), \(Int64(version)), \(Int64(floor)), \(partitioned))
            """)
        report.users = try writeAccounts(source, appId: appId, in: unit)
        try writeSchema(try source.schema(), appId: appId, in: unit)

        let sync = PostgresSyncUnit(unit, appId: appId)
        if version > floor {
            for serverVersion in (floor + 1)...version {
                try sync.appendHistory(try source.historyEntry(serverVersion))
                if let images = try source.postImages(serverVersion) {
                    let bytes = Data(try images.encoded())
                    try unit.perform("""
                        INSERT INTO openrealm_post_images (app_id, server_version, images)
                        VALUES (\(appId), \(Int64(serverVersion)), \(bytes))
                        """)
                }
                report.historyEntries += 1
            }
        }
        // appendHistory set the version as it went; the floor and version stand as read.
        try unit.perform("""
            UPDATE openrealm_apps SET server_version = \(Int64(version)), history_floor = \(Int64(floor)) WHERE app_id = \(appId)
            """)

        var largestIdent = try source.nextClientFileIdent() &- 1
        for file in try source.clientFiles() {
            largestIdent = max(largestIdent, file.record.ident)
            if file.restoreCeiling != nil {
                report.restoreMarkedFiles.append(file.record.ident)
                continue
            }
            try writeClientFile(file, appId: appId, in: unit)
            report.clientFiles += 1
        }
        // Idents are handed out by one sequence for every app: past every migrated one
        // (and every one the data directory handed out), never back.
        if largestIdent > 0 {
            try unit.perform("""
                SELECT setval('openrealm_client_file_idents',
                              greatest((SELECT last_value FROM openrealm_client_file_idents), \(Int64(clamping: largestIdent))))
                """)
        }
        report.objects = try writeObjects(source, appId: appId, in: unit)
        return report
    }

    // MARK: Accounts

    private static func writeAccounts(_ source: EmbeddedAppSnapshot, appId: String, in unit: PostgresUnit) throws -> Int {
        let users = try source.users()
        for user in users {
            try unit.perform("""
                INSERT INTO openrealm_users (app_id, id, provider, email, password_hash, email_confirmed, created_at)
                VALUES (\(appId), \(user.id), \(user.provider), \(user.email), \(user.passwordHash), \(user.emailConfirmed),
                        \(user.createdAt))
                """)
        }
        for claim in try source.emailClaims() {
            try unit.perform("""
                INSERT INTO openrealm_user_emails (app_id, email, user_id) VALUES (\(appId), \(claim.email), \(claim.userId))
                """)
        }
        for token in try source.refreshTokens() {
            try unit.perform("""
                INSERT INTO openrealm_refresh_tokens (app_id, id, user_id, expires_at, revoked)
                VALUES (\(appId), \(token.id), \(token.userId), \(token.expiresAt), \(token.revoked))
                """)
        }
        for key in try source.apiKeys() {
            try unit.perform("""
                INSERT INTO openrealm_api_keys (app_id, id, user_id, name, key_hash, disabled, created_at)
                VALUES (\(appId), \(key.id), \(key.userId), \(key.name), \(key.keyHash), \(key.disabled), \(key.createdAt))
                """)
        }
        for token in try source.emailTokens() {
            try unit.perform("""
                INSERT INTO openrealm_email_tokens (app_id, id, user_id, purpose, token_hash, expires_at)
                VALUES (\(appId), \(token.id), \(token.userId), \(token.purpose), \(token.tokenHash), \(token.expiresAt))
                """)
        }
        return users.count
    }

    // MARK: Schema

    /// Makes `schema` through the store's own schema writer: every class first (so that
    /// links find their targets), then each class's properties in their order, then
    /// the hidden partition columns.
    private static func writeSchema(_ schema: SyncSchema, appId: String, in unit: PostgresUnit) throws {
        let writer = PostgresSchemaUnit(unit, appId: appId)
        for cls in schema.classes {
            let primaryKey = cls.primaryKey.map { WirePrimaryKeySchema(name: $0.name, type: $0.type, isOptional: $0.isOptional) }
            try writer.applySchema(.addClass(WireClassSchema(name: cls.name, kind: cls.kind, primaryKey: primaryKey)),
                                   allowingChanges: true)
        }
        for cls in schema.classes {
            for property in cls.properties where !property.isPrimaryKey {
                try writer.applySchema(.addProperty(className: cls.name, property: WirePropertySchema(
                    name: property.name, type: property.type, collection: property.collection, isOptional: property.isOptional,
                    isIndexed: property.isIndexed, linkTarget: property.linkTarget)), allowingChanges: true)
            }
        }
        for cls in schema.classes where cls.hiddenColumn(.partition) != nil {
            guard let written = try writer.schema().storedClass(named: cls.name) else { continue }
            _ = try writer.addHiddenColumn(.partition, to: written)
        }
    }

    // MARK: Client files

    private static func writeClientFile(_ file: ExportedClientFile, appId: String, in unit: PostgresUnit) throws {
        let record = file.record
        let copies = file.bootstrapCopies == BootstrapCopies() ? [] : try file.bootstrapCopies.encoded()
        try unit.perform("""
            INSERT INTO openrealm_client_files (app_id, ident, salt, user_id, last_integrated_client_version, created_at,
                view_server_version, view, last_server_version, last_seen_at, upload_base, uploads, bootstrap_copies)
            VALUES (\(appId), \(Int64(record.ident)), \(Int64(clamping: record.salt)), \(record.userId),
                \(Int64(clamping: record.lastIntegratedClientVersion)), \(file.createdAt),
                \(file.completedView.map { Int64($0.serverVersion) }), \(file.completedView?.record),
                \(file.lastServerVersion.map { Int64(clamping: $0) }), \(file.lastSeenAt),
                \(file.uploads.hold.map { Int64(clamping: $0) }), \(Data(file.uploads.encodedUploads())), \(Data(copies)))
            """)
    }

    // MARK: Objects

    /// Writes every top-level object as the store's working set writes its rows
    /// (``PostgresObjectRows``): object keys in the source's creation order, class by
    /// class, so that sets of links keep their order; each row's links with their keys.
    private static func writeObjects(_ source: EmbeddedAppSnapshot, appId: String, in unit: PostgresUnit) throws -> Int {
        let schema = try source.schema()
        let rows = PostgresObjectRows(unit: unit, appId: appId)
        var classes: [(StoredClass, [WireObjectRef])] = []
        var keys: [WireObjectRef: Int64] = [:]
        var nextKey: Int64 = 0
        for cls in schema.classes where !cls.isEmbedded && !cls.name.hasPrefix(StorageConventions.reservedPrefix) {
            let refs = try source.objectRefs(of: cls.name)
            for ref in refs {
                nextKey += 1
                keys[ref] = nextKey
            }
            classes.append((cls, refs))
        }
        var written = 0
        for (cls, refs) in classes {
            var start = 0
            while start < refs.count {
                let batch = Array(refs[start..<min(refs.count, start + objectBatch)])
                start += batch.count
                let objects = try source.objects(batch)
                try rows.write(try objects.map { object in
                    let ref = object.image.ref
                    let links = PostgresObjectNode.decoding(object.image.properties, className: cls.name, owner: ref, schema: schema)
                        .linkedObjects()
                    return PostgresObjectRow(ref: ref, key: keys[ref] ?? 0,
                                             properties: try PostImages.encoded(properties: object.image.properties),
                                             clocks: object.clocks.encoded(), partition: object.partition, links: links,
                                             linkKeys: links.map { keys[$0] ?? 0 })
                })
                written += objects.count
            }
        }
        return written
    }
}
