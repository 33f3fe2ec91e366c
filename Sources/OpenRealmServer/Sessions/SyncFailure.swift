import OpenRealmWire

/// A refusal the sync protocol reports: the error code sent to the client and a message
/// naming the cause. Thrown inside the session logic and turned into an `error` message.
struct SyncFailure: Error, Sendable, CustomStringConvertible {
    /// The protocol's error code.
    var code: SyncErrorCode
    /// What was wrong, naming the bad input.
    var message: String

    init(_ code: SyncErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code): \(message)" }
}
