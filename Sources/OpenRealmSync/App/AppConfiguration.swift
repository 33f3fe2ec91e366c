import Foundation

/// How an ``App`` reaches its server and where it keeps its files.
///
/// ```swift
/// let app = App(id: "todo", configuration: AppConfiguration(baseURL: "http://127.0.0.1:9090"))
/// ```
public struct AppConfiguration: Sendable, Equatable {
    /// The server's base URL (`http://host:port`), without a trailing path. Nil: the
    /// environment variable `OPENREALM_BASE_URL`, else `http://localhost:9090`.
    public var baseURL: String?
    /// Accepted for compatibility with the Realm SDK; not sent anywhere.
    public var localAppName: String?
    /// Accepted for compatibility with the Realm SDK; not sent anywhere.
    public var localAppVersion: String?
    /// The deadline of one HTTP request (login, token refresh, ...), in milliseconds,
    /// default 60 000: past it the request is cancelled and fails with
    /// `AppError.httpRequestFailed`, however much of the answer has arrived.
    public var defaultRequestTimeoutMS: UInt
    /// The directory under which the app keeps its user cache and its users' synced
    /// realm files (`<rootDirectory>/<app id>/...`). Nil: `openrealm-sync` in the
    /// current directory, or the directory named by `OPENREALM_SYNC_DIR`.
    public var rootDirectory: URL?

    /// A configuration for the server at `baseURL`.
    public init(baseURL: String? = nil, localAppName: String? = nil, localAppVersion: String? = nil,
                defaultRequestTimeoutMS: UInt = 60_000, rootDirectory: URL? = nil) {
        self.baseURL = baseURL
        self.localAppName = localAppName
        self.localAppVersion = localAppVersion
        self.defaultRequestTimeoutMS = defaultRequestTimeoutMS
        self.rootDirectory = rootDirectory
    }

    /// The base URL in effect: the configured one, the environment's, or the default.
    var resolvedBaseURL: String {
        var url = baseURL ?? ProcessInfo.processInfo.environment["OPENREALM_BASE_URL"] ?? "http://localhost:9090"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// The root directory in effect.
    var resolvedRootDirectory: URL {
        if let rootDirectory { return rootDirectory }
        if let dir = ProcessInfo.processInfo.environment["OPENREALM_SYNC_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            .appendingPathComponent("openrealm-sync", isDirectory: true)
    }
}
