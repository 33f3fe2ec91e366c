import Foundation
import XCTest
@testable import OpenRealmSync

#if canImport(Glibc)
import Glibc
#endif
import OpenRealmTestSupport

/// HTTP requests end at the app's request timeout even when the server accepts the
/// connection and never answers.
final class RequestTimeoutTests: XCTestCase {
    /// A listening socket that never accepts: connections complete in the kernel's
    /// backlog and requests get no answer.
    final class SilentServer {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            var address = loopbackAddress(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    func testALoginToASilentServerFailsAtTheRequestTimeout() async throws {
        let error = try await loginToASilentServer("http", "the login to a silent server")
        XCTAssertEqual(error.code, .httpRequestFailed)
    }

    /// The same deadline holds over TLS (`https://` calls go through NIOSSL, not
    /// URLSession): a server that never answers the handshake fails the login at the
    /// request timeout.
    func testAnHTTPSLoginToASilentServerFailsAtTheRequestTimeout() async throws {
        let error = try await loginToASilentServer("https", "the HTTPS login to a silent server")
        XCTAssertEqual(error.code, .httpRequestFailed)
        XCTAssertTrue(error.message.contains("no complete answer within 0.5 seconds"), error.message)
    }

    /// Logs in anonymously at `scheme`://127.0.0.1 to a ``SilentServer`` with a request
    /// timeout of 500 ms, within 60 s (`what` names the wait); returns the error the
    /// login failed with.
    private func loginToASilentServer(_ scheme: String, _ what: String) async throws -> AppError {
        let server = try SilentServer()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-timeout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let app = App(id: "timeout-\(UUID().uuidString.prefix(8).lowercased())",
                      configuration: AppConfiguration(baseURL: "\(scheme)://127.0.0.1:\(server.port)", defaultRequestTimeoutMS: 500,
                                                      rootDirectory: root))
        let outcome = LockedBox<Error?>(nil)
        try await within(60, what) {
            do { _ = try await app.login(credentials: .anonymous) } catch { outcome.value = error }
        }
        withExtendedLifetime(server) {}
        return try XCTUnwrap(outcome.value as? AppError, "the login did not fail: \(String(describing: outcome.value))")
    }
}
