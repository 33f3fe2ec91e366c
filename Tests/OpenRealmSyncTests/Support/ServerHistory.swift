// Reaches into the test server's store; imports the server module only (its
// `SyncSession` and `AppConfiguration` share names with the client's).
import Foundation
@testable import OpenRealmServer

/// Trims the whole history of `appId` as if every client file had been away longer
/// than the retention period: any file that binds again below the server's current
/// version must reset. Returns the new history floor.
@discardableResult
func trimWholeHistory(_ server: SyncServer, appId: String) throws -> UInt64 {
    let store = try server.auth.apps.app(appId).store
    return try store.withLock {
        try store.trimHistory(retentionSeconds: 1, bound: [], now: AppStore.nowMilliseconds + 3_600_000)
    }
}
