// Reaches into the test server's storage.
import Foundation
@testable import OpenRealmServer

/// Trims the whole history of `appId` as if every client file had been away longer
/// than the retention period: any file that binds again below the server's current
/// version must reset. Returns the new history floor.
@discardableResult
func trimWholeHistory(_ server: SyncServer, appId: String) throws -> UInt64 {
    let app = try server.auth.apps.app(appId)
    return try app.withSyncLock {
        try app.storage.trimHistory(retentionSeconds: 1, bound: [], now: StorageConventions.nowMilliseconds + 3_600_000)
    }
}
