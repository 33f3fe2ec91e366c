import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenRealmTestSupport

/// A TCP listener on a loopback port that accepts connections and never answers them:
/// a server that is up for the kernel (connects succeed, bytes are taken) and dead for
/// everything above, as a server that hangs or is killed between accept and answer is.
final class SilentListener: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var accepted: [Int32] = []
    private var acceptCount = 0
    private var closed = false

    /// Listens on 127.0.0.1:`port` (address reuse on, so a just-stopped server's port works).
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "cannot listen on port \(port): errno \(code)"])
        }
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                let keep = lock.withLock { () -> Bool in
                    if closed { return false }
                    accepted.append(client)
                    acceptCount += 1
                    return true
                }
                if !keep { Glibc.close(client); return }
            }
        }
    }

    /// How many connections it accepted.
    var acceptedCount: Int { lock.withLock { acceptCount } }

    /// Closes the listener and every accepted connection (once: a second call does
    /// nothing, as the descriptors may belong to someone else by then).
    func close() {
        let open = lock.withLock { () -> [Int32]? in
            if closed { return nil }
            closed = true
            defer { accepted = [] }
            return accepted
        }
        guard let open else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        for client in open { Glibc.close(client) }
    }
}
