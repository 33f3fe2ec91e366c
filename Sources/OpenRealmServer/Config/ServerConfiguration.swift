import Foundation

/// How an `openrealm-server` runs: where it listens, where it keeps its data, and the
/// app configuration (nil: development mode).
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host: String = "127.0.0.1"
    /// The port; 0 picks a free one (see ``OpenRealmServer/start()``).
    public var port: Int = 9090
    /// The data directory: the signing key and one store per app under `apps/`.
    public var dataDirectory: URL
    /// The app configuration from `--config`; nil for development mode.
    public var app: AppConfiguration?
    /// scrypt's N for new password hashes (a power of two). Lower it only for tests.
    public var passwordHashRounds: Int = 16384

    /// A configuration listening on `host:port` with data in `dataDirectory`.
    public init(host: String = "127.0.0.1", port: Int = 9090, dataDirectory: URL, app: AppConfiguration? = nil) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.app = app
    }
}
