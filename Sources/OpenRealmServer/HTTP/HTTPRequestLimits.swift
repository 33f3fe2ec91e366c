import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// What an HTTP request may hold: the size of its head and of its body, and how long
/// its body may take (``ServerConfiguration`` has them).
struct HTTPRequestLimits: Sendable {
    /// The largest head, request line and header fields (the HTTP decoder's limit).
    var maxHeadBytes = 16 << 10
    /// The largest body.
    var maxBodyBytes = 1 << 20
    /// Seconds from the end of a head to the end of its body.
    var bodyTimeout: Double = 30

    init() {}

    init(_ configuration: ServerConfiguration) {
        maxHeadBytes = configuration.httpMaxHeadBytes
        maxBodyBytes = configuration.httpMaxBodyBytes
        bodyTimeout = configuration.httpBodyTimeout
    }

    /// The HTTP decoder's configuration: a head over ``maxHeadBytes`` is a parser error
    /// (`headerOverflow`), which ``HTTPRequestLimitsHandler`` answers with 431.
    var decoderConfiguration: HTTP1Channel.Configuration.DecoderConfiguration {
        .init(maxHeaderFieldSize: maxHeadBytes, maxHeaderListSize: maxHeadBytes)
    }
}

/// Adds ``HTTPRequestLimitsHandler`` to the server's child channels, behind the HTTP
/// decoder that the inner channel sets up.
struct HTTPRequestLimitsChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let limits: HTTPRequestLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(HTTPRequestLimitsHandler(limits: limits, logger: logger))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Holds every HTTP request to ``HTTPRequestLimits``, between the HTTP decoder and the
/// routes:
///
/// - a parse error (a head over the size limit, a malformed request line or field) is
///   answered — 431 for a head too large, 400 otherwise — and the connection closed.
///   Hummingbird leaves such a connection open: before a first request is decided (the
///   WebSocket upgrade) nothing answers it at all, and after one its answer half-closes
///   the connection and waits for the client to close the rest;
/// - a request whose `Content-Length` is over the body limit is answered 413 and the
///   connection closed, before any route sees it; a body that grows past the limit (a
///   chunked one, or longer than announced) closes the connection;
/// - a body that has not ended `bodyTimeout` seconds after its head is cut off (the
///   connection is closed), however steadily it trickles in: the idle timeout counts
///   only between requests.
///
/// Error answers are written as raw bytes from the response encoder's place in the
/// pipeline, so they need no route and no encoder state. A WebSocket upgrade removes the handler:
/// frames have limits of their own (`SyncEndpoint`).
final class HTTPRequestLimitsHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let limits: HTTPRequestLimits
    private let logger: Logger
    private var bodyBytes = 0
    private var bodyDeadline: Scheduled<Void>?
    /// An error was answered: nothing more is passed on.
    private var refused = false

    init(limits: HTTPRequestLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            bodyBytes = 0
            if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > limits.maxBodyBytes {
                refuse(context: context, status: .payloadTooLarge, code: "PayloadTooLarge",
                       "a request body of \(declared) bytes, over the limit of \(limits.maxBodyBytes)")
                return
            }
            let channel = context.channel
            let logger = self.logger
            let timeout = limits.bodyTimeout
            bodyDeadline?.cancel()
            bodyDeadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) {
                logger.info("closing an HTTP connection whose request body did not arrive in time", metadata: ["timeout": "\(timeout)"])
                channel.close(promise: nil)
            }
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            if bodyBytes > limits.maxBodyBytes {
                logger.info("closing an HTTP connection whose request body outgrew the limit", metadata: ["limit": "\(limits.maxBodyBytes)"])
                refused = true
                context.close(promise: nil)
                return
            }
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is HTTPServerUpgradeEvents {
            bodyDeadline?.cancel()
            bodyDeadline = nil
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        if case .headerOverflow = parseError {
            refuse(context: context, status: .requestHeaderFieldsTooLarge, code: "RequestHeaderFieldsTooLarge",
                   "a request head over \(limits.maxHeadBytes) bytes")
        } else {
            refuse(context: context, status: .badRequest, code: "BadRequest", "a malformed HTTP request (\(parseError))")
        }
    }

    /// Seconds a refused connection is still read (and what it sends dropped) after its
    /// answer, before it is closed.
    static let lingerSeconds: Int64 = 2

    /// Answers `status` with a JSON error naming `reason`, then closes the connection.
    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, code: String, _ reason: String) {
        refused = true
        bodyDeadline?.cancel()
        bodyDeadline = nil
        logger.info("refusing an HTTP request", metadata: ["status": "\(status.code)", "reason": "\(reason)"])
        let body = "{\"error\":\"\(reason.replacingOccurrences(of: "\"", with: "'"))\",\"error_code\":\"\(code)\"}"
        let text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nConnection: close\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let channel = context.channel
        // Written below the HTTP encoder (from its place in the pipeline), as raw bytes.
        guard let writer = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            channel.close(promise: nil)
            return
        }
        // Then only the sending side closes: closing both now would discard the answer
        // on the client when the rest of what it sends arrives (a reset). What it still
        // sends is read and dropped for at most ``lingerSeconds``.
        writer.writeAndFlush(NIOAny(channel.allocator.buffer(string: text))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(Self.lingerSeconds)) { channel.close(promise: nil) }
        }
    }
}
