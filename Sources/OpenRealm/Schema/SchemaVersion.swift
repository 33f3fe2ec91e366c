import Foundation
import ORCore

/// The schema version stored in the realm file at `fileURL`, read without opening the
/// realm with models (nothing is migrated or added):
///
/// ```swift
/// let version = try schemaVersionAtURL(config.fileURL!)
/// ```
///
/// - Throws: `Realm.Error` with `fileURL` set — `.invalidDatabase` when no realm was
///   ever opened there ("has not been initialized", as in the Realm Swift SDK) or the
///   file is not a realm; `.fileAccess` for something that is not a regular file (a
///   directory, a device); `.filePermissionDenied`; `.fail` for an `encryptionKey`
///   (OpenRealm has no encrypted realms).
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    try RealmCoordinator.schemaVersion(atFile: fileURL, encryptionKey: encryptionKey)
}

extension Realm {
    /// Opens the realm of `configuration` and runs its migration, if its schema version
    /// rose, without keeping the realm open: the migration's cost is paid now rather
    /// than at the first open.
    ///
    /// - Throws: what `Realm(configuration:)` throws.
    public static func performMigration(for configuration: Realm.Configuration = Realm.Configuration.defaultConfiguration) throws {
        _ = try Realm.openCoordinator(configuration)
    }
}

extension RealmCoordinator {
    static func schemaVersion(atFile url: URL, encryptionKey: Data?) throws(RealmError) -> UInt64 {
        let path = url.path
        let notInitialized = RealmError(.invalidDatabase, "Realm at path '\(path)' has not been initialized.", fileURL: url)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw RealmError(.filePermissionDenied, "Cannot read the schema version of '\(path)': permission denied.", fileURL: url)
            }
            throw notInitialized
        }
        // A device or a directory is no realm; opening one would make a lock file beside it.
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw RealmError(.fileAccess, "Cannot read the schema version of '\(path)': it is not a regular file.", fileURL: url)
        }
        var configuration = Realm.Configuration(fileURL: url, readOnly: true)
        configuration.encryptionKey = encryptionKey
        let coordinator = try coordinator(for: configuration)
        var txn: OpaquePointer?
        try check(orc_txn_begin(coordinator.env, Int32(ORC_TXN_READ), &txn), opening: path)
        let version = readSchemaVersion(txn!)
        orc_txn_abort(txn)
        // The file stays open (the coordinator held) until the transaction has ended.
        withExtendedLifetime(coordinator) {}
        guard let version else { throw notInitialized }
        return version
    }
}
