import Foundation
import Synchronization

/// The one shared state of an app id in this process: its configuration, its users and
/// the cache file behind them. Every ``App`` made for the id is a handle on it.
final class AppState: Sendable {
    let id: String
    let syncManager = SyncManager()
    private struct Inner {
        var configuration: AppConfiguration
        var cache: UserCache
        var users: [String: User] = [:]
        var syncTransport: any SyncTransport = WebSocketTransport()
    }
    private let inner: Mutex<Inner>

    private static let registry = Mutex<[String: AppState]>([:])

    /// The state of app `id`, made (and its user cache read) on first use. An explicit
    /// configuration replaces the one in effect.
    static func shared(id: String, configuration: AppConfiguration?) -> AppState {
        registry.withLock { table in
            if let existing = table[id] {
                if let configuration { existing.inner.withLock { $0.configuration = configuration } }
                return existing
            }
            let state = AppState(id: id, configuration: configuration ?? AppConfiguration())
            table[id] = state
            return state
        }
    }

    /// Drops the state of app `id`, so that the next `App(id:)` reads the user cache
    /// again as a new process would (for tests).
    static func forget(id: String) {
        _ = registry.withLock { $0.removeValue(forKey: id) }
    }

    private init(id: String, configuration: AppConfiguration) {
        self.id = id
        let directory = Self.directory(configuration, id)
        inner = Mutex(Inner(configuration: configuration, cache: UserCache.load(from: directory.appendingPathComponent("users.json"))))
    }

    private static func directory(_ configuration: AppConfiguration, _ id: String) -> URL {
        configuration.resolvedRootDirectory.appendingPathComponent(id, isDirectory: true)
    }

    var configuration: AppConfiguration { inner.withLock { $0.configuration } }

    /// How the app's sync sessions reach the server: a WebSocket each
    /// (``WebSocketTransport``); tests give an ``InMemorySyncTransport`` before a session
    /// starts, and play the server.
    var syncTransport: any SyncTransport {
        get { inner.withLock { $0.syncTransport } }
        set { inner.withLock { $0.syncTransport = newValue } }
    }

    /// `<root>/<app id>/`: the user cache and one folder per user.
    var directory: URL { Self.directory(configuration, id) }

    var transport: AppTransport {
        let configuration = self.configuration
        return AppTransport(baseURL: configuration.resolvedBaseURL, timeout: TimeInterval(configuration.defaultRequestTimeoutMS) / 1000,
                            trustedRoots: configuration.trustedRootCertificatesFile, trust: configuration.trustDescription)
    }

    // MARK: Users

    /// The handle of user `id` (one per id).
    func user(_ id: String) -> User {
        inner.withLock { s in
            if let u = s.users[id] { return u }
            let u = User(id: id, app: self)
            s.users[id] = u
            return u
        }
    }

    func entry(_ id: String) -> UserCache.Entry? {
        inner.withLock { $0.cache.users.first { $0.id == id } }
    }

    /// Changes the cache and writes it out.
    func updateCache(_ change: (inout UserCache) -> Void) throws {
        let (cache, url) = inner.withLock { s -> (UserCache, URL) in
            change(&s.cache)
            return (s.cache, Self.directory(s.configuration, id).appendingPathComponent("users.json"))
        }
        try cache.save(to: url)
    }

    func updateEntry(_ id: String, _ change: (inout UserCache.Entry) -> Void) throws {
        try updateCache { cache in
            if let i = cache.users.firstIndex(where: { $0.id == id }) { change(&cache.users[i]) }
        }
    }

    var currentUserId: String? {
        inner.withLock { s in
            guard let id = s.cache.currentUserId, s.cache.users.contains(where: { $0.id == id && $0.state == .loggedIn }) else {
                return s.cache.users.filter { $0.state == .loggedIn }.max { $0.loggedInAt < $1.loggedInAt }?.id
            }
            return id
        }
    }

    var allUserIds: [String] { inner.withLock { $0.cache.users.map(\.id) } }

    /// Records a login: the user's tokens, and the user as the current one.
    func recordLogin(id: String, provider: String, accessToken: String, refreshToken: String, deviceId: String?, email: String?) throws -> User {
        try updateCache { cache in
            var entry = cache.users.first { $0.id == id }
                ?? UserCache.Entry(id: id, provider: provider, state: .loggedIn, loggedInAt: 0)
            entry.accessToken = accessToken
            entry.refreshToken = refreshToken
            entry.deviceId = deviceId
            entry.email = email ?? entry.email
            entry.state = .loggedIn
            entry.loggedInAt = Date().timeIntervalSince1970
            cache.users.removeAll { $0.id == id }
            cache.users.append(entry)
            cache.currentUserId = id
        }
        return user(id)
    }
}
