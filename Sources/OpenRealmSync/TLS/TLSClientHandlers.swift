import Foundation
import NIOCore
import NIOSSL
import NIOTLS

/// What a client TLS connection saw before it failed: the first bytes from the server,
/// whether the handshake completed, and the first error. Read by ``TLSFailure`` once the
/// channel closed; written on the channel's event loop.
final class TLSHandshakeObserver: @unchecked Sendable {
    private let lock = NSLock()
    private var _firstBytes: [UInt8]?
    private var _handshakeCompleted = false
    private var _error: Error?

    /// At most this many of the server's first bytes are kept (to quote a plain-text answer).
    static let keptBytes = 64

    var firstBytes: [UInt8]? { lock.withLock { _firstBytes } }
    var handshakeCompleted: Bool { lock.withLock { _handshakeCompleted } }
    var error: Error? { lock.withLock { _error } }

    fileprivate func sawBytes(_ bytes: [UInt8]) { lock.withLock { if _firstBytes == nil { _firstBytes = bytes } } }
    fileprivate func completed() { lock.withLock { _handshakeCompleted = true } }
    fileprivate func failed(_ error: Error) { lock.withLock { if _error == nil { _error = error } } }
}

enum TLSClientHandlers {
    /// Adds TLS to a client pipeline (before the HTTP handlers): the server's certificate
    /// is verified against `context`'s roots and `host` (SNI carries it unless it is an
    /// IP address, which is then matched against the certificate's IP names).
    static func add(to pipeline: ChannelPipeline.SynchronousOperations, context: NIOSSLContext, host: String,
                    observer: TLSHandshakeObserver) throws {
        try pipeline.addHandler(FirstBytesHandler(observer: observer))
        try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: host.isIPAddress ? nil : host))
        try pipeline.addHandler(HandshakeOutcomeHandler(observer: observer))
    }
}

extension String {
    /// Whether this is an IPv4 or IPv6 address literal (not a name SNI may carry).
    var isIPAddress: Bool {
        var v4 = in_addr(), v6 = in6_addr()
        let bare = hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }
}

/// Sits before the TLS handler: keeps the first bytes the server sent (a TLS server's
/// start with a handshake or alert record, a plain HTTP server's with `HTTP/`), then leaves.
private final class FirstBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let observer: TLSHandshakeObserver

    init(observer: TLSHandshakeObserver) { self.observer = observer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        observer.sawBytes(Array(buffer.readableBytesView.prefix(TLSHandshakeObserver.keptBytes)))
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Sits after the TLS handler: notes the handshake's completion and the first error.
private final class HandshakeOutcomeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let observer: TLSHandshakeObserver

    init(observer: TLSHandshakeObserver) { self.observer = observer }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { observer.completed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        observer.failed(error)
        context.fireErrorCaught(error)
    }
}
