import Foundation
import Logging
import NIOSSL

/// TLS for the server's one port (`--tls-cert`, `--tls-key`): HTTPS for the auth routes
/// and WSS for sync, served by Hummingbird's TLS channel over NIOSSL.
///
/// The files are read when the server is made (``SyncServer/init(configuration:logger:)``),
/// so that a missing or unreadable file, one that holds no certificate or key, or a key
/// that does not belong to the certificate stops the server at start with a
/// ``ServerError`` naming the file, rather than failing each handshake later.
public struct ServerTLSConfiguration: Sendable, Equatable {
    /// A PEM file: the server's certificate first, then any intermediate certificates.
    public var certificateChainFile: URL
    /// A PEM file: the certificate's private key (RSA or EC, unencrypted).
    public var privateKeyFile: URL

    public init(certificateChainFile: URL, privateKeyFile: URL) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
    }

    /// The certificate chain, the key and the NIOSSL configuration made of them: TLS 1.2
    /// or later, HTTP/1.1 offered by ALPN.
    struct Loaded {
        let chain: [NIOSSLCertificate]
        let configuration: TLSConfiguration
    }

    /// Reads and checks both files.
    ///
    /// - Throws: ``ServerError`` naming the file: unreadable (with the OS reason), not
    ///   PEM, or a key that does not match the certificate.
    func load() throws -> Loaded {
        let certPath = certificateChainFile.path, keyPath = privateKeyFile.path
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(try Self.read(certificateChainFile, "certificate")) } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError("the TLS certificate file '\(certPath)' (--tls-cert) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        guard !chain.isEmpty else {
            throw ServerError("the TLS certificate file '\(certPath)' (--tls-cert) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(bytes: try Self.read(privateKeyFile, "key"), format: .pem) } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError("the TLS key file '\(keyPath)' (--tls-key) holds no unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw ServerError("the TLS key file '\(keyPath)' (--tls-key) does not match the certificate in '\(certPath)' (--tls-cert)")
        }
        return Loaded(chain: chain, configuration: configuration)
    }

    private static func read(_ file: URL, _ what: String) throws -> [UInt8] {
        let option = what == "key" ? "--tls-key" : "--tls-cert"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ServerError("cannot read the TLS \(what) file '\(file.path)' (\(option)): Is a directory")
        }
        do { return Array(try Data(contentsOf: file)) } catch {
            throw ServerError("cannot read the TLS \(what) file '\(file.path)' (\(option)): \(Self.osReason(error))")
        }
    }

    /// The operating system's reason inside a Foundation file error.
    private static func osReason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        switch ns.code {
        case NSFileReadNoSuchFileError: return "No such file or directory"
        case NSFileReadNoPermissionError: return "Permission denied"
        default: return ns.localizedDescription
        }
    }
}

/// Loads ``ServerTLSConfiguration`` for ``SyncServer`` and warns about a certificate
/// that clients will refuse by its dates.
enum ServerTLSSetup {
    static func load(_ settings: ServerTLSConfiguration, logger: Logger) throws -> TLSConfiguration {
        let loaded = try settings.load()
        if let leaf = loaded.chain.first {
            let now = time(nil), file = settings.certificateChainFile.path
            if leaf.notValidAfter < now {
                logger.warning("the TLS certificate has expired: clients will refuse it",
                               metadata: ["file": "\(file)", "notValidAfter": "\(Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter)))"])
            } else if leaf.notValidBefore > now {
                logger.warning("the TLS certificate is not valid yet: clients will refuse it",
                               metadata: ["file": "\(file)", "notValidBefore": "\(Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore)))"])
            }
        }
        return loaded.configuration
    }
}
