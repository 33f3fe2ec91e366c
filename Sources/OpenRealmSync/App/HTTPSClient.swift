import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request over TLS through swift-nio and NIOSSL: the app's calls to an
/// `https://` server.
///
/// URLSession on Linux verifies TLS through libcurl with its own CA lookup and no way to
/// trust a given root per session; this client verifies with the same ``TLSTrust``
/// context as the sync WebSocket, so login and sync always agree on which servers they
/// trust, and a certificate that does not verify is reported with its reason
/// (``TLSFailure``). Each request opens its own connection (`Connection: close`): the
/// app's calls are few (login, token refresh, API keys).
enum HTTPSClient {
    /// The answer of a request.
    struct Answer: Sendable {
        var status: Int
        /// Header fields, names lowercased.
        var headers: [String: String]
        var body: Data
    }

    /// The largest answer body accepted; the app's calls answer a few kilobytes.
    static let maxBodySize = 4 << 20

    /// Sends one request to `url` (an `https://` URL) and returns the whole answer.
    ///
    /// - Throws: ``TLSFailure`` when the handshake fails; ``HTTPSClient/Failure`` when the
    ///   server cannot be reached, closes early, answers more than ``maxBodySize``, or
    ///   the answer is not complete within `timeout` seconds.
    static func send(method: String, url: URL, headers: [(String, String)], body: Data?, timeout: TimeInterval,
                     tls: NIOSSLContext, trust: String) async throws -> Answer {
        guard let host = url.host else { throw Failure(message: "the URL '\(url)' has no host") }
        let port = url.port ?? 443
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path)
        let hostField = host.contains(":") ? "[\(host)]" : host
        head.headers.add(name: "Host", value: url.port.map { "\(hostField):\($0)" } ?? hostField)
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
        for (name, value) in headers { head.headers.add(name: name, value: value) }

        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = eventLoop.makePromise(of: Answer.self)
        let observer = TLSHandshakeObserver()
        let collector = AnswerCollector(promise: promise)
        let deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) {
            collector.fail(Failure(message: "no complete answer within \(timeout) seconds (AppConfiguration.defaultRequestTimeoutMS)"))
        }
        let requestBody = body
        ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(timeout * 1e9)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try TLSClientHandlers.add(to: sync, context: tls, host: host, observer: observer)
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(AnswerHandler(collector: collector, head: head, body: requestBody))
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    collector.fail(Failure(message: "cannot connect to \(host):\(port): \(error)"))
                case .success(let channel):
                    promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                    channel.closeFuture.whenComplete { _ in
                        TLSFailure.classify(observer, host: host, port: port, trust: trust, on: eventLoop).whenSuccess { failure in
                            if let failure { collector.fail(failure) }
                            collector.fail(Failure(message: "\(host):\(port) closed the connection before a complete answer"))
                        }
                    }
                }
            }
        defer { deadline.cancel() }
        return try await promise.futureResult.get()
    }

    /// A request that did not get a complete answer, other than through TLS.
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// Completes the request's promise once: with the answer, or the first failure.
private final class AnswerCollector: @unchecked Sendable {
    private let promise: EventLoopPromise<HTTPSClient.Answer>
    private let once = OnceFlag()

    init(promise: EventLoopPromise<HTTPSClient.Answer>) { self.promise = promise }

    func succeed(_ answer: HTTPSClient.Answer) { if once.claim() { promise.succeed(answer) } }
    func fail(_ error: Error) { if once.claim() { promise.fail(error) } }
}

/// Writes the request once the connection is up and gathers the answer.
private final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let collector: AnswerCollector
    let head: HTTPRequestHead
    let body: Data?
    private var answer = HTTPSClient.Answer(status: 0, headers: [:], body: Data())

    init(collector: AnswerCollector, head: HTTPRequestHead, body: Data?) {
        self.collector = collector
        self.head = head
        self.body = body
    }

    func channelActive(context: ChannelHandlerContext) {
        // Written now, sent by the TLS handler once its handshake completed.
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            answer.status = Int(head.status.code)
            for (name, value) in head.headers { answer.headers[name.lowercased()] = value }
        case .body(let buffer):
            guard answer.body.count + buffer.readableBytes <= HTTPSClient.maxBodySize else {
                collector.fail(HTTPSClient.Failure(message: "the answer is larger than \(HTTPSClient.maxBodySize) bytes"))
                context.close(promise: nil)
                return
            }
            answer.body.append(contentsOf: buffer.readableBytesView)
        case .end:
            collector.succeed(answer)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The TLS failure is read from the observer once the channel closed.
        context.close(promise: nil)
    }
}
