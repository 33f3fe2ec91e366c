import Foundation
import Synchronization

/// How much is logged, from nothing to everything, in increasing detail: a logger's
/// threshold and a message's level.
///
/// What OpenRealm logs at each level: `.detail` a realm file opened and closed;
/// `.trace` each `Realm` instance opened and each write committed; sync sessions log at
/// their own levels (`.detail` a connection's life, `.debug` each message kind).
public enum LogLevel: UInt, Sendable, CaseIterable {
    /// Nothing is logged.
    case off
    /// Only fatal errors.
    case fatal
    /// Errors.
    case error
    /// Warnings and errors.
    case warn
    /// Information about events, few enough to leave on.
    case info
    /// More information about events than `.info`.
    case detail
    /// Information that helps debugging; costs measurably.
    case debug
    /// More debugging information than `.debug`.
    case trace
    /// Everything.
    case all
}

/// Where OpenRealm's log messages go, and how many of them: a threshold `level` and a
/// function called with each message at or below it.
///
/// ```swift
/// Logger.shared = Logger(level: .detail) { level, message in
///     print("Realm Log - \(level): \(message)")
/// }
/// ```
///
/// `Logger.shared` is the logger used; by default it logs `.info` and less detailed
/// messages to standard error. Messages about the local database begin with `"DB: "`.
/// The log function may be called from any thread, several at once: it synchronizes
/// what it shares itself.
public final class Logger: @unchecked Sendable {
    private let threshold: Atomic<UInt>
    private let logFunction: @Sendable (LogLevel, String) -> Void

    /// A logger of messages at `level` or less detailed, each passed to `logFunction`.
    public init(level: LogLevel, logFunction: @escaping @Sendable (LogLevel, String) -> Void) {
        threshold = Atomic(level.rawValue)
        self.logFunction = logFunction
    }

    /// The most detailed level logged; may be changed at any time.
    public var level: LogLevel {
        get { LogLevel(rawValue: threshold.load(ordering: .relaxed)) ?? .off }
        set { threshold.store(newValue.rawValue, ordering: .relaxed) }
    }

    private static let current = Mutex<Logger>(Logger(level: .info) { level, message in
        let line = String(format: "%.3f", Date().timeIntervalSince1970) + " \(level): \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    })

    /// The logger OpenRealm logs to.
    public static var shared: Logger {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Whether a message at `level` would be logged.
    public func isEnabled(_ level: LogLevel) -> Bool {
        level != .off && level.rawValue <= threshold.load(ordering: .relaxed)
    }

    /// Logs `message` at `level` when the logger's level lets it through; the message is
    /// built only then.
    public func log(level: LogLevel, message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        logFunction(level, message())
    }

    /// Passes a message to the log function whatever the level: for callers that
    /// decided with levels of their own (a sync manager's `logLevel`).
    package func write(_ level: LogLevel, _ message: String) {
        logFunction(level, message)
    }

    /// A message about the local database (`"DB: "` first) to the shared logger.
    static func db(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let logger = shared
        guard logger.isEnabled(level) else { return }
        logger.logFunction(level, "DB: " + message())
    }
}

extension LogLevel: CustomStringConvertible {
    public var description: String {
        switch self {
        case .off: "off"
        case .fatal: "fatal"
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .detail: "detail"
        case .debug: "debug"
        case .trace: "trace"
        case .all: "all"
        }
    }
}
