import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why no free loopback port could be found: the call that failed and its `errno`.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public let description: String
}

/// A loopback TCP port that was free a moment ago: bound on 127.0.0.1 to port 0, read
/// back, and released. Another process may take it before the caller binds it, so a
/// caller that starts a server on it retries with another port when the start fails.
///
/// - Throws: ``LoopbackPortError`` naming the failed call (`socket`, `bind`,
///   `getsockname`) and its `errno` message.
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackPortError(description: "socket() failed: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let failed: String? = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            if bind(fd, pointer, length) != 0 { return "bind() to a loopback port" }
            if getsockname(fd, pointer, &length) != 0 { return "getsockname()" }
            return nil
        }
    }
    if let failed { throw LoopbackPortError(description: "\(failed) failed: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The IPv4 socket address `127.0.0.1:port`, for `bind` or `connect`.
public func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
