import Foundation

/// The error every throwing OpenRealm call throws: a ``Code`` naming the class of
/// failure and a message naming the cause.
///
/// `Realm.Error` is this type, so both Realm-style forms work:
///
/// ```swift
/// do {
///     let realm = try Realm(configuration: config)
/// } catch Realm.Error.fileNotFound {
///     // ...
/// } catch let error as Realm.Error where error.code == .schemaMismatch {
///     print(error.localizedDescription)
/// }
/// ```
public struct RealmError: Swift.Error, Equatable, Hashable, CustomStringConvertible, LocalizedError, Sendable {
    /// What kind of failure an error is. The raw values are the Realm Swift SDK's
    /// (`RLMError`) for every code it has, so code that stores or compares
    /// `errorCode` keeps working; the codes from 100 on are OpenRealm's, for failures
    /// the SDK reports as exceptions (OpenRealm throws them where the call can throw).
    public enum Code: Int, Sendable, CaseIterable {
        /// A failure with no more specific code.
        case fail = 1
        /// The file could not be opened or written (I/O error, a directory, not a regular file, ...).
        case fileAccess = 2
        /// The process may not open or create the file.
        case filePermissionDenied = 3
        /// The destination of a copy already exists.
        case fileExists = 4
        /// The file does not exist and the call may not create it (read-only open, seed file).
        case fileNotFound = 5
        /// The file was written by a newer, unknown format version.
        case fileFormatUpgradeRequired = 6
        /// The lock file belongs to an incompatible build or cannot be used.
        case incompatibleLockFile = 8
        /// The file could not grow (disk full, address space exhausted).
        case addressSpaceExhausted = 9
        /// The models differ from the stored schema and no migration was given.
        case schemaMismatch = 10
        /// The operation cannot run on a file that is open.
        case alreadyOpen = 12
        /// An input value was invalid.
        case invalidInput = 13
        /// A write failed for want of disk space.
        case outOfDiskSpace = 14
        /// Another process opened the file in a way this one cannot share.
        case incompatibleSession = 15
        /// The file is a realm of a format version this build does not read.
        case unsupportedFileFormatVersion = 16
        /// A synced realm is open for sync in another process.
        case multipleSyncAgents = 17
        /// A Flexible Sync subscription set was rejected.
        case subscriptionFailed = 18
        /// A file operation failed in a way no more specific code names (a path through
        /// something that is not a directory).
        case fileOperationFailed = 19
        /// The file is not a realm, or is damaged.
        case invalidDatabase = 20
        /// A local realm was opened as a synced one, or the reverse.
        case incompatibleHistories = 21
        /// An object was written to a flexible sync realm in a class no subscription covers.
        case noSubscriptionForWrite = 22
        /// A query string or typed query is malformed or does not fit the schema.
        case invalidQuery = 101
        /// A value's type does not fit the property, or a property does not exist.
        case invalidValue = 102
        /// An object with the same primary key already exists.
        case primaryKeyExists = 103
        /// A write was attempted outside a write transaction, or a transaction call came at the wrong time.
        case wrongTransactionState = 104
        /// The object was deleted, or its realm was invalidated.
        case objectInvalidated = 105
        /// A write was attempted on a read-only or frozen realm.
        case readOnly = 106
        /// An argument is out of range or malformed (an index, a configuration value).
        case invalidArgument = 107
    }

    /// What kind of failure this is.
    public let code: Code
    /// The message naming the cause.
    public let message: String
    /// The file the error is about, for errors opening or reading a realm file (the
    /// Realm Swift SDK's `Realm.Error.fileURL`); nil otherwise.
    public let fileURL: URL?

    public init(_ code: Code, _ message: String, fileURL: URL? = nil) {
        self.code = code
        self.message = message
        self.fileURL = fileURL
    }

    public var errorCode: Int { code.rawValue }
    public var localizedDescription: String { message }
    public var errorDescription: String? { message }
    public var description: String { "Realm.Error(\(code)): \(message)" }

    public static var fail: Code { .fail }
    public static var fileAccess: Code { .fileAccess }
    public static var filePermissionDenied: Code { .filePermissionDenied }
    public static var fileExists: Code { .fileExists }
    public static var fileNotFound: Code { .fileNotFound }
    public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
    public static var incompatibleLockFile: Code { .incompatibleLockFile }
    public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
    public static var schemaMismatch: Code { .schemaMismatch }
    public static var alreadyOpen: Code { .alreadyOpen }
    public static var invalidInput: Code { .invalidInput }
    public static var outOfDiskSpace: Code { .outOfDiskSpace }
    public static var incompatibleSession: Code { .incompatibleSession }
    public static var unsupportedFileFormatVersion: Code { .unsupportedFileFormatVersion }
    public static var multipleSyncAgents: Code { .multipleSyncAgents }
    public static var subscriptionFailed: Code { .subscriptionFailed }
    public static var fileOperationFailed: Code { .fileOperationFailed }
    public static var invalidDatabase: Code { .invalidDatabase }
    public static var incompatibleHistories: Code { .incompatibleHistories }
    public static var noSubscriptionForWrite: Code { .noSubscriptionForWrite }
    public static var invalidQuery: Code { .invalidQuery }
    public static var invalidValue: Code { .invalidValue }
    public static var primaryKeyExists: Code { .primaryKeyExists }
    public static var wrongTransactionState: Code { .wrongTransactionState }
    public static var objectInvalidated: Code { .objectInvalidated }
    public static var readOnly: Code { .readOnly }
    public static var invalidArgument: Code { .invalidArgument }
}

extension RealmError.Code {
    /// Lets `catch Realm.Error.fileNotFound` match an error by its code. (A member
    /// operator must take its own type, so this lives on `Code`, not `RealmError`.)
    public static func ~= (code: RealmError.Code, error: any Swift.Error) -> Bool {
        (error as? RealmError)?.code == code
    }
}
