import Dispatch
import Foundation
import Logging
import PostgresNIO

/// A unit of work on PostgreSQL driven from synchronous code: one transaction on one
/// connection leased from the pool for the unit's length, each statement a blocking
/// round trip. The storage seam's units (`docs/design/STORAGE-SEAM.md`) are synchronous
/// bodies that call the store many times; this is how such a body runs on PostgreSQL.
///
/// Valid only inside the ``DatabasePool/unit(_:_:)`` body that received it.
package final class PostgresUnit: @unchecked Sendable {
    let connection: PostgresConnection
    let pool: DatabasePool
    let operation: String

    /// Work to run after the body, before the commit (writes kept back to batch them).
    private var beforeCommit: [() throws -> Void] = []

    /// Runs `work` when the body has returned, before the commit, in the order added; if
    /// it throws, the unit rolls back.
    package func beforeCommit(_ work: @escaping () throws -> Void) {
        beforeCommit.append(work)
    }

    func runBeforeCommit() throws {
        while !beforeCommit.isEmpty {
            try beforeCommit.removeFirst()()
        }
    }

    init(connection: PostgresConnection, pool: DatabasePool, operation: String) {
        self.connection = connection
        self.pool = pool
        self.operation = operation
    }

    /// Ends the transaction after `error`: rolled back, or — when the connection timed
    /// out (a statement that may still be running, an answer that never came) or is
    /// gone — the connection closed, which rolls back whatever is open on it, and the
    /// pool drops it. A connection that cannot roll back is broken: the pool drops it too.
    func abandon(after error: any Error) {
        if let failure = error as? PostgresStoreError, failure.kind == .timedOut || failure.kind == .unreachable {
            _ = try? pool.blocking("close the connection of \(operation)") { [connection] in try await connection.close() }
            return
        }
        try? perform("ROLLBACK")
    }

    /// Runs a statement to its end.
    package func perform(_ query: PostgresQuery) throws {
        try pool.blocking(operation) { [connection, logger = pool.logger] in
            try await connection.perform(query, logger: logger)
        }
    }

    /// Runs a query and reads its rows with `read`.
    package func query<R: Sendable>(_ query: PostgresQuery,
                                    _ read: @escaping @Sendable (PostgresRowSequence) async throws -> R) throws -> R {
        try pool.blocking(operation) { [connection, logger = pool.logger] in
            try await read(try await connection.query(query, logger: logger))
        }
    }
}

extension DatabasePool {
    /// Runs the synchronous `body` as one transaction on a leased connection: committed
    /// when it returns, rolled back when it throws. Blocks the calling thread (never a
    /// Swift concurrency thread; see ``DatabasePool``).
    ///
    /// - Throws: ``PostgresStoreError`` when no connection comes within the deadline or
    ///   the database fails; the body's own errors as they are.
    package func unit<T>(_ operation: String, _ body: (PostgresUnit) throws -> T) throws -> T {
        let lease = Lease()
        let client = self.client
        let task = Task.detached {
            do {
                try await client.withConnection { connection in
                    await lease.hold(connection)
                }
            } catch {
                lease.fail(error)
            }
        }
        let connection: PostgresConnection
        do {
            connection = try lease.connection(within: deadline, operation: operation, on: location)
        } catch {
            task.cancel()
            lease.release()
            throw error
        }
        defer { lease.release() }
        let unit = PostgresUnit(connection: connection, pool: self, operation: operation)
        try unit.perform("BEGIN")
        let result: T
        do {
            result = try body(unit)
            try unit.runBeforeCommit()
        } catch {
            unit.abandon(after: error)
            throw error
        }
        do {
            try unit.perform("COMMIT")
        } catch {
            unit.abandon(after: error)
            throw error
        }
        return result
    }
}

/// A connection lent by the pool to a synchronous unit: held inside the pool's
/// `withConnection` until the unit releases it.
private final class Lease: @unchecked Sendable {
    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private var leased: Result<PostgresConnection, any Error>?
    private var released = false
    private var waiting: CheckedContinuation<Void, Never>?

    /// Called by the pool's task with the connection: hands it over and waits for the release.
    func hold(_ connection: PostgresConnection) async {
        lock.withLock { leased = .success(connection) }
        ready.signal()
        await withCheckedContinuation { continuation in
            let resumeNow = lock.withLock { () -> Bool in
                if released { return true }
                waiting = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func fail(_ error: any Error) {
        lock.withLock { if leased == nil { leased = .failure(error) } }
        ready.signal()
    }

    /// The connection, once the pool lends it.
    func connection(within deadline: Duration, operation: String, on location: PostgresLocation) throws -> PostgresConnection {
        let parts = deadline.components
        let nanoseconds = Int(parts.seconds) * 1_000_000_000 + Int(parts.attoseconds / 1_000_000_000)
        guard ready.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
            throw PostgresStoreError(.timedOut, "\(operation) on \(location) got no connection within \(deadline)")
        }
        switch lock.withLock({ leased }) {
        case .success(let connection): return connection
        case .failure(let error):
            // Whatever the pool says when it cannot lend a connection (a login refused,
            // a database not accepting connections), the database cannot be reached.
            let failure = PostgresStoreError.wrapping(error, operation, on: location)
            guard failure.kind == .statementFailed else { throw failure }
            throw PostgresStoreError(.unreachable, "cannot reach PostgreSQL at \(location) to \(operation): \(failure.message)",
                                     sqlState: failure.sqlState)
        case nil: throw PostgresStoreError(.statementFailed, "\(operation) on \(location): the pool lent nothing")
        }
    }

    /// Gives the connection back to the pool (once; later calls do nothing).
    func release() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume()
    }
}
