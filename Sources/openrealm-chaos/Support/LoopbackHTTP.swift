import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A one-request HTTP/1.1 client (`Connection: close`) to a loopback port, with a
/// deadline on connecting and reading, for `/health` and the auth routes.
struct LoopbackHTTP {
    let port: Int

    /// A reply: the status code and the body text.
    struct Reply {
        let status: Int
        let body: String

        /// The body as a JSON object, or an empty one.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    /// Sends one request and reads the whole reply.
    ///
    /// - Throws: ``ChaosFailure`` (`code`) when the connection fails or no full reply
    ///   arrives within `timeout` seconds.
    func request(_ method: String, _ path: String, json: [String: Any]? = nil, timeout: TimeInterval = 10,
                 code: ChaosFailure.Code = .server) throws -> Reply {
        let deadline = Date().addingTimeInterval(timeout)
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if json != nil { head += "Content-Type: application/json\r\n" }
        head += "\r\n"
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChaosFailure(code, "socket() failed with errno \(errno).") }
        defer { close(fd) }
        let connected = startLoopbackConnect(fd, port: port)
        if connected != 0 && errno != EINPROGRESS {
            throw ChaosFailure(code, "\(method) \(path): connecting to port \(port) failed with errno \(errno).")
        }
        try wait(fd, for: Int16(POLLOUT), until: deadline, what: "\(method) \(path): connecting", code: code)
        var socketError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
        guard socketError == 0 else {
            throw ChaosFailure(code, "\(method) \(path): connecting to port \(port) failed with errno \(socketError).")
        }
        let bytes = Array(head.utf8) + Array(body)
        var offset = 0
        while offset < bytes.count {
            try wait(fd, for: Int16(POLLOUT), until: deadline, what: "\(method) \(path): sending", code: code)
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard sent > 0 else { throw ChaosFailure(code, "\(method) \(path): send failed with errno \(errno).") }
            offset += sent
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            try wait(fd, for: Int16(POLLIN), until: deadline, what: "\(method) \(path): reading the reply", code: code)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count >= 0 else { throw ChaosFailure(code, "\(method) \(path): recv failed with errno \(errno).") }
            if count == 0 { break }
            reply += chunk[0..<count]
        }
        let text = String(decoding: reply, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else {
            throw ChaosFailure(code, "\(method) \(path): the reply has no HTTP head: '\(text.prefix(200))'.")
        }
        let statusLine = text[..<split.lowerBound].split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Reply(status: status, body: String(text[split.upperBound...]))
    }

    /// Whether `GET /health` answers 200 within `timeout` seconds.
    func isHealthy(timeout: TimeInterval) -> Bool {
        (try? request("GET", "/health", timeout: timeout, code: .health))?.status == 200
    }

    private func wait(_ fd: Int32, for events: Int16, until deadline: Date, what: String, code: ChaosFailure.Code) throws {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw ChaosFailure(code, "\(what) timed out.") }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw ChaosFailure(code, "\(what): poll failed with errno \(errno).") }
        }
    }
}
