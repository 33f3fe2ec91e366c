// Backs up and restores the test server's data directory.
import Foundation
@testable import OpenRealmServer

/// The latest server version of `appId`'s store.
func serverVersion(_ server: SyncServer, appId: String) throws -> UInt64 {
    try server.auth.apps.app(appId).serverVersion
}

/// `openrealm-server backup` of `dataDirectory` (the server may be running) into `backup`.
func backUp(_ dataDirectory: URL, to backup: URL) throws {
    _ = try DataDirectoryBackup.run(dataDirectory: dataDirectory, to: backup)
}

/// A restore as the docs tell an operator to do it, with the server stopped: the data
/// directory replaced by a copy of the backup.
func restore(_ backup: URL, into dataDirectory: URL) throws {
    try FileManager.default.removeItem(at: dataDirectory)
    try FileManager.default.copyItem(at: backup, to: dataDirectory)
}
