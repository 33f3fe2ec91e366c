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
    /// Seconds an HTTP connection may stay idle (no request in progress, or a request
    /// head that never completes) before the server closes it.
    public var httpIdleTimeout: Double = 60
    /// Seconds a sync WebSocket has to send its first `bind`; one that binds nothing in
    /// time gets a `connectionClosed` error and is closed.
    public var syncBindTimeout: Double = 30
    /// Seconds between the server's WebSocket pings. A connection that has not answered
    /// a ping when the next is due (a half-open or stalled peer) is closed.
    public var syncPingInterval: Double = 30
    /// Seconds the server waits for the peer's answer to its WebSocket close frame
    /// before it drops the connection.
    public var syncCloseTimeout: Double = 10
    /// TLS on the port (`--tls-cert`, `--tls-key`): HTTPS and WSS instead of HTTP and WS.
    /// Nil (the default) serves plain HTTP, for loopback or behind a TLS proxy.
    public var tls: ServerTLSConfiguration?

    /// A configuration listening on `host:port` with data in `dataDirectory`.
    public init(host: String = "127.0.0.1", port: Int = 9090, dataDirectory: URL, app: AppConfiguration? = nil) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.app = app
    }
}
