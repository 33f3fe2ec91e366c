import Foundation

/// How an ``App`` reaches its server and where it keeps its files.
///
/// ```swift
/// let app = App(id: "todo", configuration: AppConfiguration(baseURL: "http://127.0.0.1:9090"))
/// ```
///
/// An `https://` base URL makes every call TLS: the HTTP calls and the sync WebSocket
/// (`wss://`), verified against the system's trust store or ``trustedRootCertificatesFile``.
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
    /// OpenRealm extension (the Realm SDK has no equivalent): a PEM file of root
    /// certificates trusted for `https://` and `wss://` *in place of* the system's trust
    /// store, for a server whose certificate comes from a private CA or is self-signed.
    /// It applies to both the HTTP calls (login, token refresh, ...) and the sync
    /// WebSocket. Nil (the default): the system's trust store.
    ///
    /// The server's certificate is still verified in full (chain, dates, host name); a
    /// file that cannot be read fails the HTTP calls with `AppError.httpRequestFailed`
    /// and stops sync sessions with `SyncError.tlsHandshakeFailed`, each naming the file.
    ///
    /// ```swift
    /// var configuration = AppConfiguration(baseURL: "https://sync.example.internal")
    /// configuration.trustedRootCertificatesFile = URL(fileURLWithPath: "/etc/myapp/ca.pem")
    /// ```
    public var trustedRootCertificatesFile: URL?

    /// A configuration for the server at `baseURL`.
    public init(baseURL: String? = nil, localAppName: String? = nil, localAppVersion: String? = nil,
                defaultRequestTimeoutMS: UInt = 60_000, rootDirectory: URL? = nil, trustedRootCertificatesFile: URL? = nil) {
        self.baseURL = baseURL
        self.localAppName = localAppName
        self.localAppVersion = localAppVersion
        self.defaultRequestTimeoutMS = defaultRequestTimeoutMS
        self.rootDirectory = rootDirectory
        self.trustedRootCertificatesFile = trustedRootCertificatesFile
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
