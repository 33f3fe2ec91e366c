import PostgresNIO

/// A failure of the PostgreSQL store, worded for an operator: what was attempted, on
/// which database (never with its password), and PostgreSQL's own reason.
///
/// ```text
/// cannot reach PostgreSQL at postgres://openrealm@db.internal:5432/openrealm: connection refused (errno 111)
/// ```
package struct PostgresStoreError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// The store URL is malformed.
        case invalidLocation
        /// No connection could be made (refused, timed out, TLS or authentication failed).
        case unreachable
        /// The database's tables are of a newer version than this server knows.
        case schemaTooNew
        /// A statement failed (the transaction was rolled back).
        case statementFailed
        /// The database did not answer within the operation's deadline.
        case timedOut
    }

    package let kind: Kind
    /// PostgreSQL's SQLSTATE, when the server gave one (`40001`: a serialization failure).
    package let sqlState: String?
    package let message: String

    package init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    package var description: String { message }

    /// The error for `error`, thrown while `operation` ran on `location`.
    ///
    /// postgres-nio words its errors vaguely on purpose (they may hold query text); the
    /// server's message, SQLSTATE and the socket error are what an operator needs, and
    /// hold no secrets.
    static func wrapping(_ error: any Error, _ operation: String, on location: PostgresLocation) -> PostgresStoreError {
        if let already = error as? PostgresStoreError { return already }
        if let transaction = error as? PostgresTransactionError {
            let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError ?? transaction.rollbackError
            if let inner { return wrapping(inner, operation, on: location) }
        }
        guard let psql = error as? PSQLError else {
            return PostgresStoreError(.statementFailed, "\(operation) on \(location) failed: \(error)")
        }
        if let info = psql.serverInfo {
            let state = info[.sqlState]
            var text = info[.message] ?? "the server refused"
            if let detail = info[.detail] { text += " (\(detail))" }
            let kind: Kind = state.map { $0.hasPrefix("08") || $0.hasPrefix("28") || $0 == "3D000" } == true
                ? .unreachable : .statementFailed
            let prefix = kind == .unreachable ? "cannot use PostgreSQL at \(location)" : "\(operation) on \(location) failed"
            return PostgresStoreError(kind, "\(prefix): \(text)" + (state.map { " [SQLSTATE \($0)]" } ?? ""), sqlState: state)
        }
        switch psql.code {
        case .connectionError, .serverClosedConnection, .sslUnsupported, .failedToAddSSLHandler,
             .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError, .poolClosed:
            let reason = psql.underlying.map { "\($0)" } ?? "\(psql.code)"
            return PostgresStoreError(.unreachable, "cannot reach PostgreSQL at \(location): \(reason)")
        default:
            let reason = psql.underlying.map { "\(psql.code): \($0)" } ?? "\(psql.code)"
            return PostgresStoreError(.statementFailed, "\(operation) on \(location) failed: \(reason)")
        }
    }
}
