import Foundation
import OpenRealm

/// How much the sync client logs, from nothing to everything, in increasing detail.
///
/// ```swift
/// app.syncManager.logLevel = .debug
/// app.syncManager.logger = { level, message in print("[sync \(level)] \(message)") }
/// ```
///
/// `.detail` logs each connection's life (connecting, opened, bound, lost and why,
/// the reconnect delay); `.debug` adds the token fetch and each message kind received.
public enum SyncLogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case off, fatal, error, warn, info, detail, debug, trace, all

    /// Reads a level from its name (`"debug"`), as in an environment variable.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = level
    }

    public static func < (a: SyncLogLevel, b: SyncLogLevel) -> Bool { a.rawValue < b.rawValue }

    /// The level's name, as `Logger`'s level of the same rank is named.
    public var description: String { LogLevel(rawValue: UInt(rawValue))?.description ?? "all" }
}

/// Where sync log lines go: the level and the message.
@preconcurrency
public typealias SyncLogFunction = @Sendable (SyncLogLevel, String) -> Void
