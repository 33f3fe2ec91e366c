import Foundation

/// A user of an ``App``, logged in on this device (or once logged in, and still cached).
///
/// ```swift
/// let user = app.currentUser!
/// var config = user.flexibleSyncConfiguration()
/// try await user.logOut()
/// ```
///
/// There is one `User` object per user id and app in a process. Its tokens are kept in
/// the app's user cache and the access token is refreshed when it has expired.
public final class User: Sendable, Hashable, CustomStringConvertible {
    /// Whether a user can sync.
    public enum State: Sendable, Equatable {
        /// Logged in: has tokens.
        case loggedIn
        /// Logged out: the cache remembers the user, without tokens.
        case loggedOut
        /// Removed from the device.
        case removed
    }

    /// The user id the server gave.
    public let id: String
    let appState: AppState

    init(id: String, app: AppState) {
        self.id = id
        appState = app
    }

    /// The app the user belongs to.
    public var app: App { App(state: appState) }

    /// Whether the user is logged in, removed, or logged out.
    public var state: State {
        guard let entry = appState.entry(id) else { return .removed }
        return entry.state == .loggedIn ? .loggedIn : .loggedOut
    }

    /// Whether the user is logged in.
    public var isLoggedIn: Bool { state == .loggedIn }

    /// The current access token (nil when logged out).
    public var accessToken: String? { appState.entry(id)?.accessToken }
    /// The current refresh token (nil when logged out).
    public var refreshToken: String? { appState.entry(id)?.refreshToken }
    /// The device id the server gave at login.
    public var deviceId: String? { appState.entry(id)?.deviceId }
    /// The auth provider the user logged in with (`anon-user`, `local-userpass`, ...).
    public var providerType: String? { appState.entry(id)?.provider }

    /// The folder of the user's synced realm files.
    var directory: URL { appState.directory.appendingPathComponent(Self.safeName(id), isDirectory: true) }

    /// A file-name-safe spelling of a string.
    static func safeName(_ text: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let safe = String(text.map { allowed.contains($0) ? $0 : "_" })
        return safe.isEmpty || safe.hasPrefix(".") ? "u" + safe : safe
    }

    /// An access token valid for at least another minute: the cached one, or a new one
    /// from the refresh token.
    ///
    /// - Throws: ``AppError`` `.userNotLoggedIn`; `.invalidSession` when the refresh token
    ///   was revoked or expired (the user is then logged out); `.httpRequestFailed`.
    func validAccessToken() async throws -> String {
        guard let entry = appState.entry(id), entry.state == .loggedIn, let access = entry.accessToken else {
            throw AppError(.userNotLoggedIn, "User \(id) is not logged in: log in again to sync.")
        }
        if let exp = JWTClaims.expiry(of: access), exp.timeIntervalSinceNow > 60 { return access }
        return try await refreshAccessToken()
    }

    /// Gets a new access token from the refresh token.
    func refreshAccessToken() async throws -> String {
        guard let refresh = appState.entry(id)?.refreshToken else {
            throw AppError(.userNotLoggedIn, "User \(id) is not logged in: log in again to sync.")
        }
        do {
            let reply = try await appState.transport.send("POST", "/api/client/v2.0/auth/session", bearer: refresh)
            guard let access = reply.body["access_token"] as? String else {
                throw AppError(.httpRequestFailed, "The token refresh answer lacks access_token.")
            }
            try appState.updateEntry(id) { $0.accessToken = access }
            return access
        } catch let error as AppError where error.code == .invalidSession || error.code == .tokenExpired {
            try? markLoggedOut()
            throw error
        }
    }

    private func markLoggedOut() throws {
        let anonymous = appState.entry(id)?.provider == "anon-user"
        try appState.updateCache { cache in
            if anonymous {
                // An anonymous user cannot log in again: logging out removes it.
                cache.users.removeAll { $0.id == id }
            } else if let i = cache.users.firstIndex(where: { $0.id == id }) {
                cache.users[i].state = .loggedOut
                cache.users[i].accessToken = nil
                cache.users[i].refreshToken = nil
            }
            if cache.currentUserId == id { cache.currentUserId = nil }
        }
        SyncSessionRegistry.shared.stopSessions(of: self)
    }

    /// Logs the user out: revokes the refresh token on the server (when reachable),
    /// forgets the tokens and stops the user's sync sessions. Anonymous users are
    /// removed, as they cannot log in again.
    public func logOut() async throws {
        if let refresh = refreshToken {
            _ = try? await appState.transport.send("DELETE", "/api/client/v2.0/auth/session", bearer: refresh)
        }
        try markLoggedOut()
    }

    /// Logs out and calls `completion` with nil or the error.
    @preconcurrency
    public func logOut(_ completion: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await logOut(); completion(nil) } catch { completion(error) } }
    }

    /// Logs the user out and removes it and its synced realm files from the device.
    public func remove() async throws {
        try await logOut()
        try appState.updateCache { cache in
            cache.users.removeAll { $0.id == id }
            if cache.currentUserId == id { cache.currentUserId = nil }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Removes the user and calls `completion` with nil or the error.
    @preconcurrency
    public func remove(_ completion: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await remove(); completion(nil) } catch { completion(error) } }
    }

    public static func == (a: User, b: User) -> Bool { a.id == b.id && a.appState === b.appState }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "User(\(id), \(state))" }
}
