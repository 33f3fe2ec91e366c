import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// One WebSocket to the sync endpoint, over swift-nio: binary messages in and out; over
/// TLS for a `wss://` URL (``TLSClientHandlers``), where a failed handshake is reported
/// as ``Event/tlsFailed(_:)`` with its reason rather than as a closed connection, and an
/// HTTP answer in place of the upgrade as ``Event/upgradeRefused(_:)``.
///
/// Events are reported through the closures given at creation, on a NIO event loop
/// thread; the owner hops to its own queue. `send` and `close` may be called from any
/// thread.
///
/// Public as SPI (`@_spi(SyncTransport) import OpenRealmSync`) for the tools that speak
/// the protocol themselves over the client's own socket: `openrealm-chaos`'s simulated
/// clients and the benchmark package's (a package of its own, which cannot see
/// `package` declarations). Not part of the SDK's API.
@_spi(SyncTransport) public final class WebSocketConnection: SyncTransportConnection, @unchecked Sendable {
    public typealias Event = SyncTransportEvent
    public typealias TLS = SyncTransportTLS

    private let url: URL
    private let tls: TLS?
    private let onEvent: @Sendable (Event) -> Void
    private let lock = NSLock()
    private var channel: Channel?
    private var closed = false
    /// Whether the pipeline speaks WebSocket yet: frames must not be written before,
    /// when the HTTP encoder would get them.
    private var upgraded = false

    fileprivate func markUpgraded() { lock.withLock { upgraded = true } }

    static let requestHandlerName = "openrealm.upgrade-request"

    /// The largest message accepted (the protocol's 16 MiB body limit plus its header).
    static let maxMessageSize = (16 << 20) + 64

    /// A connection to `url`; `tls` is required for a `wss://` URL and unused otherwise.
    public init(url: URL, tls: TLS?, onEvent: @escaping @Sendable (Event) -> Void) {
        self.url = url
        self.tls = url.scheme == "wss" ? tls : nil
        self.onEvent = onEvent
    }

    /// Connects; reports `.opened` once the upgrade succeeded, `.closed` on failure.
    public func connect() { connect(timeout: 10) }

