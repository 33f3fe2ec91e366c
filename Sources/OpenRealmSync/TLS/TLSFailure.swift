import Foundation
import NIOCore
import NIOSSL

/// Why a TLS connection to a server failed, in words a person can act on.
///
/// ``classify(_:host:port:trust:)`` reads what the connection's
/// ``TLSHandshakeObserver`` saw; for a certificate that did not verify it asks
/// ``CertificateProbe`` for the server's chain, to say whether the certificate expired,
/// names another host or comes from an untrusted authority (the TLS library itself only
/// says "CERTIFICATE_VERIFY_FAILED").
@_spi(SyncTransport) public struct TLSFailure: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// The server's certificate did not verify (chain, dates or host name).
        case certificateRejected
        /// The server does not speak TLS on that port (a plain-text server).
        case notTLS
        /// The handshake failed for another reason that trying again will not change
        /// (no common protocol version or cipher, a malformed certificate).
        case handshakeFailed
        /// The connection ended during the handshake: possibly the network; worth retrying.
        case interrupted
    }

    let kind: Kind
    /// `host:port` of the server.
    let server: String
    /// The reason, naming what is wrong with the certificate or the server.
    let reason: String

    /// Whether retrying cannot help until someone changes the server or the client's
    /// trusted roots: the sync session stops with the error instead of retrying.
    package var isPermanent: Bool { kind != .interrupted }

    public var description: String { "TLS with \(server) failed: \(reason)" }

    /// The failure of a TLS client connection that closed before its handshake completed,
    /// or nil when TLS was not the cause (the handshake completed, or nothing TLS-related
    /// went wrong). Fails only on the event loop's side: the future always succeeds.
    static func classify(_ observer: TLSHandshakeObserver, host: String, port: Int, trust: String,
                         on eventLoop: EventLoop) -> EventLoopFuture<TLSFailure?> {
        let server = "\(host):\(port)"
        if let bytes = observer.firstBytes, let first = bytes.first, first != 0x16, first != 0x15 {
            return eventLoop.makeSucceededFuture(TLSFailure(kind: .notTLS, server: server, reason: plainTextReason(bytes)))
        }
        guard !observer.handshakeCompleted, let error = observer.error else {
            return eventLoop.makeSucceededFuture(nil)
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return diagnose(host: host, port: port, trust: trust, on: eventLoop,
                            fallback: "the server's certificate does not name \(host)")
        }
        guard let ssl = error as? NIOSSLError, case .handshakeFailed(let cause) = ssl else { return eventLoop.makeSucceededFuture(nil) }
        let stack: [String]
        switch cause {
        case .sslError(let errors), .unknownError(let errors): stack = errors.map(\.description)
        default: stack = ["\(cause)"]
        }
        let text = stack.joined(separator: "; ")
        if stack.contains(where: { $0.contains("CERTIFICATE_VERIFY_FAILED") }) {
            return diagnose(host: host, port: port, trust: trust, on: eventLoop,
                            fallback: "the server's certificate does not verify against \(trust)")
        }
        if stack.contains(where: { $0.contains("EOF during") }) || stack.isEmpty {
            return eventLoop.makeSucceededFuture(TLSFailure(kind: .interrupted, server: server,
                                                            reason: "the server closed the connection during the TLS handshake"))
        }
        if stack.contains(where: { $0.contains("WRONG_VERSION_NUMBER") || $0.contains("HTTP_REQUEST") }) {
            return eventLoop.makeSucceededFuture(TLSFailure(kind: .notTLS, server: server, reason: plainTextReason(observer.firstBytes ?? [])))
        }
        return eventLoop.makeSucceededFuture(TLSFailure(kind: .handshakeFailed, server: server, reason: "the TLS handshake failed: \(text)"))
    }

    /// Fetches the server's chain to say why it did not verify; `fallback` when it cannot be had.
    private static func diagnose(host: String, port: Int, trust: String, on eventLoop: EventLoop,
                                 fallback: String) -> EventLoopFuture<TLSFailure?> {
        CertificateProbe.chain(host: host, port: port, on: eventLoop).map { chain in
            let reason = chain.flatMap { CertificateProbe.reason(chain: $0, host: host, trust: trust) } ?? fallback
            return TLSFailure(kind: .certificateRejected, server: "\(host):\(port)", reason: reason)
        }
    }

    private static func plainTextReason(_ bytes: [UInt8]) -> String {
        let printable = bytes.prefix { $0 >= 0x20 && $0 < 0x7f }
        let quoted = printable.isEmpty ? "" : " (it answered '\(String(decoding: printable, as: UTF8.self))')"
        return "the server does not speak TLS on this port\(quoted): use http:// (ws://) for a server without TLS, "
            + "or the port where it serves https://"
    }
}
