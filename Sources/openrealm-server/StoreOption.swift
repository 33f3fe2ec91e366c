import Foundation
import Logging
import OpenRealmPostgres
import OpenRealmServer

/// Where `serve` (and the operator's `users`, `apikeys`, `schema` and
/// `rotate-signing-key`) find the apps, users, history and signing keys: the embedded
/// store in `--data-dir` (the default: nothing to run beside the server), or PostgreSQL,
/// named by `--store postgres://USER@HOST/DATABASE` or, so that no password need be on a
/// command line, by the environment variable ``environmentVariable`` (docs/SERVER.md,
/// "PostgreSQL").
///
/// On PostgreSQL the server keeps nothing on local disk: several processes, on one
/// machine or many, serve the same database at once, so there is no data directory to
/// lock, and the signing keys are the database's (shared by every process).
enum StoreOption {
    /// The environment variable read when `--store` is not given.
    static let environmentVariable = "OPENREALM_STORE"

    /// The store URL `--store` or the environment gives (`--store` first); nil: the
    /// embedded store. An empty variable counts as unset.
    static func url(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let option { return option }
        guard let value = environment[environmentVariable], !value.isEmpty else { return nil }
        return value
    }

    /// Opens the database at `url`, brings its tables to this server's version (under
    /// the database's advisory lock: the first process to start migrates, the others
    /// wait for it) and starts the process's commit feed; off Swift's threads, since
    /// the pool's calls block their thread.
    ///
    /// - Throws: ``ServerError`` for a malformed URL, a database that cannot be reached
    ///   or refuses the login, or tables of a newer server, naming the database
    ///   (never its password) and, for a URL from the environment, the variable.
    static func openPostgres(url: String, fromEnvironment: Bool, logger: Logger) async throws -> (PostgresStorage, DatabasePool) {
        try await offSwiftThreads { try openPostgresBlocking(url: url, fromEnvironment: fromEnvironment, logger: logger) }
    }

    /// ``openPostgres(url:fromEnvironment:logger:)`` on the calling thread (the
    /// operator's synchronous commands).
    /// `option` names the command line option the URL came from in messages.
    static func openPostgresBlocking(url: String, fromEnvironment: Bool, option: String = "--store",
                                     logger: Logger) throws -> (PostgresStorage, DatabasePool) {
        let location: PostgresLocation
        do {
            location = try PostgresLocation(url: url)
        } catch let error as PostgresStoreError {
            throw ServerError((fromEnvironment ? "\(environmentVariable): " : "\(option): ") + error.message)
        }
        let database: DatabasePool
        do {
            database = try DatabasePool.open(location, logger: logger)
        } catch let error as PostgresStoreError {
            throw ServerError(error.message)
        }
        return (PostgresStorage(database: database), database)
    }

    /// Runs `body` with the store at `url` open, and closes it after.
    static func withPostgres<T>(url: String, fromEnvironment: Bool, option: String = "--store",
                                _ body: (PostgresStorage) throws -> T) throws -> T {
        var logger = Logger(label: "openrealm-server")
        logger.logLevel = .error
        let (storage, database) = try openPostgresBlocking(url: url, fromEnvironment: fromEnvironment, option: option, logger: logger)
        defer {
            storage.close()
            database.close()
        }
        return try body(storage)
    }

    /// Runs `body` on a thread of its own, one that may block.
    static func offSwiftThreads<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
