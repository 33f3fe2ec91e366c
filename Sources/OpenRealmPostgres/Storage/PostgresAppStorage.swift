import Foundation
import OpenRealmServer
import OpenRealmWire

/// One app on PostgreSQL as an ``AppStorage``: its accounts, rate limits (one allowance
/// for every process), commit feed and sync mode in the database, and its units each one
/// transaction on one leased connection (``PostgresAppUnit``):
/// - ``read(_:)``: a read-only `REPEATABLE READ` transaction, so that every read of the
///   unit sees one committed snapshot, as an ORCore read transaction does;
/// - ``write(_:)``: a `READ COMMITTED` transaction without the app's lock (client files'
///   records only, never the history);
/// - ``withAppWriteLock(_:)``: the app's row locked (``PostgresApp/withWriteLock(_:_:)``),
///   the version it appended announced on the commit feed when it commits.
package final class PostgresAppStorage: AppStorage, @unchecked Sendable {
    package let app: PostgresApp
    package let accounts: any AccountStore
    package let rateLimits: any RateLimitStore
    package let commitFeed: any CommitFeed

    package init(database: DatabasePool, feed: PostgresCommitFeed, appId: String) {
        app = PostgresApp(database: database, appId: appId)
        accounts = PostgresAccountStore(database: database, appId: appId)
        rateLimits = PostgresRateLimits(database: database, appId: appId)
        commitFeed = PostgresAppCommitFeed(feed: feed, appId: appId)
    }

    package var appId: String { app.appId }
    package var syncMode: any SyncModeStore { app }

    /// Post-images are kept whenever the engine records them (`openrealm_post_images`
    /// exists from migration 8 on): nothing to make.
    package func keepPostImages() throws {}

    package func storedSchema() throws -> AppSchema {
        try read { unit in Self.appSchema(try unit.schema()) }
    }

    package func applyConfiguredSchema(_ schema: AppSchema) throws -> [String] {
        try withAppWriteLock { unit in
            let before = try unit.schema()
            var added: [String] = []
            for instruction in schema.instructions {
                switch instruction {
                case .addClass(let cls):
                    if before.storedClass(named: cls.name) == nil { added.append("class '\(cls.name)'") }
                case .addProperty(let className, let property):
                    if before.storedClass(named: className)?.property(named: property.name) == nil {
                        added.append("property '\(className).\(property.name)'")
                    }
                default:
                    break
                }
                do {
                    try unit.applySchema(instruction, allowingChanges: true)
                } catch let error as PostgresStoreError {
                    throw error
                } catch {
                    throw AppSchema.conflict(appId: appId, error, instruction, stored: Self.appSchema(before))
                }
            }
            return added
        }
    }

    package func read<T>(_ body: (any AppReadUnit) throws -> T) throws -> T {
        try app.database.unit("read app '\(appId)'") { unit in
            try unit.perform("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return try body(PostgresAppUnit(unit, appId: appId))
        }
    }

    package func write<T>(_ body: (any AppWriteUnit) throws -> T) throws -> T {
        try app.database.unit("write app '\(appId)'") { unit in
            try body(PostgresAppUnit(unit, appId: appId))
        }
    }

    package func withAppWriteLock<T>(_ body: (any AppLockedUnit) throws -> T) throws -> T {
        try app.withWriteLock("write the history of app '\(appId)'") { unit, _ in
            let appUnit = PostgresAppUnit(unit, appId: appId)
            let result = try body(appUnit)
            if let version = appUnit.appended {
                try PostgresCommitFeed.announce(appId: appId, version: version, in: unit)
            }
            return result
        }
    }

    /// The synced classes (not the server's hidden columns) as an ``AppSchema``, classes
    /// and properties by name, as the embedded store's `storedSchema()` gives them.
    static func appSchema(_ schema: SyncSchema) -> AppSchema {
        let reserved = StorageConventions.reservedPrefix
        return AppSchema(classes: schema.classes.filter { !$0.name.hasPrefix(reserved) }.sorted { $0.name < $1.name }.map { cls in
            var primaryKey: WirePrimaryKeySchema?
            var properties: [WirePropertySchema] = []
            for p in cls.properties where !p.name.hasPrefix(reserved) {
                if p.isPrimaryKey {
                    primaryKey = WirePrimaryKeySchema(name: p.name, type: p.type, isOptional: p.isOptional)
                } else {
                    properties.append(WirePropertySchema(name: p.name, type: p.type, collection: p.collection, isOptional: p.isOptional,
                                                         isIndexed: p.isIndexed, linkTarget: p.type == .link ? p.linkTarget : nil))
                }
            }
            return AppSchema.Class(schema: WireClassSchema(name: cls.name, kind: cls.kind, primaryKey: primaryKey),
                                   properties: properties.sorted { $0.name < $1.name })
        })
    }
}
