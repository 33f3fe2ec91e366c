import Foundation

/// HTTP requests whose head (one header field of padding) is 20 KiB, 100 KiB or 1 MiB,
/// each on a new connection: the server must answer (431) and close, reading no more
/// than its head limit, so none holds a descriptor.
///
/// Outcomes: `answered <status>` (the connection then closed), `closed without an
/// answer`, `left open` (neither an answer nor a close within 10 s).
struct OversizedHeadAttack: Attack {
    let limit: Int
    let perSecond: Double
    static let sizes = [20 << 10, 100 << 10, 1 << 20]

    var name: String { "oversized HTTP heads" }

    func run(against target: AbuseTarget) {
        var sent = 0
        while target.isRunning && sent < limit {
            let started = Date()
            let size = Self.sizes[sent % Self.sizes.count]
            sent += 1
            let (outcome, detail) = attempt(size: size, port: target.port)
            target.tally.count(name, outcome, detail: detail)
            target.pause(1 / perSecond - Date().timeIntervalSince(started))
        }
    }

    private func attempt(size: Int, port: Int) -> (String, String?) {
        let deadline = Date().addingTimeInterval(10)
        let connection: RawConnection
        do {
            connection = try RawConnection(port: port, timeout: 10)
        } catch {
            return ("could not connect", "\(error)")
        }
        defer { connection.close() }
        let head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Padding: \(String(repeating: "a", count: size))\r\n\r\n"
        // The server may close while the head is still being sent: that is expected.
        try? connection.send(Array(head.utf8), deadline: deadline, what: "the head")
        var reply: [UInt8] = []
        do {
            while let bytes = try connection.receive(deadline: deadline, what: "the answer") { reply += bytes }
        } catch RawConnection.Failure.timedOut {
            return ("left open", "\(size)-byte head: no close within 10 s, \(reply.count) bytes answered")
        } catch {
            return ("failed", "\(error)")
        }
        let statusLine = String(decoding: reply.prefix(while: { $0 != 13 }), as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard statusLine.hasPrefix("HTTP/1.1 "), parts.count >= 2 else { return ("closed without an answer", nil) }
        return ("answered \(parts[1])", nil)
    }
}
