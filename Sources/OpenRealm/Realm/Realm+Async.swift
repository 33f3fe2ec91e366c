import Foundation

extension Realm {
    /// Opens a realm asynchronously (`let realm = try await
    /// Realm(configuration: config)`). For a local realm this is the same open as the
    /// synchronous initializer; synced configurations add their download step through
    /// the sync module.
    ///
    /// The realm belongs to the caller: called on the main actor, to the main thread;
    /// on another actor, to that actor (as `init(configuration:actor:)` makes it);
    /// from a nonisolated context, to no thread in particular (the task that opened it
    /// may resume on any thread; use it from that one task).
    ///
    /// - Throws: what `init(configuration:)` throws.
    public convenience init(configuration: Realm.Configuration = .defaultConfiguration, downloadBeforeOpen: OpenBehavior = .never,
                            _isolation: isolated (any Actor)? = #isolation) async throws {
        try await configuration.sync?.prepareOpen(configuration, behavior: downloadBeforeOpen)
        let coordinator = try Realm.openCoordinator(configuration)
        if let actor = _isolation, ObjectIdentifier(actor) != ObjectIdentifier(MainActor.shared) {
            self.init(coordinator: coordinator, configuration: configuration, scheduler: .actor(actor))
        } else if _isolation == nil {
            // A nonisolated task may resume on any thread of the pool after each await:
            // the realm is not tied to one (it must still be used by one task at a time).
            self.init(coordinator: coordinator, configuration: configuration, frozen: nil, privateState: true)
        } else {
            self.init(coordinator: coordinator, configuration: configuration, frozen: nil)
        }
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
}
