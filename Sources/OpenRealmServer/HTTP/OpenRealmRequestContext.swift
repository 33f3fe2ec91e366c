import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// What the server's routes need of a Hummingbird request context: the WebSocket
/// upgrade, the peer's address (the login rate limits key on it) and the connection's
/// channel (a sync connection that does not drain what it is sent is closed through
/// it: a WebSocket close frame would wait behind the unsent data).
///
/// An application that mounts the server's routes in its own router
/// (``SyncServer/addRoutes(to:)``) gives its router a context conforming to this:
///
/// ```swift
/// struct AppRequestContext: OpenRealmRequestContext {
///     var coreContext: CoreRequestContextStorage
///     let webSocket: WebSocketHandlerReference<Self>
///     let remoteAddress: SocketAddress?
///     let channel: any Channel
///
///     init(source: ApplicationRequestContextSource) {
///         coreContext = .init(source: source)
///         webSocket = .init()
///         remoteAddress = source.channel.remoteAddress
///         channel = source.channel
///     }
/// }
/// ```
public protocol OpenRealmRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    /// The connection's channel (`source.channel` at init).
    var channel: any Channel { get }
    /// The client's IP address as text, which the login rate limits key on and the logs
    /// name; by default the peer's (a context that resolves `X-Forwarded-For` from
    /// trusted proxies gives that address).
    var remoteIP: String? { get }
}

extension OpenRealmRequestContext {
    /// The remote IP address as text (`127.0.0.1`, `::1`), or nil when unknown.
    public var remoteIP: String? { remoteAddress?.ipAddress }
}

extension ServerRequestContext: OpenRealmRequestContext {}
