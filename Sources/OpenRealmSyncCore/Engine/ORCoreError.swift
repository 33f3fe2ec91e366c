import Foundation
import ORCore

/// A failure of an ORCore call, turned into a Swift error where its status came back:
/// the status code, and a message naming the operation and ORCore's reason.
///
/// ```text
/// ORCoreError(status: -41001, "create Task[5]: ORC_ERR_EXISTS: primary key 5 already exists in class 'Task'")
/// ```
///
/// The server reports it as it is (its name for it is `StoreError`); the client wraps it
/// in a `SyncError`, as that error's underlying error, so the status survives there too.
/// Bridged to `NSError` it has domain `ORCore` and the status as its code.
public struct ORCoreError: Error, Sendable, CustomStringConvertible, CustomNSError {
    /// The ORCore status (`ORC_ERR_*`, or an errno value), or 0 for a failure the caller
    /// itself detected (a missing class, a value of the wrong type, a damaged value).
    public let status: Int32
    /// The operation and ORCore's message naming the cause.
    public let message: String

    /// A failure with `status` and `message`.
    public init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    /// ORCore's "not found" (`ORC_ERR_NOT_FOUND`): a missing file opened without
    /// creating it, a missing object, key or metadata value.
    public var isNotFound: Bool { status == ORC_ERR_NOT_FOUND }
    /// A write on a file or handle opened read-only (`ORC_ERR_READ_ONLY`).
    public var isReadOnly: Bool { status == ORC_ERR_READ_ONLY }
    /// The file is damaged or is not a realm (`ORC_ERR_CORRUPT`, `ORC_ERR_NOT_A_REALM`).
    public var isDamaged: Bool { status == ORC_ERR_CORRUPT || status == ORC_ERR_NOT_A_REALM }
    /// Another transaction is in the way (`ORC_ERR_BUSY`).
    public var isBusy: Bool { status == ORC_ERR_BUSY }

    /// The error for a failing ORCore status: the operation, then the calling thread's
    /// last ORCore message when it belongs to this status (else the code's name).
    public static func failure(_ status: Int32, _ operation: String) -> ORCoreError {
        var detail = ""
        if orc_last_status() == status { detail = String(cString: orc_last_error()) }
        if detail.isEmpty { detail = String(cString: orc_strerror(status)) }
        return ORCoreError(status: status, "\(operation): \(detail)")
    }

    /// Throws the error for `status` unless it is `ORC_OK`; `operation` is evaluated
    /// only then.
    @inlinable
    public static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(ORCoreError) {
        if status != ORC_OK { throw failure(status, operation()) }
    }

    public static var errorDomain: String { "ORCore" }
    public var errorCode: Int { Int(status) }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}
