import ORCore

/// A failure of the server's embedded store: an ORCore status turned into a Swift error
/// where it came back, with the operation that was attempted.
///
/// ```text
/// StoreError(status: -41001, "create Task[5]: ORC_ERR_EXISTS: primary key 5 already exists in class 'Task'")
/// ```
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The ORCore status (`ORC_ERR_*`, or an errno value), or 0 for a failure the
    /// store itself detected (a missing class, a value of the wrong type).
    public let status: Int32
    /// The operation and ORCore's message naming the cause.
    public let message: String

    /// A failure with `status` and `message`.
    public init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    /// Whether the failure is ORCore's "not found".
    public var isNotFound: Bool { status == ORC_ERR_NOT_FOUND }

    /// The error for a failing ORCore status: the operation, then the thread's last
    /// ORCore message (or the code's name).
    static func orcore(_ status: Int32, _ operation: String) -> StoreError {
        var detail = ""
        if orc_last_status() == status { detail = String(cString: orc_last_error()) }
        if detail.isEmpty { detail = String(cString: orc_strerror(status)) }
        return StoreError(status: status, "\(operation): \(detail)")
    }

    /// Throws the error for `status` unless it is `ORC_OK`.
    @inline(__always)
    static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(StoreError) {
        if status != ORC_OK { throw orcore(status, operation()) }
    }
}
