import Foundation
@testable import OpenRealmServer
import XCTest

extension SyncApp {
    /// The embedded store behind the app's storage (``EmbeddedAppStorage``), for tests
    /// that read or arrange its tables directly; on another store the test is skipped
    /// (such a test reads what only the embedded store has).
    var store: AppStore {
        get throws {
            guard let embedded = storage as? EmbeddedAppStorage else {
                throw XCTSkip("embedded store only: reads app '\(appId)''s ORCore store directly")
            }
            return embedded.store
        }
    }
}
