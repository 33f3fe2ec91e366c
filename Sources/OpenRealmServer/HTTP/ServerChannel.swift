import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import OpenRealmWire

extension SyncServer {
    /// The HTTP server of an application that serves the routes: HTTP/1.1 with the
    /// WebSocket upgrade to the sync endpoint, held to the configuration's HTTP limits
    /// (``ServerConfiguration/httpIdleTimeout``, head and body sizes, the body deadline)
    /// and WebSocket settings (frame size, pings, close timeout).
    ///
    /// An application that mounts the routes in its own router (``addRoutes(to:)``)
    /// passes this as its `server:`, with that router as `webSocketRouter`: the upgrade
    /// request is routed through it to find the sync endpoint.
    ///
    /// ```swift
    /// let app = Application(router: router, server: server.httpServer(webSocketRouter: router),
    ///                       configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
    /// ```
    ///
    /// Wrap it in HummingbirdTLS's `.tls(_:tlsConfiguration:)` to serve it over TLS.
    public func httpServer<Context: OpenRealmRequestContext>(webSocketRouter: Router<Context>) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { [self] responder in
            httpChannel(responder: responder, webSocketResponder: webSocketResponder)
        }
    }

    /// One connection's channel: the first-request deadline, the request limits, and
    /// HTTP/1.1 with the WebSocket upgrade routed by `webSocketResponder`.
    func httpChannel<WebSocketResponder: HTTPResponder>(
        responder: @escaping HTTPChannelHandler.Responder, webSocketResponder: WebSocketResponder
    ) -> some ServerChildChannel where WebSocketResponder.Context: WebSocketRequestContext {
        // A frame announcing more than one protocol message's bytes is refused from its
        // header (close code 1009), before any of its payload is buffered.
        let ws = WebSocketServerConfiguration(maxFrameSize: WireLimits().maxMessageSize + WireProtocol.headerSize,
                                              autoPing: .enabled(timePeriod: Self.duration(configuration.syncPingInterval)),
                                              closeTimeout: Self.duration(configuration.syncCloseTimeout))
        let idle = TimeAmount.nanoseconds(Int64(configuration.httpIdleTimeout * 1e9))
        let limits = HTTPRequestLimits(configuration)
        let http1 = HTTP1Channel.Configuration(idleTimeout: idle, httpDecoderConfiguration: limits.decoderConfiguration)
        return FirstRequestDeadlineChannel(
            inner: HTTPRequestLimitsChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                    configuration: .init(http1: http1, ws: ws)),
                limits: limits),
            timeout: idle)
    }

    static func duration(_ seconds: Double) -> Duration { .nanoseconds(Int64(seconds * 1e9)) }
}
