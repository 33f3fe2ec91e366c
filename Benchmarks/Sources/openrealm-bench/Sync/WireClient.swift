import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import OpenRealmWire

/// What the fan-out workload's simulated clients report, from NIO's threads.
final class FanoutRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var readyClients = 0
    private var failures: [String] = []
    private var arrivals: [UInt64] = []

    func clientReady() { lock.withLock { readyClients += 1 } }
    func clientFailed(_ reason: String) { lock.withLock { failures.append(reason) } }
    /// A download carrying changes reached a ready client at `time` (monotonic ns).
    func delivered(at time: UInt64) { lock.withLock { arrivals.append(time) } }

    var ready: Int { lock.withLock { readyClients } }
    var failed: [String] { lock.withLock { failures } }
    var arrivalCount: Int { lock.withLock { arrivals.count } }

    /// The arrival times recorded since the last call, emptied.
    func takeArrivals() -> [UInt64] {
        lock.withLock {
            defer { arrivals.removeAll(keepingCapacity: true) }
            return arrivals
        }
    }
}

/// A lean simulated sync client at the wire level: one WebSocket, one flexible-sync
/// session bound with a new file identity and one class query, then nothing but
/// receiving downloads (each arrival is reported) and answering pings. It keeps no
/// realm, so a thousand of them fit in the benchmark process.
enum WireClient {
    /// Connects one client; the channel's future completes once the TCP connection is up
    /// (the bind follows the WebSocket upgrade; readiness is reported to `recorder`).
    static func connect(host: String, port: Int, appId: String, accessToken: String, query: WireClassQuery,
                        recorder: FanoutRecorder, group: EventLoopGroup) -> EventLoopFuture<Channel> {
        let path = "/api/client/v2.0/app/\(appId)/realm-sync"
        let headers = HTTPHeaders([("Host", "\(host):\(port)"), ("Content-Length", "0")])
        let session = WireSessionSetup(appId: appId, accessToken: accessToken, query: query)
        return ClientBootstrap(group: group)
            .connectTimeout(.seconds(30))
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: (16 << 20) + 64, automaticErrorHandling: true) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                                        maxAccumulatedFrameSize: (16 << 20) + 64))
                        try sync.addHandler(WireSessionHandler(setup: session, recorder: recorder))
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHTTPClientHandlers(withClientUpgrade: (upgraders: [upgrader], completionHandler: { context in
                        context.pipeline.removeHandler(name: "openrealm-bench.upgrade", promise: nil)
                    }))
                    try sync.addHandler(UpgradeRequest(path: path, headers: headers, recorder: recorder), name: "openrealm-bench.upgrade")
                }
            }
            .connect(host: host, port: port)
    }
}

/// What a simulated client binds with.
struct WireSessionSetup: Sendable {
    let appId: String
    let accessToken: String
    let query: WireClassQuery
}

/// Sends the HTTP upgrade request once the TCP connection is up.
private final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let path: String
    let headers: HTTPHeaders
    let recorder: FanoutRecorder

    init(path: String, headers: HTTPHeaders, recorder: FanoutRecorder) {
        self.path = path
        self.headers = headers
        self.recorder = recorder
    }

    func channelActive(context: ChannelHandlerContext) {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // An HTTP answer reaching here means the upgrade was refused.
        if case .head(let head) = unwrapInboundIn(data) {
            recorder.clientFailed("the server refused the WebSocket upgrade with HTTP \(head.status.code)")
        }
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        recorder.clientFailed("upgrade: \(error)")
        context.close(promise: nil)
    }
}

/// The protocol side of a simulated client: bind, query, then downloads and pings.
private final class WireSessionHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let setup: WireSessionSetup
    let recorder: FanoutRecorder
    private let encoder = WireEncoder()
    private var ready = false
    private static let session: UInt64 = 1

    init(setup: WireSessionSetup, recorder: FanoutRecorder) {
        self.setup = setup
        self.recorder = recorder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        send(.bind(WireBind(session: Self.session, appId: setup.appId, accessToken: setup.accessToken)), context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            var bytes = frame.unmaskedData
            let received = now()
            let message: WireMessage
            do {
                message = try WireFrameDecoder.decode(frame: bytes.readBytes(length: bytes.readableBytes) ?? [])
            } catch {
                fail("a frame from the server does not decode: \(error)", context)
                return
            }
            handle(message, at: received, context)
        case .ping:
            send(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData), context)
        case .connectionClose:
            if !ready { recorder.clientFailed("the server closed the connection before the bootstrap") }
            context.close(promise: nil)
        default:
            break
        }
    }

    private func handle(_ message: WireMessage, at received: UInt64, _ context: ChannelHandlerContext) {
        switch message {
        case .ident:
            send(.query(WireQuery(session: Self.session, queryVersion: 1, queries: [setup.query])), context)
        case .download(let download):
            if !ready {
                if download.queryVersion == 1 && download.bootstrap == .lastBatch {
                    ready = true
                    recorder.clientReady()
                }
            } else if !download.changesets.isEmpty {
                recorder.delivered(at: received)
            }
        case .error(let error):
            if error.isFatal { fail("the server ended the session: \(error.message)", context) }
        case .ping(let ping):
            send(.pong(WirePong(timestamp: ping.timestamp)), context)
        default:
            break
        }
    }

    private func send(_ message: WireMessage, _ context: ChannelHandlerContext) {
        do {
            let bytes = try encoder.encode(message)
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            send(WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: buffer), context)
        } catch {
            fail("cannot encode \(message.type): \(error)", context)
        }
    }

    private func send(_ frame: WebSocketFrame, _ context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func fail(_ reason: String, _ context: ChannelHandlerContext) {
        recorder.clientFailed(reason)
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        recorder.clientFailed("connection: \(error)")
        context.close(promise: nil)
    }
}
