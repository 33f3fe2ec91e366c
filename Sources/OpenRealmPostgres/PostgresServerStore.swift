import Foundation
import Logging
import OpenRealmServer

/// A PostgreSQL database as the store of a ``SyncServer`` that one's own program runs:
/// what `openrealm-server serve --store` does, as a library. Several processes may serve
/// one database at once (docs/SERVER.md, "PostgreSQL").
///
/// ```swift
/// let store = try PostgresServerStore(url: "postgres://openrealm@db.internal/openrealm")
/// defer { store.close() }
/// let server = try SyncServer(configuration: configuration, store: store)
/// try await server.runService()
/// ```
///
/// Opening connects, brings the tables to this server's version (under the database's
/// advisory lock) and starts the process's commit feed; it blocks its thread, so call it
/// before serving or off Swift's cooperative threads.
public final class PostgresServerStore: Sendable {
    let storage: PostgresStorage
    let database: DatabasePool

    /// Opens the database at `url` (`postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…]`;
    /// the password from `PGPASSWORD` in `environment` or the URL).
    ///
    /// - Throws: ``ServerError`` for a malformed URL, a database that cannot be reached
    ///   or refuses the login, or tables of a newer server, naming the database and never
    ///   its password.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                logger: Logger = Logger(label: "openrealm-server")) throws {
        do {
            database = try DatabasePool.open(PostgresLocation(url: url, environment: environment), logger: logger)
        } catch let error as PostgresStoreError {
            throw ServerError(error.message)
        }
        storage = PostgresStorage(database: database)
    }

    /// Stops the commit feed and closes the connections: after the servers over the
    /// store stopped.
    public func close() {
        storage.close()
        database.close()
    }
}

extension SyncServer {
    /// A server over the PostgreSQL database `store`, which keeps the apps and the
    /// signing keys: the configuration's data directory and signing key sources are not
    /// used, nothing is made or locked on local disk, and other processes may serve the
    /// same database at once. The store is the caller's to close after the server stopped.
    ///
    /// - Throws: ``ServerError`` as ``SyncServer/init(configuration:logger:)`` does, and
    ///   the store's errors when its signing keys cannot be read or made.
    public convenience init(configuration: ServerConfiguration, store: PostgresServerStore,
                            logger: Logger = Logger(label: "openrealm-server")) throws {
        try self.init(configuration: configuration, storage: store.storage, logger: logger)
    }
}
