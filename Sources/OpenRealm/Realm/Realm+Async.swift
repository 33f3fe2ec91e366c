import Foundation

extension Realm {
    /// Opens a realm asynchronously (`let realm = try await
    /// Realm(configuration: config)`). For a local realm this is the same open as the
    /// synchronous initializer; synced configurations add their download step through
    /// the sync module.
    ///
    /// - Throws: what `init(configuration:)` throws.
    public convenience init(configuration: Realm.Configuration = .defaultConfiguration, downloadBeforeOpen: OpenBehavior = .never) async throws {
        if let hook = Realm._asyncOpenHook, configuration._syncConfiguration != nil {
            try await hook(configuration, downloadBeforeOpen)
        }
        self.init(coordinator: try Realm.openCoordinator(configuration), configuration: configuration, frozen: nil)
    }

    /// When an asynchronous open waits for the server: never, always, or only when the
    /// file does not exist yet. Local realms open at once whatever the behaviour.
    public enum OpenBehavior: Sendable {
        /// Open at once; sync runs in the background.
        case never
        /// Download everything the server has for the realm before opening.
        case always
        /// Download before opening only when the file does not exist yet.
        case once
    }

    /// Set by the sync module: the download step of an asynchronous open.
    nonisolated(unsafe) public static var _asyncOpenHook: ((Realm.Configuration, OpenBehavior) async throws -> Void)?
}
