import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenRealmTestSupport

/// A blocking TCP connection to the server under test, with a deadline on every read,
/// so that tests wait on conditions and never sleep.
final class TestSocket {
    private let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `port`; `receiveBufferBytes` fixes the socket's receive buffer (no
    /// autotuning), so that what the kernel holds for a client that does not read is small.
    init(port: Int, receiveBufferBytes: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        if var size = receiveBufferBytes {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopbackAddress(port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: the object is whole, so its deinit closes the descriptor (a
        // second close could close another thread's socket that reused the number).
        guard status == 0 else { throw Failure(description: "connect to port \(port) failed: \(errno)") }
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: \(errno)") }
            offset += n
        }
    }

    /// Reads at least `count` bytes into the buffer; false on end of stream.
    private func fill(_ count: Int, deadline: Date) throws -> Bool {
        while buffer.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure(description: "timed out waiting for data") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if ready == 0 { continue }
            guard ready > 0 else { throw Failure(description: "poll failed: \(errno)") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return false }
            guard n > 0 else { throw Failure(description: "recv failed: \(errno)") }
            buffer.append(contentsOf: chunk[0..<n])
        }
        return true
    }

    /// Exactly `count` bytes, or nil at the end of the stream.
    func read(_ count: Int, deadline: Date) throws -> [UInt8]? {
        guard try fill(count, deadline: deadline) else { return nil }
        let out = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return out
    }

    /// Bytes up to and including `delimiter`.
    func read(through delimiter: [UInt8], deadline: Date) throws -> [UInt8]? {
        while true {
            if let range = firstRange(of: delimiter) {
                let out = Array(buffer[0..<range])
                buffer.removeFirst(range)
                return out
            }
            guard try fill(buffer.count + 1, deadline: deadline) else { return nil }
        }
    }

    /// Everything until the peer closes.
    func readToEnd(deadline: Date) throws -> [UInt8] {
        while try fill(buffer.count + 1, deadline: deadline) {}
        defer { buffer = [] }
        return buffer
    }

    private func firstRange(of delimiter: [UInt8]) -> Int? {
        guard buffer.count >= delimiter.count else { return nil }
        for i in 0...(buffer.count - delimiter.count) where Array(buffer[i..<i + delimiter.count]) == delimiter {
            return i + delimiter.count
        }
        return nil
    }
}
