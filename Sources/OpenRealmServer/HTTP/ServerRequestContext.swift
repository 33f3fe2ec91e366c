import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the server's own application: Hummingbird's WebSocket-capable
/// context plus the client's address, which the login rate limits key on
/// (``OpenRealmRequestContext``).
struct ServerRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The connection's remote address.
    let remoteAddress: SocketAddress?
    /// The connection's channel: a sync connection that does not drain what it is sent
    /// is closed through it (a WebSocket close frame would wait behind the unsent data).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// The client's address as ``ForwardedClientMiddleware`` resolved it: the peer's, or
    /// behind a trusted proxy the one `X-Forwarded-For` names.
    var clientIP: String?

    /// The client's IP address as text (`192.0.2.1`, `::1`), or nil when unknown: the
    /// resolved ``clientIP``, else the peer's.
    var remoteIP: String? { clientIP ?? remoteAddress?.ipAddress }
}
