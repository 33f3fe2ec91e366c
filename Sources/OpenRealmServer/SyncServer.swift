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
/// let server = try SyncServer(configuration: ServerConfiguration(port: 9090, dataDirectory: dir))
/// try await server.runService()      // until SIGINT / SIGTERM
/// ```
///
/// It is a swift-service-lifecycle `Service` (SyncServer+Service.swift), so it can
/// run in a `ServiceGroup` of one's own; its routes can also be mounted in one's own
/// Hummingbird application (``addRoutes(to:)``).
///
/// In tests, ``run()`` in a task and ``waitUntilRunning(timeout:)`` for the port (with
/// `port: 0` a free one is picked); cancel the task to stop.
public final class SyncServer: Sendable {
    /// The configuration it was made with.
    public let configuration: ServerConfiguration
    let auth: AuthService
    let logger: Logger
    /// The counters served at `GET /metrics`.
    public let metrics = ServerMetrics()
    private let runningPort = PortBox()
    /// The TLS settings made of ``ServerConfiguration/tls``, checked at init; nil for plain HTTP.
    let tls: TLSConfiguration?
    /// The metrics port, and whether the routes are mounted in another application.
    let listeners = Listeners()
    /// Where sync connections' queries are evaluated (``ServerConfiguration/syncQueryConcurrency`` at once).
    let queryWork: BoundedExecutor
    /// Whether the storage lives in ``ServerConfiguration/dataDirectory`` (the embedded
    /// store), which ``run()`` then locks against other processes.
    let usesDataDirectory: Bool

    /// Prepares a server: checks the configuration, reads the TLS files, creates the data
    /// directory and the signing key.
    ///
    /// - Throws: ``ServerError`` for a port out of range, a data directory that cannot be
    ///   created or written, a signing key that cannot be created or read, or a TLS file
    ///   that cannot be used (the message names it).
    public convenience init(configuration: ServerConfiguration, logger: Logger = Logger(label: "openrealm-server")) throws {
        try self.init(configuration: configuration, logger: logger, sharing: nil)
    }

    /// A server whose apps' stores are `sharing`'s, shared with other servers in the
    /// process (``StorageTopology/shared``; tests of several engines over one store),
    /// or its own data directory's when nil.
    convenience init(configuration: ServerConfiguration, logger: Logger, sharing: SharedAppStores?) throws {
        try self.init(configuration: configuration, logger: logger, usesDataDirectory: true) {
            try DataDirectory(configuration.dataDirectory).prepareForWriting()
            return EmbeddedStorage(
                dataDirectory: configuration.dataDirectory,
                signingKeys: ConfiguredSigningKeys(source: configuration.signingKey, previous: configuration.previousSigningKeys,
                                                   dataDirectory: configuration.dataDirectory),
                sharing: sharing)
        }
    }

    /// A server over `storage` (PostgreSQL's, `OpenRealmPostgres`): the storage keeps
    /// the apps and the signing keys, so the configuration's data directory and signing
    /// key sources are not used — nothing is made, read or locked on local disk, and
    /// several processes may serve the same storage at once. The storage is the
    /// caller's to close after the server stopped.
    ///
    /// - Throws: ``ServerError`` as ``init(configuration:logger:)`` does, and the
    ///   storage's errors when its signing keys cannot be read or made.
    package convenience init(configuration: ServerConfiguration, storage: any ServerStorage,
                             logger: Logger = Logger(label: "openrealm-server")) throws {
        try self.init(configuration: configuration, logger: logger, usesDataDirectory: false) { storage }
    }

    /// Checks the configuration and reads the TLS files before `makeStorage` (so that a
    /// bad option is named before the disk or the database is touched).
    private init(configuration: ServerConfiguration, logger: Logger, usesDataDirectory: Bool,
                 makeStorage: () throws -> any ServerStorage) throws {
        self.configuration = configuration
        self.logger = logger
        self.usesDataDirectory = usesDataDirectory
        try configuration.validate()
        try configuration.app?.validate()
        tls = try configuration.tls.map { try ServerTLSSetup.load($0, logger: logger) }
        let storage = try makeStorage()
        let signingKeys = try TokenKeys(store: storage.signingKeys, logger: logger)
        let apps = AppRegistry(storage: storage, configured: configuration.app, maxDevelopmentApps: configuration.maxDevelopmentApps)
        if let app = configuration.app, !app.emailConfirmation.autoConfirm, configuration.mailer == nil {
            throw ServerError("app '\(app.appId)' confirms email addresses by mail ('auth.emailPassword.autoConfirm' false), "
                + "but the server has no mail sender: start it with --mail-command")
        }
        queryWork = BoundedExecutor.queryWork(limit: configuration.syncQueryConcurrency, metrics: metrics)
        auth = AuthService(apps: apps, signingKeys: signingKeys, hasher: PasswordHasher(rounds: configuration.passwordHashRounds),
                           mailer: configuration.mailer, logger: logger, metrics: metrics)
    }

    /// The Hummingbird application serving the routes.
    func application() -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        let box = runningPort
        // First: its middleware counts the requests of the routes added after it.
        MetricsRoute.add(to: router, metrics: metrics, serving: configuration.metricsPort == nil)
        // Then the client's address, which the routes below key on and log.
        router.add(middleware: ForwardedClientMiddleware(resolver: ForwardedClient(trustedProxies: configuration.trustedProxies)))
        let location = PublicLocation(publicURL: configuration.publicURL, host: configuration.host, secure: tls != nil)
        AuthRoutes.add(to: router, auth: auth, location: location, port: { box.port ?? 0 })
        SyncEndpoint.add(to: router, auth: auth, logger: logger, metrics: metrics, limits: SyncEndpoint.Limits(configuration),
                         queryWork: queryWork)
        let webSocketResponder = router.buildResponder()
        return Application(
            router: router,
            server: HTTPServerBuilder { [self] responder in
                let channel = httpChannel(responder: responder, webSocketResponder: webSocketResponder)
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

    /// Serves until the task is cancelled or, in a `ServiceGroup`, until it shuts down
    /// gracefully, holding the data directory's ``DataDirectoryLock`` (embedded store only:
    /// on a shared storage other processes serve beside this one): the port, and the
    /// metrics port when it has one (with the routes mounted in another application, the
    /// metrics port only).
    ///
    /// - Throws: ``ServerError`` when the data directory is in use, the configured
    ///   schema conflicts with the stored one, or an address cannot be listened on
    ///   (naming the port's owner when it is in use).
    public func run() async throws {
        let lock = usesDataDirectory ? try DataDirectoryLock(directory: configuration.dataDirectory, holder: "serve") : nil
        defer { lock?.release() }
        // A store's units block their thread (a database's round trips): not one of Swift's.
        try await BlockingWork.run { [self] in try applyConfiguredSchema() }
        try await serve()
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully: the listener
    /// closes, open connections finish, and everything acknowledged is already
    /// committed (each integration commits before it is acknowledged).
    public func runService() async throws {
        let group = ServiceGroup(configuration: .init(services: [self], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await group.run()
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
