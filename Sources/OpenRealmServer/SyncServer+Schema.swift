import Foundation

/// The configured schema (``ServerAppConfiguration/schema``), applied when the server starts.
extension SyncServer {
    /// Opens the configured app's store and adds what its configured schema has and the
    /// store lacks, before anything is served; logs what was added.
    ///
    /// - Throws: ``ServerError`` when the configured schema conflicts with the stored
    ///   one (naming the class or property and both definitions) or the store cannot
    ///   be opened: the server does not start.
    func applyConfiguredSchema() throws {
        guard let config = configuration.app, let schema = config.schema else { return }
        let app: SyncApp
        do {
            app = try auth.apps.app(config.appId)
        } catch {
            throw ServerError(error.message)
        }
        let added = try app.withSyncLock { try app.storage.applyConfiguredSchema(schema) }
        if !added.isEmpty {
            logger.notice("schema: added from the configuration",
                          metadata: ["app": "\(config.appId)", "added": "\(added.joined(separator: ", "))"])
        }
    }
}
