import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Closes a connection whose first request head has not arrived within a deadline.
///
/// Hummingbird's own idle timeout starts only once a first request head was parsed (it
/// is installed after the WebSocket upgrade decision), so a peer that connects and
/// sends nothing, or trickles an endless head, would hold its connection forever. This
/// wraps the server's child channel: the deadline runs from accept until the first
/// `\r\n\r\n`, then this handler leaves the pipeline; Hummingbird's idle timeout takes
/// over between requests, and WebSocket pings after an upgrade.
struct FirstRequestDeadlineChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let timeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let timeout = self.timeout
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(FirstRequestDeadlineHandler(timeout: timeout))
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// The handler of ``FirstRequestDeadlineChannel``: passes bytes on unchanged, watching
/// for the end of the first request head.
final class FirstRequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// The last three bytes seen, for a `\r\n\r\n` split across reads.
    private var tail: [UInt8] = []
    private var done = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !done {
            let buffer = unwrapInboundIn(data)
            var window = tail
            window.append(contentsOf: buffer.readableBytesView)
            if Self.containsHeadEnd(window) {
                done = true
                deadline?.cancel()
                deadline = nil
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            tail = Array(window.suffix(3))
        }
        context.fireChannelRead(data)
    }

    private static func containsHeadEnd(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return true
        }
        return false
    }
}
