import Dispatch
import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// One process's connection pool to the store's database, and the bridge the storage
/// seam crosses: the seam's units of work are synchronous (they run on the server's
/// blocking-work threads, as the embedded store's transactions do), PostgresNIO is
/// asynchronous, so each unit blocks its thread until its transaction is done.
///
/// Every unit is one transaction on one pooled connection. A unit that does not finish
/// within its deadline (the statement timeout plus the connect timeout) is cancelled —
/// its connection closed, so PostgreSQL rolls it back — and fails with `timedOut`.
///
/// Threading: ``transaction(_:_:)`` must not be called on a Swift concurrency thread
/// (it would hold one of the few the runtime has while it waits); the server calls it
/// from `BlockingWork`.
package final class DatabasePool: Sendable {
    package let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>

    /// Opens the pool to `location` (connections are made on first use) and brings the
    /// database's tables to this server's version (``PostgresSchema``).
    ///
    /// - Throws: ``PostgresStoreError`` naming the database when it cannot be reached, the
    ///   login is refused, or its tables are of a newer version.
    package static func open(_ location: PostgresLocation, logger: Logger) throws -> DatabasePool {
        let database = try DatabasePool(location, logger: logger)
        do {
            try database.probe()
            try PostgresSchema.migrate(database)
        } catch {
            database.close()
            throw error
        }
        return database
    }

    /// The pool, without migrating (tests of the migrations).
    package init(_ location: PostgresLocation, logger: Logger) throws {
        self.location = location
        self.logger = logger
        var configuration: PostgresClient.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            configuration = PostgresClient.Configuration(host: host, port: port, username: location.username,
                                                         password: location.password, database: location.database,
                                                         tls: try Self.tls(location))
        case .socket(let path):
            configuration = PostgresClient.Configuration(unixSocketPath: path, username: location.username,
                                                         password: location.password, database: location.database)
        }
        configuration.options.connectTimeout = location.connectTimeout
        configuration.options.maximumConnections = location.maximumConnections
        let statementTimeout = location.statementTimeout.components
        let milliseconds = statementTimeout.seconds * 1000 + statementTimeout.attoseconds / 1_000_000_000_000_000
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"),
            ("application_name", location.applicationName),
        ]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task.detached { await client.run() }
    }

    deinit {
        running.cancel()
    }

    /// Connects once, outside the pool, and says why when that fails: the pool retries
    /// failed connections quietly, so a wrong password or a database that is down would
    /// show only as units that time out.
    func probe() throws {
        let configuration = try connectionConfiguration(applicationName: location.applicationName)
        let logger = self.logger
        try blocking("connect") {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        }
    }

    /// The configuration of a connection of its own, outside the pool (the probe, the
    /// commit feed's listener), named `applicationName` in `pg_stat_activity`.
    func connectionConfiguration(applicationName: String) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            configuration = PostgresConnection.Configuration(host: host, port: port, username: location.username,
                                                             password: location.password, database: location.database,
                                                             tls: try Self.connectionTLS(location))
        case .socket(let path):
            configuration = PostgresConnection.Configuration(unixSocketPath: path, username: location.username,
                                                             password: location.password, database: location.database)
        }
        let timeout = location.connectTimeout.components
        configuration.options.connectTimeout = .seconds(max(1, timeout.seconds))
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// Closes the pool: open connections are closed, later units fail.
    package func close() {
        running.cancel()
    }

    /// The longest a unit of work may take.
    var deadline: Duration { location.statementTimeout + location.connectTimeout }

    /// Runs `body` in a transaction, committed when it returns, rolled back when it
    /// throws; blocks the calling thread until then.
    ///
    /// - Parameter operation: what the unit does, for error messages ("create a user").
    /// - Throws: ``PostgresStoreError`` for a failure of the database; the body's own
    ///   errors as they are.
    package func transaction<T: Sendable>(_ operation: String,
                                          _ body: @escaping @Sendable (PostgresConnection) async throws -> T) throws -> T {
        try blocking(operation) { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs `body` on a pooled connection outside a transaction (statements that
    /// manage their own, or a lone read).
    package func withConnection<T: Sendable>(_ operation: String,
                                             _ body: @escaping @Sendable (PostgresConnection) async throws -> T) throws -> T {
        try blocking(operation) { [client] in
            try await client.withConnection { connection in try await body(connection) }
        }
    }

    /// Runs `work` and blocks until it ends or the deadline passes, whichever is first.
    ///
    /// The wait is bounded even when `work` does not heed cancellation (a query on a
    /// connection the server dropped mid-answer may never end): at the deadline the work
    /// is cancelled and left behind, and the caller gets `timedOut` — a unit then closes
    /// its connection rather than use it again (``unit(_:_:)``).
    func blocking<T: Sendable>(_ operation: String, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        let deadline = self.deadline
        let task = Task.detached {
            do {
                outcome.set(.success(try await work()))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        let parts = deadline.components
        let nanoseconds = Int(parts.seconds) * 1_000_000_000 + Int(parts.attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
            task.cancel()
            throw PostgresStoreError(.timedOut, "\(operation) on \(location) did not finish within \(deadline)")
        }
        switch outcome.get() {
        case .success(let value): return value
        case .failure(let error as PostgresTransactionError):
            // The body's own errors pass through; the database's are worded.
            if let inner = error.closureError, !(inner is PSQLError) { throw inner }
            throw PostgresStoreError.wrapping(error, operation, on: location)
        case .failure(let error): throw PostgresStoreError.wrapping(error, operation, on: location)
        }
    }

    private static func tls(_ location: PostgresLocation) throws -> PostgresClient.Configuration.TLS {
        guard let configuration = try tlsConfiguration(location) else { return .disable }
        return location.tls == .prefer ? .prefer(configuration) : .require(configuration)
    }

    private static func connectionTLS(_ location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        guard let configuration = try tlsConfiguration(location) else { return .disable }
        let context = try NIOSSLContext(configuration: configuration)
        return location.tls == .prefer ? .prefer(context) : .require(context)
    }

    /// What `sslmode` and `sslrootcert` ask of TLS (libpq's meanings); nil: no TLS.
    private static func tlsConfiguration(_ location: PostgresLocation) throws -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch location.tls {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let path = location.rootCertificatePath {
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw PostgresStoreError(.invalidLocation, "cannot read sslrootcert '\(path)': \(error)")
            }
        }
        return configuration
    }
}

extension PostgresConnection {
    /// Runs a statement to its end. A statement's failure (a cancelled statement, a
    /// violated constraint) may arrive after its first rows, so the rows are read even
    /// when nothing uses them.
    package func perform(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}

/// The result a blocked thread waits for.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        lock.withLock { result = value }
    }

    func get() -> Result<T, any Error> {
        lock.withLock { result! }
    }
}
