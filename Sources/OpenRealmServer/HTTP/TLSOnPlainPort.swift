import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// On a port served without TLS, answers a TLS handshake with a plain-text `400` that
/// says so, and closes.
///
/// A client given `https://` for a server started without `--tls-cert` sends a TLS
/// ClientHello; the HTTP parser would wait for a request head that never comes (until
/// the first-request deadline) and the client for a handshake answer that never comes.
/// With this answer the client fails at once and can tell the user why: its TLS library
/// reads `HTTP/1.1 400` where a TLS record should be.
struct TLSOnPlainPortChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(TLSOnPlainPortHandler())
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// The handler of ``TLSOnPlainPortChannel``: looks at the connection's first bytes only.
final class TLSOnPlainPortHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let answer = """
        HTTP/1.1 400 Bad Request\r
        Content-Type: text/plain; charset=utf-8\r
        Connection: close\r
        Content-Length: \(message.utf8.count)\r
        \r
        \(message)
        """
    static let message = "openrealm-server serves plain HTTP on this port, not TLS: use http:// and ws://, "
        + "or start the server with --tls-cert and --tls-key.\n"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        // A TLS handshake record: content type 22, then the major version 3. No HTTP
        // method starts with byte 22.
        if buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 0x16,
           buffer.readableBytes < 2 || buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self) == 0x03 {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: Self.answer))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
