import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket client to the sync endpoint for the simulated clients of `load`: binary
/// messages in and out over swift-nio, events reported on the channel's event loop.
final class LoadSocket: @unchecked Sendable {
    /// What the socket reports.
    enum Event {
        case opened
        case message([UInt8])
        case closed(String)
    }

    private let lock = NSLock()
    private var channel: Channel?
    private var upgraded = false
    private var reportedClose = false
    private let onEvent: @Sendable (Event) -> Void

    init(onEvent: @escaping @Sendable (Event) -> Void) {
        self.onEvent = onEvent
    }

    /// Connects to `127.0.0.1:port` and upgrades `path` to a WebSocket.
    func connect(port: Int, path: String, group: EventLoopGroup) {
        let owner = self
        let headers = HTTPHeaders([("Host", "127.0.0.1:\(port)"), ("Content-Length", "0")])
        ClientBootstrap(group: group)
            .connectTimeout(.seconds(30))
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: (16 << 20) + 64, automaticErrorHandling: true) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                                        maxAccumulatedFrameSize: (16 << 20) + 64))
                        try sync.addHandler(LoadFrameHandler(owner: owner))
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHTTPClientHandlers(withClientUpgrade: (upgraders: [upgrader], completionHandler: { context in
                        context.pipeline.removeHandler(name: "load.upgrade-request", promise: nil)
                    }))
                    try sync.addHandler(LoadUpgradeRequest(path: path, headers: headers, owner: owner), name: "load.upgrade-request")
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    owner.lock.withLock { owner.channel = channel }
                    channel.closeFuture.whenComplete { _ in owner.report(.closed("the connection closed")) }
                case .failure(let error):
                    owner.report(.closed("cannot connect: \(error)"))
                }
            }
    }

    fileprivate func didUpgrade() {
        lock.withLock { upgraded = true }
        onEvent(.opened)
    }

    fileprivate func report(_ event: Event) {
        if case .closed = event {
            let first = lock.withLock { () -> Bool in
                defer { reportedClose = true }
                return !reportedClose
            }
            guard first else { return }
        }
        onEvent(event)
    }

    /// Sends one binary message.
    func send(_ bytes: [UInt8]) {
        guard let channel = lock.withLock({ upgraded ? channel : nil }) else { return }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: buffer), promise: nil)
    }

    /// Closes the connection without reporting it.
    func close() {
        let channel = lock.withLock { () -> Channel? in
            reportedClose = true
            return self.channel
        }
        channel?.close(promise: nil)
    }
}

/// Sends the upgrade request once connected; an HTTP answer here is a refusal.
private final class LoadUpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let path: String
    let headers: HTTPHeaders
    let owner: LoadSocket

    init(path: String, headers: HTTPHeaders, owner: LoadSocket) {
        self.path = path
        self.headers = headers
        self.owner = owner
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            owner.report(.closed("the server refused the WebSocket upgrade with HTTP \(head.status.code)"))
        }
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        owner.report(.closed("\(error)"))
        context.close(promise: nil)
    }
}

/// Reads WebSocket frames after the upgrade.
private final class LoadFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let owner: LoadSocket

    init(owner: LoadSocket) { self.owner = owner }

    func handlerAdded(context: ChannelHandlerContext) { owner.didUpgrade() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            var data = frame.unmaskedData
            owner.report(.message(data.readBytes(length: data.readableBytes) ?? []))
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        owner.report(.closed("\(error)"))
        context.close(promise: nil)
    }
}
