import Foundation

/// `openrealm-server schema show` and `schema apply`: an app's synced schema, read or
/// extended offline (the directory's lock is held, so no server runs meanwhile).
///
/// ```swift
/// let admin = try AppAdministration(dataDirectory: dir, appId: "todo")
/// print(try admin.schema().jsonText())    // paste into the configuration's "schema"
/// ```
extension AppAdministration {
    /// The stored schema, in the configuration's format (``AppSchema``).
    public func schema() throws -> AppSchema {
        try storage.storedSchema()
    }

    /// Adds what `schema` has and the store lacks (additive only).
    ///
    /// - Returns: what was added (`class 'Task'`, `property 'Task.title'`).
    /// - Throws: ``ServerError`` naming the class or property whose definition
    ///   conflicts with the stored one; nothing is applied then.
    @discardableResult
    public func applySchema(_ schema: AppSchema) throws -> [String] {
        try storage.applyConfiguredSchema(schema)
    }
}
