import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Says why a server's certificate did not verify.
///
/// The TLS library reports a rejected chain only as "CERTIFICATE_VERIFY_FAILED". After
/// such a failure the client connects once more, takes the chain the server presents,
/// and aborts that handshake without sending a byte of application data: nothing is
/// ever exchanged over a connection that did not verify. The chain is then read for
/// the reason: dates, names, issuer.
enum CertificateProbe {
    /// How long the probe may take; past it the caller uses its general reason.
    static let timeout: TimeAmount = .seconds(5)

    /// The chain `host:port` presents (leaf first), or nil when it cannot be had in time.
    static func chain(host: String, port: Int, on eventLoop: EventLoop) -> EventLoopFuture<[NIOSSLCertificate]?> {
        let promise = eventLoop.makePromise(of: [NIOSSLCertificate]?.self)
        // The chain, the deadline, a failed connect and the close all race to answer.
        let once = OnceFlag()
        let answer: @Sendable ([NIOSSLCertificate]?) -> Void = { if once.claim() { promise.succeed($0) } }
        let context: NIOSSLContext
        do {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([])
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            answer(nil)
            return promise.futureResult
        }
        let deadline = eventLoop.scheduleTask(in: timeout) { answer(nil) }
        ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Replaces verification: takes the chain and refuses it, so the handshake ends here.
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: host.isIPAddress ? nil : host,
                                                          customVerificationCallback: { certificates, verdict in
                        answer(certificates)
                        verdict.succeed(.failed)
                    })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                if case .success(let channel) = result {
                    promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                    channel.closeFuture.whenComplete { _ in answer(nil) }
                } else {
                    answer(nil)
                }
            }
        promise.futureResult.whenComplete { _ in deadline.cancel() }
        return promise.futureResult
    }

    /// Why `chain` does not verify for `host`: the first of an expired or not yet valid
    /// certificate, a leaf that names other hosts, an issuer not in the trusted roots.
    static func reason(chain: [NIOSSLCertificate], host: String, trust: String) -> String? {
        guard let leaf = chain.first else { return nil }
        let now = time(nil)
        if leaf.notValidAfter < now {
            return "the server's certificate (\(name(leaf))) expired on \(date(leaf.notValidAfter))"
        }
        if leaf.notValidBefore > now {
            return "the server's certificate (\(name(leaf))) is not valid before \(date(leaf.notValidBefore))"
        }
        let names = hostNames(leaf)
        if !names.contains(where: { matches($0, host) }) {
            let listed = names.isEmpty ? "no host name" : names.joined(separator: ", ")
            return "the server's certificate is for \(listed), not \(host)"
        }
        if let stale = chain.dropFirst().first(where: { $0.notValidAfter < now }) {
            return "the certificate '\(name(stale))' in the server's chain expired on \(date(stale.notValidAfter))"
        }
        let issuer = chain.last.map { issuerName($0) } ?? "?"
        if chain.count == 1, issuerName(leaf) == name(leaf) {
            return "the server's certificate (\(name(leaf))) is self-signed and not in \(trust)"
        }
        return "the server's certificate is issued by '\(issuer)', which is not in \(trust)"
    }

    private static func name(_ certificate: NIOSSLCertificate) -> String {
        certificate.subjectName.last(where: { $0.type == .commonName })?.value ?? "no common name"
    }

    private static func issuerName(_ certificate: NIOSSLCertificate) -> String {
        certificate.issuerName.last(where: { $0.type == .commonName })?.value
            ?? certificate.issuerName.map(\.value).joined(separator: ", ")
    }

    private static func date(_ t: time_t) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(t)))
    }

    /// The DNS and IP names of the certificate's subject alternative names; its common
    /// name when it has none (as verifiers did before SANs).
    static func hostNames(_ certificate: NIOSSLCertificate) -> [String] {
        var names: [String] = []
        for san in certificate._subjectAlternativeNames() {
            let bytes = san.contents.withUnsafeBufferPointer { Array($0) }
            if san.nameType == .dnsName {
                names.append(String(decoding: bytes, as: UTF8.self))
            } else if san.nameType == .ipAddress {
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                let family = bytes.count == 4 ? AF_INET : AF_INET6
                if bytes.count == 4 || bytes.count == 16, inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil {
                    names.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
            }
        }
        if names.isEmpty, let cn = certificate.subjectName.last(where: { $0.type == .commonName })?.value { names.append(cn) }
        return names
    }

    /// Whether certificate name `pattern` (possibly `*.example.com`) covers `host`.
    static func matches(_ pattern: String, _ host: String) -> Bool {
        let p = pattern.lowercased(), h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if p == h { return true }
        guard p.hasPrefix("*."), let dot = h.firstIndex(of: ".") else { return false }
        return h[dot...] == p.dropFirst()
    }
}
