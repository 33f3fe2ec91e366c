import Foundation
import OpenRealm
import OpenRealmWire

/// A failure reported by sync: by the server (a refused subscription, a rejected
/// write, a refused session) or by the client (the connection, a timeout).
///
/// ```swift
/// catch let error as SyncError where error.code == .writeRejected {
///     for write in error.compensatingWriteInfo ?? [] { print(write.objectType, write.reason) }
/// }
/// ```
public struct SyncError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What went wrong. The raw values are the Realm Swift SDK's (`RLMSyncError`) for
    /// every code it has; `otherError` and the codes from 100 on are OpenRealm's.
    public enum Code: Int, Sendable, CaseIterable {
        /// A failure with no more specific code.
        case otherError = 1
        /// The server needs the file reset (its history does not continue the client's).
        case clientResetError = 7
        /// The user may not sync what the session asks.
        case permissionDenied = 9
        /// A subscription query broke a Flexible Sync rule (the message names it).
        case invalidFlexibleSyncSubscriptions = 10
        /// The server reverted writes outside the view or the write rules.
        case writeRejected = 11
        /// The TLS handshake with the server failed: its certificate does not verify
        /// (expired, for another host name, from an untrusted authority), it does not
        /// speak TLS, or the trusted roots file cannot be read. The message names the
        /// server and the reason; the session stops (retrying would not help).
        case tlsHandshakeFailed = 13
        /// The server could not be reached or the connection ended; or the sync
        /// WebSocket's upgrade was answered with an HTTP status that will not change on
        /// a retry (a reverse proxy that does not pass the upgrade on, a base URL that
        /// leads elsewhere), and the session stops: the message names the server, the
        /// status and the cause.
        case connectionFailed = 12
        /// The server refused the user's token; log in again.
        case authenticationFailed = 101
        /// A wait ran past its timeout.
        case timedOut = 102
        /// The server speaks another protocol or sync mode (partition-based against flexible).
        case wrongSyncMode = 103
        /// The operation needs a flexible or partition-based sync configuration.
        case notSynced = 104
    }

    /// One write the server reverted. (Sendable although `AnyRealmValue` is not: a
    /// primary key is never the `.object` case, only a value.)
    public struct CompensatingWriteInfo: @unchecked Sendable, CustomStringConvertible {
        /// The class of the object.
        public let objectType: String
        /// Its primary key (`.int`, `.string`, `.objectId`, `.uuid`, or `.none` for a
        /// null key), typed as the Realm Swift SDK types it.
        public let primaryKey: AnyRealmValue
        /// Why the write was reverted.
        public let reason: String
        public var description: String { "\(objectType)[\(primaryKey)]: \(reason)" }
    }

    public let code: Code
    public let message: String
    /// The server's protocol error code, when the error came from the server.
    public let serverCode: SyncErrorCode?
    /// For `.writeRejected`: each reverted write.
    public let compensatingWriteInfo: [CompensatingWriteInfo]?
    /// The failure beneath this one, when the client's own storage failed: the engine's
    /// error, which keeps ORCore's status code (as an `NSError`: domain `ORCore`, the
    /// status as its code).
    public let underlyingError: (any Error & Sendable)?
    /// What `clientResetInfo()` and `deleteRealmUserInfo()` hand out.
    var actionToken: ActionToken?

    public init(_ code: Code, _ message: String, serverCode: SyncErrorCode? = nil, compensatingWriteInfo: [CompensatingWriteInfo]? = nil,
                underlyingError: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.serverCode = serverCode
        self.compensatingWriteInfo = compensatingWriteInfo
        self.underlyingError = underlyingError
    }

    public var errorCode: Int { code.rawValue }
    public var description: String { "SyncError(\(code)): \(message)" }
    public var errorDescription: String? { message }
    public var localizedDescription: String { message }
}

/// The Realm Swift SDK's top-level name for ``SyncError/CompensatingWriteInfo``.
public typealias CompensatingWriteInfo = SyncError.CompensatingWriteInfo

extension SyncError.Code {
    /// The Realm Swift SDK's name for ``permissionDenied``.
    public static var permissionDeniedError: SyncError.Code { .permissionDenied }

    /// Lets `catch SyncError.Code.writeRejected` match a `SyncError` of that code.
    public static func ~= (code: SyncError.Code, error: any Error) -> Bool {
        (error as? SyncError)?.code == code
    }
}
