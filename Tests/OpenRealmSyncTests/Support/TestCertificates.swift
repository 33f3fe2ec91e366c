import Foundation
import OpenRealmServer
import XCTest

/// Certificates for the TLS tests, made with the `openssl` command (found on PATH; the
/// Debian package `openssl`): a test CA, server certificates it signs (for 127.0.0.1
/// and localhost; expired; for another host name), and a server certificate signed by
/// a second CA that clients are not told to trust. EC P-256 keys: quick to make.
struct TestCertificates {
    let directory: URL

    /// What a server certificate is like.
    enum Kind: String, CaseIterable {
        /// Signed by the test CA, for 127.0.0.1 and localhost, valid for two days.
        case valid
        /// Signed by the test CA, for 127.0.0.1 and localhost, expired yesterday.
        case expired
        /// Signed by the test CA, for other.example.com only.
        case otherName
        /// For 127.0.0.1 and localhost, signed by "OpenRealm Other CA".
        case otherCA
    }

    /// The test CA's certificate: the client's trusted roots.
    var caFile: URL { directory.appendingPathComponent("ca.pem") }

    /// The server's TLS files for a certificate of `kind`.
    func server(_ kind: Kind) -> ServerTLSConfiguration {
        ServerTLSConfiguration(certificateChainFile: directory.appendingPathComponent("\(kind.rawValue).pem"),
                               privateKeyFile: directory.appendingPathComponent("\(kind.rawValue).key"))
    }

    /// Makes every certificate in a new temporary directory.
    static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        try certificates.makeCA("ca", name: "OpenRealm Test CA")
        try certificates.makeCA("other-ca", name: "OpenRealm Other CA")
        let local = "subjectAltName=IP:127.0.0.1,DNS:localhost"
        try certificates.makeServer(.valid, ca: "ca", extensions: local, days: 2)
        try certificates.makeServer(.expired, ca: "ca", extensions: local, days: -1)
        try certificates.makeServer(.otherName, ca: "ca", extensions: "subjectAltName=DNS:other.example.com", days: 2)
        try certificates.makeServer(.otherCA, ca: "other-ca", extensions: local, days: 2)
        return certificates
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    private func makeCA(_ file: String, name: String) throws {
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", "\(file).key", "-out", "\(file).pem", "-days", "2", "-subj", "/CN=\(name)"], in: directory)
    }

    /// `days` -1 makes a certificate whose validity ended a day ago.
    private func makeServer(_ kind: Kind, ca: String, extensions: String, days: Int) throws {
        let name = kind.rawValue
        try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
        try Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=OpenRealm test server \(name)"], in: directory)
        try Self.openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial",
                          "-out", "\(name).pem", "-days", "\(days)", "-extfile", "\(name).ext"], in: directory)
    }

    /// Runs `openssl` with `arguments` in `directory`.
    ///
    /// - Throws: when `openssl` is not on PATH or fails (with its standard error).
    static func openssl(_ arguments: [String], in directory: URL) throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let tool = paths.map({ "\($0)/openssl" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestCertificateError(message: "the TLS tests need the `openssl` command on PATH (Debian package `openssl`)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestCertificateError(message: "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }
}

struct TestCertificateError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
