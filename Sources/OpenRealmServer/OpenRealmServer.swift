import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import OpenRealmWire

/// The OpenRealm sync server as a library: HTTP auth routes and the sync WebSocket on
/// one port, over an embedded ORCore store per app.
///
/// ```swift
/// let server = try OpenRealmServer(configuration: ServerConfiguration(port: 9090, dataDirectory: dir))
/// try await server.runService()      // until SIGINT / SIGTERM
/// ```
///
/// In tests, ``run()`` in a task and ``waitUntilRunning(timeout:)`` for the port (with
/// `port: 0` a free one is picked); cancel the task to stop.
public final class OpenRealmServer: Sendable {
    /// The configuration it was made with.
    public let configuration: ServerConfiguration
    let auth: AuthService
    let logger: Logger
    /// The counters served at `GET /metrics`.
    public let metrics = ServerMetrics()
    private let runningPort = PortBox()
    /// The TLS settings made of ``ServerConfiguration/tls``, checked at init; nil for plain HTTP.
    private let tls: TLSConfiguration?

    /// Prepares a server: checks the configuration, reads the TLS files, creates the data
    /// directory and the signing key.
    ///
    /// - Throws: ``ServerError`` for a port out of range, a data directory that cannot be
    ///   created or written, a signing key that cannot be created or read, or a TLS file
    ///   that cannot be used (the message names it).
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "openrealm-server")) throws {
        self.configuration = configuration
        self.logger = logger
        try configuration.validate()
        try configuration.app?.validate()
        tls = try configuration.tls.map { try ServerTLSSetup.load($0, logger: logger) }
        try DataDirectory(configuration.dataDirectory).prepareForWriting()
        let key = try configuration.signingKey.load(dataDirectory: configuration.dataDirectory)
        let apps = AppRegistry(dataDirectory: configuration.dataDirectory, configured: configuration.app,
                               maxDevelopmentApps: configuration.maxDevelopmentApps)
        if let app = configuration.app, !app.emailConfirmation.autoConfirm, configuration.mailer == nil {
            throw ServerError("app '\(app.appId)' confirms email addresses by mail ('auth.emailPassword.autoConfirm' false), "
                + "but the server has no mail sender: start it with --mail-command")
        }
        auth = AuthService(apps: apps, signingKey: key, hasher: PasswordHasher(rounds: configuration.passwordHashRounds),
                           mailer: configuration.mailer, logger: logger, metrics: metrics)
    }

    /// The Hummingbird application serving the routes.
    func application() -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        let box = runningPort
        // First: its middleware counts the requests of the routes added after it.
        MetricsRoute.add(to: router, metrics: metrics)
        // Then the client's address, which the routes below key on and log.
        router.add(middleware: ForwardedClientMiddleware(resolver: ForwardedClient(trustedProxies: configuration.trustedProxies)))
        let location = PublicLocation(publicURL: configuration.publicURL, host: configuration.host, secure: tls != nil)
        AuthRoutes.add(to: router, auth: auth, location: location, port: { box.port ?? 0 })
        SyncEndpoint.add(to: router, auth: auth, logger: logger, metrics: metrics, limits: SyncEndpoint.Limits(configuration))
        // A frame announcing more than one protocol message's bytes is refused from its
        // header (close code 1009), before any of its payload is buffered.
        let ws = WebSocketServerConfiguration(maxFrameSize: WireLimits().maxMessageSize + WireProtocol.headerSize,
                                              autoPing: .enabled(timePeriod: Self.duration(configuration.syncPingInterval)),
                                              closeTimeout: Self.duration(configuration.syncCloseTimeout))
        let idle = TimeAmount.nanoseconds(Int64(configuration.httpIdleTimeout * 1e9))
        let limits = HTTPRequestLimits(configuration)
        let http1 = HTTP1Channel.Configuration(idleTimeout: idle, httpDecoderConfiguration: limits.decoderConfiguration)
        let webSocketResponder = router.buildResponder()
        return Application(
            router: router,
            server: HTTPServerBuilder { [tls] responder in
                let channel = FirstRequestDeadlineChannel(
                    inner: HTTPRequestLimitsChannel(
                        inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                            configuration: .init(http1: http1, ws: ws)),
                        limits: limits),
                    timeout: idle)
                // The TLS handler goes first: the deadline then covers the handshake too.
                guard let tls else { return TLSOnPlainPortChannel(inner: channel) }
                return try TLSChannel(channel, tlsConfiguration: tls)
            },
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: "openrealm-server"),
            onServerRunning: { [logger] channel in
                let port = channel.localAddress?.port ?? 0
                box.set(port)
                logger.info("openrealm-server listening", metadata: ["port": "\(port)"])
            },
            logger: logger)
    }

    private static func duration(_ seconds: Double) -> Duration { .nanoseconds(Int64(seconds * 1e9)) }

    /// Serves until the task is cancelled, holding the data directory's
    /// ``DataDirectoryLock``.
    ///
    /// - Throws: ``ServerError`` when the data directory is in use, or the address
    ///   cannot be listened on (naming the port's owner when it is in use).
    public func run() async throws {
        let lock = try DataDirectoryLock(directory: configuration.dataDirectory, holder: "serve")
        defer { lock.release() }
        do {
            try await application().run()
        } catch {
            throw ListenFailure.explain(error, host: configuration.host, port: configuration.port)
        }
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully: the listener
    /// closes, open connections finish, and everything acknowledged is already
    /// committed (each integration commits before it is acknowledged).
    public func runService() async throws {
        let lock = try DataDirectoryLock(directory: configuration.dataDirectory, holder: "serve")
        defer { lock.release() }
        let group = ServiceGroup(configuration: .init(services: [application()], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        do {
            try await group.run()
        } catch {
            throw ListenFailure.explain(error, host: configuration.host, port: configuration.port)
        }
    }

    /// The port the server listens on once it runs.
    ///
    /// - Throws: ``ServerError`` when it is not running after `timeout` seconds.
    public func waitUntilRunning(timeout: Double = 10) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = runningPort.port { return port }
            runningPort.wait(until: deadline)
        }
        throw ServerError("the server did not start listening within \(timeout) s")
    }
}

/// The listening port, set once by `onServerRunning`.
final class PortBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Int?

    var port: Int? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    func set(_ port: Int) {
        condition.lock()
        value = port
        condition.broadcast()
        condition.unlock()
    }

    func wait(until deadline: Date) {
        condition.lock()
        if value == nil { _ = condition.wait(until: deadline) }
        condition.unlock()
    }
}
