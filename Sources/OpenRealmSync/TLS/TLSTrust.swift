import Foundation
import NIOSSL
import Synchronization

/// The certificates a client trusts for `https://` and `wss://`: the system's trust
/// store, or the roots of ``AppConfiguration/trustedRootCertificatesFile`` in its place.
///
/// Both the app's HTTP calls and the sync WebSocket take their TLS context from here, so
/// that a server the login trusts is the server sync trusts. One context is kept per
/// file, read again when the file's modification date changes (building one for the
/// system's trust store reads its whole bundle).
enum TLSTrust {
    /// Why the trusted roots cannot be used: the message names the file and the cause.
    struct LoadError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// One context per file (nil: the system's), with the modification date it was read at.
    private static let cache = Mutex<[String?: (modified: Date?, context: NIOSSLContext)]>([:])

    /// The client TLS context trusting `file`'s roots, or the system's when nil: TLS 1.2
    /// or later, the chain and the host name both verified.
    ///
    /// - Throws: ``LoadError`` when the file cannot be read or holds no PEM certificate.
    static func context(trustedRoots file: URL?) throws -> NIOSSLContext {
        let path = file?.path
        let modified = path.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.modificationDate] as? Date }
        if let cached = cache.withLock({ $0[path] }), cached.modified == modified { return cached.context }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        if let path { configuration.trustRoots = .certificates(try roots(at: path)) }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: configuration) } catch {
            throw LoadError(message: "cannot make a TLS context with \(path.map { "the roots of '\($0)'" } ?? "the system's trust store"): \(error)")
        }
        cache.withLock { $0[path] = (modified, context) }
        return context
    }

    /// The certificates of a PEM file.
    static func roots(at path: String) throws -> [NIOSSLCertificate] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw LoadError(message: "cannot read the trusted root certificates file '\(path)': Is a directory")
        }
        let bytes: [UInt8]
        do { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw LoadError(message: "cannot read the trusted root certificates file '\(path)': \(OSReason.of(error))")
        }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMBytes(bytes) } catch {
            throw LoadError(message: "the trusted root certificates file '\(path)' holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        guard !certificates.isEmpty else {
            throw LoadError(message: "the trusted root certificates file '\(path)' holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }
}

/// The operating system's reason inside a Foundation file error ("No such file or
/// directory", "Permission denied"), rather than the whole `NSCocoaErrorDomain` dump.
enum OSReason {
    static func of(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        switch ns.code {
        case NSFileReadNoSuchFileError: return "No such file or directory"
        case NSFileReadNoPermissionError: return "Permission denied"
        default: return ns.localizedDescription
        }
    }
}

extension AppConfiguration {
    /// The client TLS context of this configuration's trusted roots.
    ///
    /// - Throws: ``TLSTrust/LoadError`` naming ``trustedRootCertificatesFile`` and the cause.
    func tlsContext() throws -> NIOSSLContext {
        try TLSTrust.context(trustedRoots: trustedRootCertificatesFile)
    }

    /// The trusted roots in words, for error messages.
    var trustDescription: String {
        trustedRootCertificatesFile.map { "the trusted roots file '\($0.path)' (AppConfiguration.trustedRootCertificatesFile)" }
            ?? "the system's trust store"
    }
}
