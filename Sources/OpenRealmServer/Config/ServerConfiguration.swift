import Foundation

/// How an `openrealm-server` runs: where it listens, where it keeps its data, and the
/// app configuration (nil: development mode).
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host: String = "127.0.0.1"
    /// The port; 0 picks a free one (see ``SyncServer/start()``).
    public var port: Int = 9090
    /// The data directory: the signing key and one store per app under `apps/`.
    public var dataDirectory: URL
    /// The app configuration from `--config`; nil for development mode.
    public var app: ServerAppConfiguration?
    /// Sends confirmation and password reset mails (`--mail-command`); nil: the server
    /// sends none, and an app that does not confirm addresses automatically cannot start.
    public var mailer: (any MailSender)?
    /// Where the token signing key comes from (default: `signing.key` in the data
    /// directory, made on the first start).
    public var signingKey: SigningKeySource = .dataDirectory
    /// Keys a rotation retired (`--previous-signing-key-file`): they no longer sign, but
    /// the tokens they signed stay valid until they expire. With the key in the data
    /// directory, `signing.key.previous` (left by `openrealm-server rotate-signing-key`)
    /// is one too.
    public var previousSigningKeys: [SigningKeySource] = []
    /// Development mode (no ``app``) listens on a loopback address only, unless this is
    /// set (`--allow-remote-development`): its apps take any schema from any client.
    public var allowRemoteDevelopment = false
    /// Development mode's most apps (`--max-development-apps`); a new app id past it is
    /// `AppNotFound`.
    public var maxDevelopmentApps = 20
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
    /// The most decoded bytes of frames a sync connection may have read and not handled
    /// yet; past that its socket is not read until its handler catches up.
    public var syncInboundQueueBytes: Int = 32 << 20
    /// The most encoded bytes waiting to be sent to one sync connection; a connection
    /// that lets more pile up (it does not read) gets a `connectionClosed` error and is
    /// closed. A bootstrap is streamed under it, one batch at a time.
    public var syncMaxOutboundBytes: Int = 64 << 20
    /// Seconds within which every frame queued for a sync connection must be written to
    /// its socket; a connection that does not drain its queue in time is closed,
    /// whether or not it answers pings.
    public var syncDrainTimeout: Double = 60
    /// The query bytes (class names and RQL texts, at least 16 KiB per query message) a
    /// sync connection may send at once before its queries wait for its budget.
    public var syncQueryBudgetBytes: Int = 1 << 20
    /// The query bytes per second a sync connection's budget refills by.
    public var syncQueryBytesPerSecond: Int = 256 << 10
    /// Query evaluations (a `query` message's validation, view and bootstrap) that run
    /// at once, server-wide (`--sync-query-concurrency`); the others wait their turn, in
    /// arrival order, holding no thread. Default: the cores, at least 2.
    public var syncQueryConcurrency: Int = BoundedExecutor.defaultQueryConcurrency
    /// Sessions one sync connection may have bound at once (`--sync-max-sessions`); a
    /// bind past it is refused (`limitsExceeded`) and the connection goes on.
    public var syncMaxSessionsPerConnection = 64
    /// The largest HTTP request head (request line and header fields); a larger one is
    /// answered 431 and the connection closed.
    public var httpMaxHeadBytes: Int = 16 << 10
    /// The largest HTTP request body; a request declaring a larger one is answered 413
    /// and the connection closed, and one sending more is closed.
    public var httpMaxBodyBytes: Int = 1 << 20
    /// Seconds a request's body may take to arrive, from the end of its head; a body
    /// still incomplete then is cut off (the connection is closed).
    public var httpBodyTimeout: Double = 30
    /// TLS on the port (`--tls-cert`, `--tls-key`): HTTPS and WSS instead of HTTP and WS.
    /// Nil (the default) serves plain HTTP, for loopback or behind a TLS proxy.
    public var tls: ServerTLSConfiguration?
    /// A port of its own for `GET /metrics` (`--metrics-port`; 0 picks a free one): when
    /// set, the metrics are served there only, by a second small HTTP listener, and the
    /// main port answers `/metrics` with 404. Nil (the default): on the main port.
    public var metricsPort: Int?
    /// The address the metrics port listens on (`--metrics-host`); nil: ``host``.
    public var metricsHost: String?
    /// The URL clients reach the server at behind a reverse proxy (`--public-url
    /// https://sync.example.com`): what `/location` answers (`https` → `wss`). Nil: the
    /// address the server listens on. Scheme `http` or `https`, a host, an optional port,
    /// no path.
    public var publicURL: URL?
    /// The networks of the reverse proxies in front of the server (`--trusted-proxy`):
    /// only from a peer in one of them is `X-Forwarded-For` believed, for the login rate
    /// limits and the logs (``ForwardedClient``). Empty: the TCP peer is the client.
    public var trustedProxies: [IPNetwork] = []

    /// A configuration listening on `host:port` with data in `dataDirectory`.
    public init(host: String = "127.0.0.1", port: Int = 9090, dataDirectory: URL, app: ServerAppConfiguration? = nil) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.app = app
    }
}
