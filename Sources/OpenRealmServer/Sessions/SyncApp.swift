import Foundation
import OpenRealmWire

/// One app the server serves: its configuration, its store and its bound sessions.
///
/// ``sessions`` is guarded by the store's lock (``AppStore/lock``), the same lock that
/// serializes integration and fan-out, so that every session sees changes in server
/// version order.
final class SyncApp: @unchecked Sendable {
    let configuration: AppConfiguration
    let store: AppStore
    /// The read and write rules, checked.
    let rules: AppRules
    /// The bound sessions (guarded by `store.lock`).
    var sessions: [ObjectIdentifier: SyncSession] = [:]
    /// The login attempts' token buckets.
    let loginLimiter = LoginRateLimiter()

    init(configuration: AppConfiguration, store: AppStore) throws {
        self.configuration = configuration
        self.store = store
        self.rules = try AppRules(configuration)
    }
}

/// The apps of a server, opened on first use from `<data dir>/apps/<app id>/`.
final class AppRegistry: @unchecked Sendable {
    let dataDirectory: URL
    /// The configured app, or nil in development mode (any app id).
    let configured: AppConfiguration?
    private let lock = NSLock()
    private var apps: [String: SyncApp] = [:]

    init(dataDirectory: URL, configured: AppConfiguration?) {
        self.dataDirectory = dataDirectory
        self.configured = configured
    }

    /// Whether `id` can name an app (it becomes a directory name).
    static func isValidAppId(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), !id.hasPrefix(".") else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    /// The app `id`, opening its store on first use.
    ///
    /// - Throws: ``AuthError`` `BadRequest` for an id that cannot name an app,
    ///   `AppNotFound` for an id other than the configured one, `InternalServerError`
    ///   when the store cannot be opened.
    func app(_ id: String) throws(AuthError) -> SyncApp {
        guard Self.isValidAppId(id) else {
            throw .badRequest("app id \"\(id)\" must be 1–64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        if let configured, configured.appId != id { throw .appNotFound(id) }
        lock.lock()
        defer { lock.unlock() }
        if let app = apps[id] { return app }
        do {
            let directory = dataDirectory.appendingPathComponent("apps").appendingPathComponent(id)
            let store = try AppStore(appId: id, directory: directory)
            let app = try SyncApp(configuration: configured ?? .development(appId: id), store: store)
            apps[id] = app
            return app
        } catch {
            throw .internalError("cannot open the store of app '\(id)': \(error)")
        }
    }

    /// Every app opened so far.
    var openApps: [SyncApp] {
        lock.lock()
        defer { lock.unlock() }
        return Array(apps.values)
    }
}
