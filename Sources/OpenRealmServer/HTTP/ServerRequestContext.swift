import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the server's routes: Hummingbird's WebSocket-capable context
/// plus the peer's address, which the login rate limits key on.
struct ServerRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The connection's remote address.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }

    /// The remote IP address as text (`127.0.0.1`, `::1`), or nil when unknown.
    var remoteIP: String? { remoteAddress?.ipAddress }
}
