import Foundation
@testable import OpenRealmServer

extension SyncApp {
    /// The embedded store behind the app's storage (``EmbeddedAppStorage``), for tests
    /// that read or arrange its tables directly.
    var store: AppStore {
        guard let embedded = storage as? EmbeddedAppStorage else {
            preconditionFailure("app '\(appId)' is not on the embedded store")
        }
        return embedded.store
    }
}
