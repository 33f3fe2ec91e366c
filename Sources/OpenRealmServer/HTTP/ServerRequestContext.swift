import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the server's own application: Hummingbird's WebSocket-capable
/// context plus the peer's address, which the login rate limits key on
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
}
