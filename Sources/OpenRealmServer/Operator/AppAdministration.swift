import Foundation

/// `openrealm-server users …` and `apikeys …`: an app's users and API keys, changed
/// offline. It holds the ``DataDirectoryLock`` from ``init(dataDirectory:appId:)`` until
/// ``close()`` (or until it is released), so no server runs on the directory meanwhile.
///
/// ```swift
/// let admin = try AppAdministration(dataDirectory: dir, appId: "todo")
/// for user in try admin.users() { print(user.id, user.email ?? "") }
/// ```
public final class AppAdministration {
    /// A user as an operator sees it.
    public struct User: Sendable, Hashable {
        public var id: String
        /// `anon-user`, `local-userpass`, `custom-token`, ...
        public var provider: String
        public var email: String?
        /// When it was created (milliseconds since the epoch).
        public var createdAt: Int64
    }

    /// An API key as an operator sees it: never the key, which the server does not keep.
    public struct APIKey: Sendable, Hashable {
        public var id: String
        public var userId: String
        public var name: String
        public var disabled: Bool
        /// When it was created (milliseconds since the epoch).
        public var createdAt: Int64
    }

    /// The app id.
    public let appId: String
    /// The data directory's lock (embedded store); nil on a storage other processes share.
    private let lock: DataDirectoryLock?
    /// The app's storage, opened through the data directory's ``EmbeddedStorage``.
    let storage: any AppStorage
    private var accounts: any AccountStore { storage.accounts }

    /// Locks `dataDirectory` and opens the store of `appId`.
    ///
    /// - Throws: ``ServerError`` when the directory is in use (a running server), or
    ///   has no app `appId` (naming the apps it has), or the store cannot be opened.
    public init(dataDirectory: URL, appId: String) throws {
        let directory = DataDirectory(dataDirectory)
        try directory.requireExisting()
        lock = try DataDirectoryLock(directory: dataDirectory, holder: "admin")
        guard FileManager.default.fileExists(atPath: directory.storePath(appId: appId)) else {
            let apps = (try? directory.appIds()) ?? []
            throw ServerError("the data directory '\(dataDirectory.path)' has no app '\(appId)' (apps: \(apps.isEmpty ? "none" : apps.joined(separator: ", ")))")
        }
        do {
            storage = try EmbeddedStorage(dataDirectory: dataDirectory).app(appId)
        } catch {
            throw ServerError("cannot open the store of app '\(appId)': \(error)")
        }
        self.appId = appId
    }

    /// The administration of `appId` on `storage` (PostgreSQL's), which servers may be
    /// serving at the same time: there is no directory to lock, and what is changed here
    /// is seen by them as by any other process on the storage.
    ///
    /// - Throws: ``ServerError`` when the storage has no app `appId`, or it cannot be opened.
    package init(storage: any ServerStorage, appId: String) throws {
        guard storage.hasApp(appId) else { throw ServerError("the store has no app '\(appId)'") }
        do {
            self.storage = try storage.app(appId)
        } catch {
            throw ServerError("cannot open the store of app '\(appId)': \(error)")
        }
        lock = nil
        self.appId = appId
    }

    /// Releases the data directory (also done when the object goes away).
    public func close() {
        lock?.release()
    }

    /// Every user, oldest first.
    public func users() throws -> [User] {
        try accounts.allUsers()
            .map { User(id: $0.id, provider: $0.provider, email: $0.email, createdAt: $0.createdAt) }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Removes the user whose id or email is `idOrEmail`, with its API keys; its refresh
    /// tokens are revoked, and its access tokens are refused from then on.
    ///
    /// - Returns: the removed user.
    /// - Throws: ``ServerError`` when no user has that id or email.
    @discardableResult
    public func removeUser(_ idOrEmail: String) throws -> User {
        let email = idOrEmail.trimmingCharacters(in: .whitespaces).lowercased()
        guard let record = try accounts.user(id: idOrEmail) ?? accounts.user(email: email),
              let user = try users().first(where: { $0.id == record.id }) else {
            throw ServerError("app '\(appId)' has no user with id or email '\(idOrEmail)'")
        }
        try accounts.removeUser(id: user.id)
        return user
    }

    /// The API keys of every user, or of `userId`, oldest first.
    public func apiKeys(userId: String? = nil) throws -> [APIKey] {
        try accounts.apiKeys(userId: userId)
            .map { APIKey(id: $0.id, userId: $0.userId, name: $0.name, disabled: $0.disabled, createdAt: $0.createdAt) }
    }

    /// Deletes the API key `id`: it no longer logs in.
    ///
    /// - Returns: the revoked key.
    /// - Throws: ``ServerError`` when there is no key `id`.
    @discardableResult
    public func revokeAPIKey(id: String) throws -> APIKey {
        guard let key = try apiKeys().first(where: { $0.id == id }) else {
            throw ServerError("app '\(appId)' has no API key with id '\(id)'")
        }
        try accounts.deleteAPIKey(id: id)
        return key
    }
}
