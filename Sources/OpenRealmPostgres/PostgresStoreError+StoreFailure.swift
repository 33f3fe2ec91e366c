import OpenRealmServer

/// Which of the database's failures the engine may retry (``StoreFailure``), by kind and
/// by SQLSTATE class: `40` (`40001` serialization failure, `40P01` deadlock), `08`
/// (connection exceptions), `53` (insufficient resources: too many connections, out of
/// memory or disk), `57P` (the server shutting down, crashed or still starting, or the
/// backend terminated by an operator).
extension PostgresStoreError: StoreFailure {
    package var isConflictRollback: Bool {
        sqlState == "40001" || sqlState == "40P01"
    }

    package var isTransient: Bool {
        switch kind {
        case .unreachable, .timedOut:
            return true
        case .invalidLocation, .schemaTooNew:
            return false
        case .statementFailed:
            guard let state = sqlState else { return false }
            return isConflictRollback || state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P")
        }
    }
}
