import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenRealmTestSupport

/// Makes `fd` non-blocking and starts connecting it to `127.0.0.1:port`: returns
/// `connect`'s result (0, or -1 with `errno` — `EINPROGRESS` while the connection is
/// being made; wait for `POLLOUT`).
func startLoopbackConnect(_ fd: Int32, port: Int) -> Int32 {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
