/// Why a chaos run failed: a loss, an inconsistency, or a writer that misbehaved.
///
/// `code` names the kind of failure; `message` names the file, cycle and values involved.
struct ChaosFailure: Error, CustomStringConvertible, Sendable {
    /// The kinds of failure a run can report.
    enum Code: String, Sendable {
        /// `orc_env_check` (or opening the file with ORCore) failed after a kill.
        case engineCheck
        /// A transaction the writer reported as committed is missing or has other content.
        case lostCommit
        /// The file shows part of a transaction, or transactions out of sequence.
        case partialTransaction
        /// The writer process failed to start, to become ready, or exited by itself.
        case writer
        /// A bad command-line value.
        case usage
    }

    let code: Code
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code.rawValue): \(message)" }
}
