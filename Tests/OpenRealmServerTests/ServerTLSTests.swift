import Foundation
import XCTest
@testable import OpenRealmServer
import OpenRealmTestSupport

/// `--tls-cert` / `--tls-key` files that cannot serve stop the server when it is made,
/// with a message naming the file, instead of a server that fails every handshake.
/// (TLS that works, end to end with a client, is in OpenRealmSyncTests' TLSSyncTests.)
final class ServerTLSTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory.make("openrealm-server-tls", removedBy: addTeardownBlock)
        // A self-signed certificate with its key, and a second key that belongs to no certificate.
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", "server.key", "-out", "server.pem", "-days", "2", "-subj", "/CN=127.0.0.1"])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", "other.key"])
        try Data("not a certificate\n".utf8).write(to: file("garbage.pem"))
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func testMatchingFilesMakeAServer() throws {
        XCTAssertNoThrow(try makeServer(cert: "server.pem", key: "server.key"))
    }

    func testAMissingCertificateFileIsNamed() {
        assertStartError(cert: "missing.pem", key: "server.key", names: "missing.pem", "No such file or directory", "--tls-cert")
    }

    func testAMissingKeyFileIsNamed() {
        assertStartError(cert: "server.pem", key: "missing.key", names: "missing.key", "No such file or directory", "--tls-key")
    }

    /// A path that is not a readable file (as root, permissions do not stop a read: a
    /// directory does).
    func testAnUnreadableCertificateFileIsNamed() throws {
        try FileManager.default.createDirectory(at: file("dir.pem"), withIntermediateDirectories: true)
        assertStartError(cert: "dir.pem", key: "server.key", names: "dir.pem", "cannot read the TLS certificate file", "Is a directory")
    }

    func testACertificateFileWithoutACertificateIsNamed() {
        assertStartError(cert: "garbage.pem", key: "server.key", names: "garbage.pem", "holds no PEM certificate")
        assertStartError(cert: "server.key", key: "server.key", names: "server.key", "holds no PEM certificate")
    }

    func testAKeyFileWithoutAKeyIsNamed() {
        assertStartError(cert: "server.pem", key: "garbage.pem", names: "garbage.pem", "holds no unencrypted PEM private key")
    }

    func testAKeyThatDoesNotMatchTheCertificateIsNamed() {
        assertStartError(cert: "server.pem", key: "other.key", names: "other.key", "does not match the certificate", "server.pem")
    }

    private func makeServer(cert: String, key: String) throws -> SyncServer {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: file("data"))
        configuration.tls = ServerTLSConfiguration(certificateChainFile: file(cert), privateKeyFile: file(key))
        return try SyncServer(configuration: configuration)
    }

    private func assertStartError(cert: String, key: String, names parts: String..., line: UInt = #line) {
        XCTAssertThrowsError(try makeServer(cert: cert, key: key), line: line) { error in
            let message = "\(error)"
            XCTAssertTrue(error is ServerError, "\(type(of: error)): \(message)", line: line)
            for part in parts {
                XCTAssertTrue(message.contains(part), "'\(message)' does not say '\(part)'", line: line)
            }
        }
    }

    /// Runs `openssl` (on PATH; Debian package `openssl`) in the test's directory.
    private func openssl(_ arguments: [String]) throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let tool = paths.map({ "\($0)/openssl" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ServerError("the TLS tests need the `openssl` command on PATH (Debian package `openssl`)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServerError("openssl \(arguments.joined(separator: " ")) failed") }
    }
}