    /// Connects within `timeout` seconds (TCP and TLS).
    public func connect(timeout: TimeInterval) {
        guard let host = url.host else {
            onEvent(.closed("the sync URL '\(url)' has no host"))
            return
        }
        if url.scheme == "wss" && tls == nil {
            onEvent(.closed("no TLS context for the wss:// URL '\(url)'"))
            return
        }
        let port = url.port ?? (url.scheme == "wss" ? 443 : 80)
        let tls = self.tls
        let observer = TLSHandshakeObserver()
        let base = url.path.isEmpty ? "/" : url.path
        let path = url.query.map { base + "?" + $0 } ?? base
        let onEvent = self.onEvent
        let owner = self
        let requestHeaders = HTTPHeaders([("Host", "\(host):\(port)"), ("Content-Length", "0")])
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                // The channel is recorded here, on its event loop, before it can connect:
                // `.opened` (and the bind the owner writes in answer) may otherwise come
                // before the connect future's callback, and `send` would drop the bind.
                let alreadyClosed = owner.lock.withLock { () -> Bool in
                    owner.channel = channel
                    return owner.closed
                }
                if alreadyClosed { return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: Self.maxMessageSize, automaticErrorHandling: true) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                                        maxAccumulatedFrameSize: Self.maxMessageSize))
                        try sync.addHandler(FrameHandler(onEvent: onEvent, owner: owner))
                    }
                }
                let request = UpgradeRequestHandler(path: path, headers: requestHeaders, server: "\(host):\(port)", owner: owner)
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try TLSClientHandlers.add(to: sync, context: tls.context, host: host, observer: observer) }
                    // Once upgraded, the request handler leaves so that frames reach the WebSocket handlers.
                    try sync.addHTTPClientHandlers(withClientUpgrade: (upgraders: [upgrader], completionHandler: { context in
                        context.pipeline.removeHandler(name: Self.requestHandlerName, promise: nil)
                    }))
                    try sync.addHandler(request, name: Self.requestHandlerName)
                }
            }
        bootstrap.connect(host: host, port: port).whenComplete { result in
            switch result {
            case .success(let channel):
                let alreadyClosed = owner.lock.withLock { () -> Bool in
                    owner.channel = channel
                    return owner.closed
                }
                if alreadyClosed { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in
                    guard let tls else { return owner.didClose(nil) }
                    TLSFailure.classify(observer, host: host, port: port, trust: tls.trust, on: channel.eventLoop).whenSuccess { failure in
                        if let failure { owner.report(.tlsFailed(failure)) } else { owner.didClose(nil) }
                    }
                }
            case .failure(let error):
                owner.didClose("cannot connect to \(host):\(port): \(error)")
            }
        }
    }

    private var reportedClose = false

    fileprivate func didClose(_ reason: String?) {
        report(.closed(reason))
    }

    /// Reports the end of the connection, once.
    fileprivate func report(_ end: Event) {
        let first = lock.withLock { () -> Bool in
            closed = true
            defer { reportedClose = true }
            return !reportedClose
        }
        if first { onEvent(end) }
    }

    /// Sends one binary message; false when the connection is closed or not upgraded yet
    /// (the message is then not sent).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard let channel = lock.withLock({ closed || !upgraded ? nil : channel }) else { return false }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: buffer)
        channel.writeAndFlush(frame, promise: nil)
        return true
    }

    /// Closes the connection (reported as `.closed`).
    public func close() {
        let (channel, upgraded) = lock.withLock { () -> (Channel?, Bool) in
            closed = true
            return (self.channel, self.upgraded)
        }
        if let channel, !upgraded {
            channel.close(promise: nil)
        } else if let channel {
            var buffer = channel.allocator.buffer(capacity: 2)
            buffer.write(webSocketErrorCode: .normalClosure)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: buffer)
            channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
        } else {
            didClose(nil)
        }
    }
}

/// Sends the upgrade request once the TCP connection is up. An HTTP answer reaching it
/// means the upgrade was refused: it gathers the answer (the head and up to
/// ``UpgradeRefusal/maxBodyBytes`` of the body) and reports it as
/// ``WebSocketConnection/Event/upgradeRefused(_:)``.
private final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let path: String
    let headers: HTTPHeaders
    let server: String
    weak var owner: WebSocketConnection?
    private var answer: HTTPResponseHead?
    private var body: [UInt8] = []

    init(path: String, headers: HTTPHeaders, server: String, owner: WebSocketConnection) {
        self.path = path
        self.headers = headers
        self.server = server
        self.owner = owner
    }

    func channelActive(context: ChannelHandlerContext) {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            answer = head
        case .body(var buffer):
            let room = UpgradeRefusal.maxBodyBytes - body.count
            if room > 0 { body += buffer.readBytes(length: min(room, buffer.readableBytes)) ?? [] }
        case .end:
            reportRefusal()
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        reportRefusal()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    /// Reports the answer gathered so far, once (a body cut short still tells the status).
    private func reportRefusal() {
        guard let head = answer else { return }
        answer = nil
        owner?.report(.upgradeRefused(UpgradeRefusal(
            server: server, status: Int(head.status.code), reasonPhrase: head.status.reasonPhrase,
            location: head.headers.first(name: "Location"), contentType: head.headers.first(name: "Content-Type"), body: body)))
    }
}

/// Reads WebSocket frames after the upgrade.
private final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let onEvent: @Sendable (WebSocketConnection.Event) -> Void
    weak var owner: WebSocketConnection?

    init(onEvent: @escaping @Sendable (WebSocketConnection.Event) -> Void, owner: WebSocketConnection) {
        self.onEvent = onEvent
        self.owner = owner
    }

    func handlerAdded(context: ChannelHandlerContext) {
        owner?.markUpgraded()
        onEvent(.opened)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            var data = frame.unmaskedData
            onEvent(.message(data.readBytes(length: data.readableBytes) ?? []))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
