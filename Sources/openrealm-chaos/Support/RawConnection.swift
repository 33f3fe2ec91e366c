import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a loopback port over a non-blocking socket, where every send and
/// receive has a deadline: the attacks of `abuse` send what no well-behaved client sends
/// (and sometimes never read), so nothing here may block without bound.
///
/// Used from one thread at a time.
final class RawConnection {
    /// Why a send or receive did not complete.
    enum Failure: Error, CustomStringConvertible {
        /// The deadline passed first.
        case timedOut(String)
        /// The peer closed or reset the connection.
        case closed(String)
        /// A system call failed otherwise (errno).
        case failed(String, Int32)

        var description: String {
            switch self {
            case .timedOut(let what): return "\(what) timed out"
            case .closed(let what): return "\(what): the connection was closed"
            case .failed(let what, let code): return "\(what) failed with errno \(code)"
            }
        }
    }

    private(set) var fd: Int32
    /// The port connected to.
    let port: Int

    /// Connects to `127.0.0.1:port` within `timeout` seconds. `receiveBuffer` (bytes)
    /// shrinks the socket's receive buffer first, as a client that means to read nothing
    /// would: the server's data then stops in the server's own buffers and queue.
    ///
    /// - Throws: ``Failure`` when the socket cannot be made or the connection fails.
    init(port: Int, timeout: TimeInterval, receiveBuffer: Int? = nil) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.failed("socket()", errno) }
        if var size = receiveBuffer.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let connected = startLoopbackConnect(fd, port: port)
        do {
            if connected != 0 {
                guard errno == EINPROGRESS else { throw Failure.failed("connecting to port \(port)", errno) }
                guard try wait(for: Int16(POLLOUT), until: Date().addingTimeInterval(timeout)) else {
                    throw Failure.timedOut("connecting to port \(port)")
                }
                var socketError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
                guard socketError == 0 else { throw Failure.failed("connecting to port \(port)", socketError) }
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the socket (again is harmless).
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends all of `bytes` by `deadline`.
    ///
    /// - Throws: ``Failure`` `closed` when the peer closed or reset the connection,
    ///   `timedOut` when the peer did not take the bytes in time.
    func send(_ bytes: [UInt8], deadline: Date, what: String = "sending") throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
                continue
            }
            switch errno {
            case EAGAIN, EINTR:
                guard try wait(for: Int16(POLLOUT), until: deadline) else { throw Failure.timedOut(what) }
            case EPIPE, ECONNRESET:
                throw Failure.closed(what)
            default:
                throw Failure.failed(what, errno)
            }
        }
    }

    /// Sends what the socket takes now of `bytes`, without waiting; returns how many.
    ///
    /// - Throws: ``Failure`` `closed` when the peer closed or reset the connection.
    func sendAvailable(_ bytes: [UInt8], what: String = "sending") throws -> Int {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent >= 0 { return sent }
        switch errno {
        case EAGAIN, EINTR: return 0
        case EPIPE, ECONNRESET: throw Failure.closed(what)
        default: throw Failure.failed(what, errno)
        }
    }

    /// The bytes that arrive next, waiting until `deadline`; nil when the peer closed the
    /// connection (end of stream or reset).
    ///
    /// - Throws: ``Failure`` `timedOut` when nothing arrived in time.
    func receive(deadline: Date, what: String = "receiving") throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count == 0 { return nil }
            switch errno {
            case EAGAIN, EINTR:
                guard try wait(for: Int16(POLLIN), until: deadline) else { throw Failure.timedOut(what) }
            case ECONNRESET, EPIPE:
                return nil
            default:
                throw Failure.failed(what, errno)
            }
        }
    }

    /// Whether the peer has reset the connection, asked without reading anything (a
    /// reset shows as an error on the socket; a peer that closed normally only shows once
    /// what it sent before has been read).
    var wasReset: Bool {
        var pfd = pollfd(fd: fd, events: 0, revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        return pfd.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Waits until the socket is ready for `events`; false when `deadline` passed first.
    private func wait(for events: Int16, until deadline: Date) throws -> Bool {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { throw Failure.failed("poll", errno) }
        }
    }
}
