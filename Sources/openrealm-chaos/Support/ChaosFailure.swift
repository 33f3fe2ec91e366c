/// Why a chaos run failed: a loss, an inconsistency, or a process that misbehaved.
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
        /// A write a client reported as uploaded (acknowledged by the server) is missing.
        case lostUpload
        /// A write is on the server or a client more than once.
        case duplicate
        /// Two replicas (clients, or a client and the server) hold different data.
        case divergence
        /// The server child failed to start, to answer, or exited by itself.
        case server
        /// The PostgreSQL of a `--store postgres` run failed to start, stop or answer.
        case database
        /// `/health` stopped answering during a run.
        case health
        /// The server's peak memory passed the run's bound.
        case memory
        /// The server stopped serving well-behaved clients: a round trip failed, or their
        /// p99 latency passed the run's bound.
        case service
        /// The fault-injecting proxy or a simulated client failed.
        case network
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
