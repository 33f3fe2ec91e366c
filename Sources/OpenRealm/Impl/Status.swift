import ORCore

/// The thin, strict edge between Swift and ORCore: every status is checked where
/// it comes back and turned into a `Realm.Error` at once.
enum ORC {
    /// The calling thread's last ORCore message (it starts with the code's name).
    static var lastMessage: String { String(cString: orc_last_error()) }

    /// Throws the `Realm.Error` for a failing status; `operation` names what was attempted.
    @inline(__always)
    static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(RealmError) {
        if status != ORC_OK { throw error(status, operation()) }
    }

    /// The `Realm.Error` for a failing status.
    static func error(_ status: Int32, _ operation: String) -> RealmError {
        let detail = lastStatusMessage(status)
        return RealmError(code(for: status), "\(operation): \(detail)")
    }

    private static func lastStatusMessage(_ status: Int32) -> String {
        if orc_last_status() == status {
            let message = lastMessage
            if !message.isEmpty { return message }
        }
        return String(cString: orc_strerror(status))
    }

    static func code(for status: Int32) -> RealmError.Code {
        switch status {
        case ORC_ERR_NOT_FOUND: return .invalidArgument
        case ORC_ERR_EXISTS: return .primaryKeyExists
        case ORC_ERR_INVALID_ARG: return .invalidArgument
        case ORC_ERR_WRONG_TYPE, ORC_ERR_NOT_NULLABLE: return .invalidValue
        case ORC_ERR_READ_ONLY: return .readOnly
        case ORC_ERR_CORRUPT, ORC_ERR_NOT_A_REALM: return .invalidDatabase
        case ORC_ERR_FORMAT_VERSION: return .fileFormatUpgradeRequired
        case ORC_ERR_SCHEMA: return .schemaMismatch
        case ORC_ERR_MAP_FULL, ORC_ERR_NOMEM: return .addressSpaceExhausted
        case ORC_ERR_QUERY: return .invalidQuery
        case ORC_ERR_OUT_OF_RANGE: return .invalidArgument
        case ORC_ERR_BAD_TXN: return .wrongTransactionState
        case ORC_ERR_EMBEDDED: return .invalidValue
        case ORC_ERR_INCOMPATIBLE_LOCK: return .incompatibleLockFile
        case ORC_ERR_BUSY: return .wrongTransactionState
        case 1 /* EPERM */, 13 /* EACCES */, 30 /* EROFS */: return .filePermissionDenied
        case 2 /* ENOENT */: return .fileNotFound
        case 17 /* EEXIST */: return .fileExists
        case 28 /* ENOSPC */: return .addressSpaceExhausted
        case 5 /* EIO */, 21 /* EISDIR */, 20 /* ENOTDIR */: return .fileAccess
        default: return .fail
        }
    }
}
