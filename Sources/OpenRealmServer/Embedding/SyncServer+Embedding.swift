import Foundation
import Hummingbird
import HummingbirdWebSocket

/// Serving the sync server's routes from an application of one's own.
///
/// ```swift
/// let server = try SyncServer(configuration: ServerConfiguration(dataDirectory: dir))
/// let router = Router(context: AppRequestContext.self)   // an OpenRealmRequestContext
/// router.get("/hello") { _, _ in "hello" }
/// server.addRoutes(to: router)
/// let app = Application(router: router, server: server.httpServer(webSocketRouter: router),
///                       configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
/// // The server first: a group shuts its services down in reverse order.
/// try await ServiceGroup(configuration: .init(services: [server, app], gracefulShutdownSignals: [.sigterm],
///                                             logger: logger)).run()
/// ```
///
/// The server stays a `Service` of the group: with its routes mounted elsewhere its
/// ``SyncServer/run()`` opens no port of its own, but holds the data directory's
/// lock (a second server on the same directory is refused) and serves the metrics port
/// when ``ServerConfiguration/metricsPort`` is set, until the group shuts down.
extension SyncServer {
    /// Adds the server's routes to `router`, an application's own: the auth routes
    /// (`/api/client/v2.0/...`), `/health`, `/metrics` (unless the metrics have a port
    /// of their own) and the sync WebSocket endpoint (`.../realm-sync`), in a group
    /// whose middleware counts and times their requests (`openrealm_http_*`); the
    /// router's other routes are left alone.
    ///
    /// The WebSocket upgrade needs the application's server to be
    /// ``httpServer(webSocketRouter:)`` (or Hummingbird's `.http1WebSocketUpgrade`
    /// given the same router). `/location` answers ``ServerConfiguration/host`` and
    /// ``ServerConfiguration/port``: set them to the application's public address.
    ///
    /// Call it before ``run()``, at most once per router.
    public func addRoutes<Context: OpenRealmRequestContext>(to router: Router<Context>) {
        listeners.markMounted()
        let group = router.group()
        MetricsRoute.add(to: group, metrics: metrics, serving: configuration.metricsPort == nil)
        let port = configuration.port
        let location = PublicLocation(publicURL: configuration.publicURL, host: configuration.host, secure: tls != nil)
        AuthRoutes.add(to: group, auth: auth, location: location, port: { port })
        SyncEndpoint.add(to: group, auth: auth, logger: logger, metrics: metrics, limits: SyncEndpoint.Limits(configuration),
                         queryWork: queryWork)
    }
}
