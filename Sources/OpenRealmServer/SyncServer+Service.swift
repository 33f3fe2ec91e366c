import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import ServiceLifecycle
import Synchronization

/// The server as a swift-service-lifecycle `Service`: ``SyncServer/run()`` serves
/// until the service group shuts down gracefully (the listeners stop accepting, open
/// connections finish) or its task is cancelled.
extension SyncServer: Service {
    /// The listeners of ``run()``: the server's own application (unless its routes are
    /// mounted in another one, ``addRoutes(to:)``) and the metrics listener (when
    /// ``ServerConfiguration/metricsPort`` is set), until graceful shutdown or
    /// cancellation. A listener that fails (its port in use, say) stops the other. Beside
    /// them, on a storage other processes share, the heartbeats of the bound client
    /// files (``recordHeartbeats()``).
    ///
    /// - Throws: ``ServerError`` naming the address that cannot be listened on.
    func serve() async throws {
        let ownPort = !listeners.isMounted
        let metricsPort = configuration.metricsPort
        try await withThrowingTaskGroup(of: Void.self) { group in
            if auth.apps.storage.topology == .shared {
                // Ends only when cancelled, below.
                group.addTask { [self] in await recordHeartbeats() }
            }
            if !ownPort && metricsPort == nil {
                // Mounted elsewhere, no port at all: hold on (the caller holds the lock) until the end.
                group.addTask { [self] in
                    do { try await gracefulShutdown() } catch is CancellationError {}
                }
            }
            if ownPort {
                group.addTask { [self] in
                    do { try await application().run() } catch {
                        throw ListenFailure.explain(error, host: configuration.host, port: configuration.port)
                    }
                }
            }
            if let metricsPort {
                let host = configuration.metricsHost ?? configuration.host
                group.addTask { [self] in
                    do { try await metricsApplication(host: host, port: metricsPort).run() } catch {
                        throw ListenFailure.explain(error, host: host, port: metricsPort, option: "--metrics-port")
                    }
                }
            }
            // The listeners end on a graceful shutdown or a cancellation; the first task to
            // end, for any reason (a failure throws here), ends the others.
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// The metrics listener: `GET /metrics` alone, on `host:port`, with the main port's
    /// idle timeout, first-request deadline and head size limit. (``HTTPRequestLimitsChannel``
    /// sits where the upgrade channel leaves NIO's HTTP parts, not in a plain HTTP/1.1
    /// pipeline; no route here reads a body.)
    func metricsApplication(host: String, port: Int) -> some ApplicationProtocol {
        let router = Router()
        MetricsRoute.add(to: router, metrics: metrics)
        let idle = TimeAmount.nanoseconds(Int64(configuration.httpIdleTimeout * 1e9))
        let limits = HTTPRequestLimits(configuration)
        let http1 = HTTP1Channel.Configuration(idleTimeout: idle, httpDecoderConfiguration: limits.decoderConfiguration)
        let box = listeners.metricsPort
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                FirstRequestDeadlineChannel(inner: HTTP1Channel(responder: responder, configuration: http1), timeout: idle)
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "openrealm-server"),
            onServerRunning: { [logger] channel in
                let port = channel.localAddress?.port ?? 0
                box.set(port)
                logger.info("openrealm-server serving metrics", metadata: ["port": "\(port)"])
            },
            logger: logger)
    }

    /// The metrics listener's port once it runs (with ``ServerConfiguration/metricsPort``
    /// 0, the free one it picked).
    ///
    /// - Throws: ``ServerError`` when the metrics have no port of their own, or it is not
    ///   listening after `timeout` seconds.
    public func waitUntilMetricsRunning(timeout: Double = 10) throws -> Int {
        guard configuration.metricsPort != nil else {
            throw ServerError("the metrics have no port of their own (metricsPort is not set): they are served on the main port")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = listeners.metricsPort.port { return port }
            listeners.metricsPort.wait(until: deadline)
        }
        throw ServerError("the metrics listener did not start within \(timeout) s")
    }
}

/// What ``SyncServer/run()`` listens on besides its own port: whether its routes are
/// mounted in another application (then it opens no port of its own), and the metrics
/// port once it listens.
final class Listeners: Sendable {
    private let mounted = Mutex(false)
    /// The metrics port, set once its listener runs.
    let metricsPort = PortBox()

    var isMounted: Bool { mounted.withLock { $0 } }

    func markMounted() {
        mounted.withLock { $0 = true }
    }
}
